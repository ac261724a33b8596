// Reads of a stream that are not a table's changes: every message of one subject (schema change events,
// headers alone for a scan), the last one of a subject, and the tables' shapes as the stream tells them —
// from our schema change events (the source's own types), else from an event's schema part.
import { DeliverPolicy, type JetStreamClient, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import type { MsgHdrs } from '@nats-io/transport-node';
import type { TableShape } from '../source';
import { appliedType, EventNotReadable, sourceTypeOf, type EventField } from './decode';
import { parseBigJson, type BigJson } from './jsonBig';
import { SOURCE_TYPE_PARAMETER } from './envelope';
import { KEY_HEADER } from './messages';

/** Each message on `subject` (null: every subject) from `fromSeq` to the stream's end as it is now, in order. */
export async function eachMessage(
  js: JetStreamClient,
  jsm: JetStreamManager,
  stream: string,
  subject: string | null,
  visit: (m: JsMsg) => void,
  options: { fromSeq?: number; headersOnly?: boolean } = {},
): Promise<void> {
  const info = await jsm.streams.info(stream);
  const from = Math.max(options.fromSeq ?? 1, info.state.first_seq);
  if (info.state.messages === 0 || info.state.last_seq < from) return;
  const consumer = await js.consumers.get(stream, {
    ...(subject !== null && { filter_subjects: subject }),
    deliver_policy: DeliverPolicy.StartSequence,
    opt_start_seq: from,
    headers_only: options.headersOnly === true,
  });
  for (;;) {
    const pending = (await consumer.info()).num_pending;
    if (pending === 0) return;
    let got = 0;
    for await (const m of await consumer.fetch({ max_messages: Math.min(pending, 4096), expires: 2000 })) {
      got++;
      visit(m);
      if (m.seq >= info.state.last_seq) return;
    }
    // Counted but not delivered (limits discarded them meanwhile): nothing more to read now.
    if (got === 0) return;
  }
}

export interface TableChangeEvent {
  id: string;
  table: {
    primaryKeyColumnNames: string[];
    columns: { name: string; typeExpression: string; optional: boolean }[];
  };
}

/**
 * Our schema change events on `<prefix>` from `fromSeq`, the last per table id (`"db"."schema"."table"`)
 * put into `told`, and the sequence of the last one read (0 when none was).
 */
export async function schemaEvents(
  js: JetStreamClient,
  jsm: JetStreamManager,
  stream: string,
  prefix: string,
  fromSeq: number,
  told: Map<string, TableChangeEvent>,
): Promise<number> {
  let lastSeq = 0;
  await eachMessage(
    js,
    jsm,
    stream,
    prefix,
    (m) => {
      const body = JSON.parse(m.string()) as { tableChanges?: TableChangeEvent[] };
      for (const change of body.tableChanges ?? []) told.set(change.id, change);
      lastSeq = m.seq;
    },
    { fromSeq },
  );
  return lastSeq;
}

/** Whether two shapes of a table differ in a way the target must follow: columns, types, nullability, key. */
export const shapesDiffer = (a: TableShape, b: TableShape): boolean =>
  a.key.join('\u0000') !== b.key.join('\u0000') ||
  a.columns.length !== b.columns.length ||
  a.columns.some((c, i) => {
    const o = b.columns[i];
    return !o || o.name !== c.name || o.sourceType !== c.sourceType || o.nullable !== c.nullable;
  });

/** The id our schema change events give a table: each part double-quoted. */
export const tableChangeId = (parts: readonly string[]) =>
  parts.map((p) => `"${p.replaceAll('"', '""')}"`).join('.');

export function shapeFromSchemaEvent(
  ref: TableShape['ref'],
  identity: string,
  e: TableChangeEvent,
): TableShape {
  return {
    ref,
    identity,
    key: e.table.primaryKeyColumnNames,
    columns: e.table.columns.map((c) => ({
      name: c.name,
      sourceType: appliedType(c.typeExpression),
      nullable: c.optional,
    })),
  };
}

/** What decoding reads of a message, whether consumed (JsMsg) or fetched by sequence (StoredMsg). */
export interface EventMessage {
  seq: number;
  subject: string;
  data: Uint8Array;
  headers?: MsgHdrs;
  string(): string;
}

/** A value's body: `{schema, payload}` or the payload alone. */
export function eventParts(
  m: EventMessage,
): { payload: Record<string, BigJson>; schema: EventField | undefined } | null {
  if (m.data.length === 0) return null;
  const body = parseBigJson(m.string());
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new EventNotReadable(`Message ${m.seq} on ${m.subject} is not a change event.`);
  if ('payload' in body && 'schema' in body)
    return {
      payload: body.payload as Record<string, BigJson>,
      schema: body.schema as unknown as EventField,
    };
  return { payload: body, schema: undefined };
}

/** The `after` (else `before`) struct's fields of an event's schema part. */
export const rowFieldsOf = (schema: EventField | undefined): EventField[] | undefined =>
  schema?.fields?.find((f) => f.field === 'after')?.fields ??
  schema?.fields?.find((f) => f.field === 'before')?.fields;

/** A table's shape from a producer's event that carries a schema part and a keyed Cdc-Key header. */
export function shapeFromEvent(ref: TableShape['ref'], identity: string, m: EventMessage): TableShape | null {
  const parts = eventParts(m);
  const fields = rowFieldsOf(parts?.schema);
  const keyText = m.headers?.get(KEY_HEADER);
  const keySchema = keyText ? (JSON.parse(keyText) as { schema?: EventField }).schema : undefined;
  if (!fields || !keySchema?.fields) return null;
  return {
    ref,
    identity,
    key: keySchema.fields.map((f) => f.field),
    columns: fields.map((f) => ({
      name: f.field,
      sourceType: f.parameters?.[SOURCE_TYPE_PARAMETER]
        ? appliedType(f.parameters[SOURCE_TYPE_PARAMETER])
        : sourceTypeOf(f),
      nullable: f.optional !== false,
    })),
  };
}
