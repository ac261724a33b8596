// Debezium change events back into the runner's rows: each field decoded by its semantic type (from the
// event's schema part, or as this target writes the column's source type when the schema is left out),
// into the one value form the agents give (targetValues.ts): decimals as exact text, dates and times as
// text, int64 as bigint, bytes as bytes. And a producer's field schemas as source types, for a stream
// that carries no schema change events of ours.
import { Buffer } from 'node:buffer';
import type { ColumnShape, RowValue } from '../source';
import { columnCodec, type FieldSchema } from './debeziumTypes';
import type { BigJson } from './jsonBig';

export class EventNotReadable extends Error {}

/** A field's schema as an event carries it (only what decoding reads). */
export interface EventField {
  field: string;
  type: string;
  optional?: boolean;
  name?: string;
  parameters?: Record<string, string>;
  fields?: EventField[];
}

const pad = (n: number | bigint, width = 2) => String(n).padStart(width, '0');

/** The proleptic Gregorian date `days` after 1970-01-01 (the inverse of epochDays). */
export function civilFromDays(days: number): string {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp + (mp < 10 ? 3 : -9);
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return `${pad(y, 4)}-${pad(m)}-${pad(d)}`;
}

const big = (v: BigJson): bigint => {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  throw new EventNotReadable(`${JSON.stringify(v)} is not an integer`);
};
const floorDiv = (a: bigint, b: bigint) => (a >= 0n ? a / b : -((-a + b - 1n) / b));

/** Units (10^-unitDigits s) since midnight as `hh:mm:ss` and `digits` fraction digits. */
function timeText(units: bigint, unitDigits: number, digits: number): string {
  const per = 10n ** BigInt(unitDigits);
  const seconds = floorDiv(units, per);
  const fraction = units - seconds * per;
  const s = Number(seconds);
  const text = `${pad(Math.floor(s / 3600))}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}`;
  if (digits <= 0) return text;
  return `${text}.${String(fraction).padStart(unitDigits, '0').padEnd(digits, '0').slice(0, digits)}`;
}

function dateTimeText(units: bigint, unitDigits: number, digits: number): string {
  const per = 10n ** BigInt(unitDigits) * 86400n;
  const days = floorDiv(units, per);
  return `${civilFromDays(Number(days))} ${timeText(units - days * per, unitDigits, digits)}`;
}

/** Kafka Connect Decimal bytes (two's complement, big-endian, base64) at `scale`, as exact text. */
export function decimalFromBytes(base64: string, scale: number): string {
  const bytes = Buffer.from(base64, 'base64');
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  if (bytes.length > 0 && ((bytes[0] as number) & 0x80) !== 0) v -= 1n << BigInt(bytes.length * 8);
  const negative = v < 0n;
  const digits = (negative ? -v : v).toString().padStart(scale + 1, '0');
  const text = scale > 0 ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
  return negative ? `-${text}` : text;
}

/** WKB and its SRID as PostGIS's EWKB (the SRID in the outer header), as the table targets keep spatial values. */
function ewkbOf(v: { wkb: string; srid?: number | null }): Uint8Array {
  const wkb = Buffer.from(v.wkb, 'base64');
  if (v.srid === null || v.srid === undefined || wkb.length < 5) return Uint8Array.from(wkb);
  const out = Buffer.alloc(wkb.length + 4);
  out[0] = wkb[0] as number;
  const little = wkb[0] === 1;
  const type = little ? wkb.readUInt32LE(1) : wkb.readUInt32BE(1);
  const flagged = (type | 0x20000000) >>> 0;
  if (little) {
    out.writeUInt32LE(flagged, 1);
    out.writeInt32LE(v.srid, 5);
  } else {
    out.writeUInt32BE(flagged, 1);
    out.writeInt32BE(v.srid, 5);
  }
  wkb.copy(out, 9, 5);
  return Uint8Array.from(out);
}

