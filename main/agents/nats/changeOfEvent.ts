// One Debezium event as the runner's change: its values decoded by their schema (the event's, or as this
// target writes the column), its key from the Cdc-Key header (else from the row), its position the
// stream sequence, its commit time and transaction from the envelope.
import { tableKey, type Change, type Row, type TableShape } from '../source';
import { decodeValue, EventNotReadable, writtenSchemaOf, type EventField } from './decode';
import type { BigJson } from './jsonBig';
import { KEY_HEADER } from './messages';
import { eventParts, rowFieldsOf, type EventMessage } from './streamReads';

/** An event as a change of `shape`'s table; null for a tombstone; 'layout' when it has a column the shape lacks. */
export function changeOfEvent(shape: TableShape, m: EventMessage): Change | null | 'layout' {
  const parts = eventParts(m);
  if (!parts) return null;
  const { payload, schema } = parts;
  const fields = rowFieldsOf(schema);
  const names = fields?.map((f) => f.field) ?? Object.keys((payload.after ?? payload.before ?? {}) as object);
  if (names.some((n) => !shape.columns.some((c) => c.name === n))) return 'layout';
  const rowOf = (v: BigJson | undefined): Row | null => {
    if (v === null || v === undefined || typeof v !== 'object') return null;
    const row: Row = {};
    for (const c of shape.columns) {
      const field: Pick<EventField, 'type' | 'name' | 'parameters'> =
        fields?.find((f) => f.field === c.name) ?? writtenSchemaOf(c);
      row[c.name] = decodeValue(c, field, (v as Record<string, BigJson>)[c.name] ?? null);
    }
    return row;
  };
  const op = String(payload.op);
  const after = rowOf(payload.after);
  const before = rowOf(payload.before);
  const keyText = m.headers?.get(KEY_HEADER);
  const keyPayload = keyText ? (JSON.parse(keyText) as Record<string, BigJson>) : undefined;
  const keyRow = rowOf(keyPayload && 'payload' in keyPayload ? keyPayload.payload : keyPayload);
  const source = (after ?? before ?? keyRow) as Row;
  const key = Object.fromEntries(shape.key.map((k) => [k, (keyRow ?? source)[k] ?? null]));
  const src = payload.source as Record<string, BigJson> | undefined;
  const tx = payload.transaction as Record<string, BigJson> | null | undefined;
  const base = {
    table: tableKey(shape.ref),
    key,
    changedColumns: null,
    position: String(m.seq),
    ...(src?.ts_ms !== undefined && src.ts_ms !== null && { commitTime: new Date(Number(src.ts_ms)) }),
    ...(tx?.id !== undefined && tx.id !== null && { transactionId: String(tx.id) }),
  };
  if (op === 'd') return { ...base, op: 'delete', row: null, ...(before && { before }) };
  if (op === 'u') return { ...base, op: 'update', row: after, ...(before && { before }) };
  if (op === 'c' || op === 'r') return { ...base, op: 'insert', row: after };
  throw new EventNotReadable(
    `Event ${m.seq} on ${m.subject} has the operation "${op}", which is not a change.`,
  );
}
