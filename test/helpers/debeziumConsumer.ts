// A consumer of Debezium change events written from Debezium's and Kafka Connect's documentation, not
// from our types: it reads every message of a stream, takes the key from the named header and the value
// from the body (JSON converter, schemas on or off), applies c/r/u/d/t to a table of rows per topic, and
// decodes the logical types it meets by their schema names (Decimal from its unscaled bytes and scale).
import { connect } from '@nats-io/transport-node';
import { DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';

export type Value = null | boolean | number | string | Value[] | { [k: string]: Value };
export interface ConsumedEvent {
  subject: string;
  seq: number;
  msgId: string | undefined;
  /** The key's payload, as the Cdc-Key header carries it; undefined without the header. */
  key: Record<string, Value> | undefined;
  /** The value's payload; null for a tombstone (an empty body). */
  value: Record<string, Value> | null;
  /** The value's schema part, when sent. */
  schema: { fields?: { field: string; fields?: FieldSchema[] }[] } | undefined;
  headers: Record<string, string>;
}
interface FieldSchema {
  field: string;
  type: string;
  name?: string;
  parameters?: Record<string, string>;
}

/** Every message of the stream under `subjects`, in stream order. */
export async function readStream(
  servers: string,
  stream: string,
  subjects: string,
): Promise<ConsumedEvent[]> {
  const nc = await connect({ servers });
  try {
    const jsm = await jetstreamManager(nc);
    const info = await jsm.streams.info(stream);
    if (info.state.messages === 0) return [];
    const consumer = await jetstream(nc).consumers.get(stream, {
      filter_subjects: subjects,
      deliver_policy: DeliverPolicy.All,
    });
    const out: ConsumedEvent[] = [];
    const messages = await consumer.consume();
    for await (const m of messages) {
      const headers: Record<string, string> = {};
      for (const [k, v] of m.headers ?? []) headers[k] = v.join(',');
      const keyText = headers['Cdc-Key'];
      const parsedKey = keyText === undefined ? undefined : (JSON.parse(keyText) as Record<string, Value>);
      const body = m.data.length === 0 ? null : (JSON.parse(m.string()) as Record<string, Value>);
      const withSchema = body !== null && 'payload' in body && 'schema' in body;
      out.push({
        subject: m.subject,
        seq: m.seq,
        msgId: headers['Nats-Msg-Id'],
        key: parsedKey && 'payload' in parsedKey ? (parsedKey.payload as Record<string, Value>) : parsedKey,
        value: withSchema ? (body.payload as Record<string, Value>) : body,
        schema: withSchema ? (body.schema as ConsumedEvent['schema']) : undefined,
        headers,
      });
      if (m.seq >= info.state.last_seq || m.info.pending === 0) break;
    }
    await messages.close();
    return out;
  } finally {
    await nc.close();
  }
}

/** Kafka Connect's Decimal: a big-endian two's-complement integer (base64) over 10^scale, as exact text. */
export function decimalText(base64: string, scale: number): string {
  const bytes = Buffer.from(base64, 'base64');
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  if (bytes.length > 0 && (bytes[0] as number) & 0x80) v -= 1n << BigInt(bytes.length * 8);
  const negative = v < 0n;
  const digits = (negative ? -v : v).toString().padStart(scale + 1, '0');
  const text = scale > 0 ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
  return negative ? `-${text}` : text;
}

/** A row's values with Decimal fields decoded by the schema's `after` struct. */
function decoded(row: Record<string, Value>, fields: FieldSchema[] | undefined): Record<string, Value> {
  const out: Record<string, Value> = { ...row };
  for (const f of fields ?? []) {
    const v = row[f.field];
    if (f.name === 'org.apache.kafka.connect.data.Decimal' && typeof v === 'string')
      out[f.field] = decimalText(v, Number(f.parameters?.scale ?? 0));
  }
  return out;
}

/** The tables the events describe, by topic (`source.db`/`schema`/`table`), keyed by the key's JSON. */
export function applyEvents(
  events: readonly ConsumedEvent[],
): Map<string, Map<string, Record<string, Value>>> {
  const tables = new Map<string, Map<string, Record<string, Value>>>();
  for (const e of events) {
    if (e.value === null) continue; // a tombstone: only for compaction
    const source = e.value.source as Record<string, Value> | undefined;
    const op = e.value.op;
    if (!source || typeof op !== 'string') continue; // not a change event (schema change, transaction)
    const topic = `${String(source.schema)}.${String(source.table)}`;
    const rows = tables.get(topic) ?? new Map<string, Record<string, Value>>();
    tables.set(topic, rows);
    const afterFields = e.schema?.fields?.find((f) => f.field === 'after')?.fields;
    if (op === 't') rows.clear();
    else if (op === 'd') rows.delete(JSON.stringify(e.key));
    else rows.set(JSON.stringify(e.key), decoded(e.value.after as Record<string, Value>, afterFields));
  }
  return tables;
}