/** The fraction digits the source type keeps (`datetime2(7)`, `TIMESTAMP(12)`, `time(3)`). */
function fractionDigits(c: ColumnShape): number {
  const base = c.sourceType.toLowerCase().replace(/\(.*$/, '');
  const m = /\((\d+)\)/.exec(c.sourceType);
  if (base === 'datetime' || base === 'smalldatetime') return 3;
  if (m) return Number(m[1]);
  return base === 'timestamp' ? 6 : base === 'time' && c.sourceType === 'TIME' ? 0 : 7;
}

/** A field's value in the runner's form, by its semantic type. */
export function decodeValue(
  c: ColumnShape,
  schema: Pick<EventField, 'type' | 'name' | 'parameters'>,
  v: BigJson,
): RowValue {
  if (v === null) return null;
  switch (schema.name) {
    case 'org.apache.kafka.connect.data.Decimal':
      return decimalFromBytes(String(v), Number(schema.parameters?.scale ?? 0));
    case 'io.debezium.data.VariableScaleDecimal': {
      const s = v as { scale: number; value: string };
      return decimalFromBytes(s.value, s.scale);
    }
    case 'io.debezium.time.Date':
      return civilFromDays(Number(v));
    case 'io.debezium.time.Time':
      return timeText(big(v), 3, fractionDigits(c));
    case 'io.debezium.time.MicroTime':
      return timeText(big(v), 6, fractionDigits(c));
    case 'io.debezium.time.NanoTime':
      return timeText(big(v), 9, fractionDigits(c));
    case 'io.debezium.time.Timestamp':
      return dateTimeText(big(v), 3, fractionDigits(c));
    case 'io.debezium.time.MicroTimestamp':
      return dateTimeText(big(v), 6, fractionDigits(c));
    case 'io.debezium.time.NanoTimestamp':
      return dateTimeText(big(v), 9, fractionDigits(c));
    case 'io.debezium.data.geometry.Geometry':
    case 'io.debezium.data.geometry.Geography':
      return ewkbOf(v as { wkb: string; srid?: number | null });
  }
  switch (schema.type) {
    case 'bytes':
      return Uint8Array.from(Buffer.from(String(v), 'base64'));
    case 'int64':
      return big(v);
    case 'int8':
    case 'int16':
    case 'int32':
      return Number(v);
    case 'float32':
    case 'float64':
      return typeof v === 'string' ? Number(v) : (v as number);
    case 'boolean':
      return v === true;
    case 'string': {
      const text = String(v);
      // TIMESTAMP(10..12) travels as ISO 8601 text; the runner's form has a space.
      return /^timestamp\((1[0-2])\)$/i.test(c.sourceType) ? text.replace('T', ' ') : text;
    }
  }
  throw new EventNotReadable(`${c.name}: a ${schema.type} field is not a column value`);
}

/** How this target writes a column when the event carries no schema part. */
export function writtenSchemaOf(c: ColumnShape): FieldSchema {
  const { schema } = columnCodec(c, 'precise');
  return { ...schema, optional: c.nullable };
}

/** A producer's field as a source type the targets know (SQL Server's names). */
export function sourceTypeOf(f: EventField): string {
  switch (f.name) {
    case 'org.apache.kafka.connect.data.Decimal': {
      const p = f.parameters ?? {};
      return `decimal(${p['connect.decimal.precision'] ?? 38},${p.scale ?? 0})`;
    }
    case 'io.debezium.data.VariableScaleDecimal':
      return 'DECFLOAT(34)';
    case 'io.debezium.time.Date':
      return 'date';
    case 'io.debezium.time.Time':
      return 'time(3)';
    case 'io.debezium.time.MicroTime':
      return 'time(6)';
    case 'io.debezium.time.NanoTime':
      return 'time(7)';
    case 'io.debezium.time.Timestamp':
      return 'datetime2(3)';
    case 'io.debezium.time.MicroTimestamp':
      return 'datetime2(6)';
    case 'io.debezium.time.NanoTimestamp':
      return 'datetime2(7)';
    case 'io.debezium.time.ZonedTimestamp':
      return 'datetimeoffset(7)';
    case 'io.debezium.data.Xml':
      return 'xml';
    case 'io.debezium.data.geometry.Geometry':
    case 'io.debezium.data.geometry.Geography':
      return 'varbinary(max)';
  }
  const plain: Record<string, string> = {
    boolean: 'bit',
    int8: 'smallint',
    int16: 'smallint',
    int32: 'int',
    int64: 'bigint',
    float32: 'real',
    float64: 'float',
    bytes: 'varbinary(max)',
    string: 'nvarchar(max)',
  };
  const type = plain[f.type];
  if (!type) throw new EventNotReadable(`Field ${f.field} is a ${f.type}, which no column holds.`);
  return type;
}

/**
 * A column type from one of our schema change events, as the apply side creates it: spatial values
 * travel as WKB and its SRID, made EWKB again and kept as bytes, as the table targets keep them (they
 * read SQL Server's own serialization only).
 */
export const appliedType = (typeExpression: string): string =>
  /^(geometry|geography)$/i.test(typeExpression) ? 'varbinary(max)' : typeExpression;
