// A record in its buffer layout, as IBM i keeps it in a physical file and in a journal entry's
// specific data: fields one after another at fixed offsets — EBCDIC text, packed and zoned decimals,
// big-endian binary and float, dates, times and timestamps as text in the field's format, VARCHAR as a
// 2-byte length then the field's full allocated length. Null fields keep default bytes and are marked
// in the null-value indicators ('1' per null field, the JONVI of a journal entry).
import { decodePacked, decodeZoned, encodePacked, encodeZoned, packedLength } from './decimal';
import { decodeEbcdic, encodeEbcdic } from './ebcdic';
import { formatDate, formatTime, parseDate, parseTime, type DateFormat, type TimeFormat } from './dateTime';

export type FieldType =
  | { kind: 'char'; length: number; ccsid: number }
  | { kind: 'varchar'; length: number; ccsid: number }
  | { kind: 'packed'; precision: number; scale: number }
  | { kind: 'zoned'; precision: number; scale: number }
  | { kind: 'binary'; bytes: 2 | 4 | 8 }
  | { kind: 'float'; bytes: 4 | 8 }
  | { kind: 'date'; format: DateFormat; separator?: string; ccsid: number }
  | { kind: 'time'; format: TimeFormat; separator?: string; ccsid: number }
  | { kind: 'timestamp'; ccsid: number }
  /** DDS type H (and SQL BINARY, CHAR FOR BIT DATA): bytes kept as they are. */
  | { kind: 'hex'; length: number };

export interface FieldDef {
  name: string;
  type: FieldType;
  nullable?: boolean;
}

/** A field's value: text for char, dates (yyyy-mm-dd), times (hh:mm:ss) and decimals; bigint for binary. */
export type FieldValue = string | bigint | number | Uint8Array | null;

const DATE_LENGTH: Record<DateFormat, number> = {
  iso: 10,
  usa: 10,
  eur: 10,
  jis: 10,
  mdy: 8,
  dmy: 8,
  ymd: 8,
  julian: 6,
};

export function fieldLength(t: FieldType): number {
  switch (t.kind) {
    case 'char':
    case 'hex':
      return t.length;
    case 'varchar':
      return t.length + 2;
    case 'packed':
      return packedLength(t.precision);
    case 'zoned':
      return t.precision;
    case 'binary':
    case 'float':
      return t.bytes;
    case 'date':
      return DATE_LENGTH[t.format];
    case 'time':
      return 8;
    case 'timestamp':
      return 26;
  }
}

/** The field's SQL data type as Db2 for i names it (`DECIMAL(9,2)` for packed 9,2, `NUMERIC` for zoned). */
export function sqlTypeName(t: FieldType): string {
  switch (t.kind) {
    case 'char':
      return `CHAR(${t.length})`;
    case 'varchar':
      return `VARCHAR(${t.length})`;
    case 'packed':
      return `DECIMAL(${t.precision},${t.scale})`;
    case 'zoned':
      return `NUMERIC(${t.precision},${t.scale})`;
    case 'binary':
      return t.bytes === 2 ? 'SMALLINT' : t.bytes === 4 ? 'INTEGER' : 'BIGINT';
    case 'float':
      return t.bytes === 4 ? 'REAL' : 'DOUBLE';
    case 'date':
      return 'DATE';
    case 'time':
      return 'TIME';
    case 'timestamp':
      return 'TIMESTAMP';
    case 'hex':
      return `BINARY(${t.length})`;
  }
}

export const recordLength = (fields: readonly FieldDef[]) =>
  fields.reduce((n, f) => n + fieldLength(f.type), 0);

/** What a null field holds in the buffer: blanks, zeros, or the default date/time. */
function defaultValue(t: FieldType): FieldValue {
  switch (t.kind) {
    case 'char':
    case 'varchar':
      return '';
    case 'packed':
    case 'zoned':
      return '0';
    case 'binary':
      return 0n;
    case 'float':
      return 0;
    case 'date':
      return '0001-01-01';
    case 'time':
      return '00:00:00';
    case 'timestamp':
      return '0001-01-01-00.00.00.000000';
    case 'hex':
      return new Uint8Array(t.length);
  }
}

function encodeField(t: FieldType, value: FieldValue): Uint8Array {
  const text = (v: FieldValue) => (v instanceof Uint8Array ? '' : String(v ?? ''));
  switch (t.kind) {
    case 'char': {
      const bytes = encodeEbcdic(text(value).padEnd(t.length, ' ').slice(0, t.length), t.ccsid);
      return bytes;
    }
    case 'varchar': {
      const content = encodeEbcdic(text(value).slice(0, t.length), t.ccsid);
      const out = new Uint8Array(t.length + 2).fill(0x00);
      new DataView(out.buffer).setUint16(0, content.length);
      out.set(content, 2);
      return out;
    }
    case 'packed':
      return encodePacked(text(value), t.precision, t.scale);
    case 'zoned':
      return encodeZoned(text(value), t.precision, t.scale);
    case 'binary': {
      const out = new Uint8Array(t.bytes);
      const view = new DataView(out.buffer);
      const v = BigInt(
        typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint' ? value : 0,
      );
      if (t.bytes === 2) view.setInt16(0, Number(v));
      else if (t.bytes === 4) view.setInt32(0, Number(v));
      else view.setBigInt64(0, v);
      return out;
    }
    case 'float': {
      const out = new Uint8Array(t.bytes);
      const view = new DataView(out.buffer);
      const n = value instanceof Uint8Array ? 0 : Number(value ?? 0);
      if (t.bytes === 4) view.setFloat32(0, n);
      else view.setFloat64(0, n);
      return out;
    }
    case 'date':
      return encodeEbcdic(
        text(value) === '0001-01-01' && t.format !== 'iso' && DATE_LENGTH[t.format] < 10
          ? formatDate('1940-01-01', t.format, t.separator)
          : formatDate(text(value), t.format, t.separator),
        t.ccsid,
      );
    case 'time':
      return encodeEbcdic(formatTime(text(value), t.format, t.separator).padEnd(8, ' '), t.ccsid);
    case 'timestamp':
      return encodeEbcdic(text(value).padEnd(26, '0').slice(0, 26), t.ccsid);
    case 'hex': {
      const out = new Uint8Array(t.length).fill(0x40);
      if (value instanceof Uint8Array) out.set(value.subarray(0, t.length));
      return out;
    }
  }
}

function decodeField(t: FieldType, bytes: Uint8Array): FieldValue {
  switch (t.kind) {
    case 'char':
      return decodeEbcdic(bytes, t.ccsid);
    case 'varchar': {
      const length = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint16(0);
      return decodeEbcdic(bytes.subarray(2, 2 + Math.min(length, t.length)), t.ccsid);
    }
    case 'packed':
      return decodePacked(bytes, t.scale);
    case 'zoned':
      return decodeZoned(bytes, t.scale);
    case 'binary': {
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      return t.bytes === 2
        ? BigInt(view.getInt16(0))
        : t.bytes === 4
          ? BigInt(view.getInt32(0))
          : view.getBigInt64(0);
    }
    case 'float': {
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      return t.bytes === 4 ? view.getFloat32(0) : view.getFloat64(0);
    }
    case 'date':
      return parseDate(decodeEbcdic(bytes, t.ccsid), t.format);
    case 'time':
      return parseTime(decodeEbcdic(bytes, t.ccsid), t.format);
    case 'timestamp':
      return decodeEbcdic(bytes, t.ccsid);
    case 'hex':
      return bytes.slice();
  }
}

/** The record's bytes and its null-value indicators. */
export function encodeRecord(
  fields: readonly FieldDef[],
  values: Readonly<Record<string, FieldValue>>,
): { image: Uint8Array; nullIndicators: string } {
  const image = new Uint8Array(recordLength(fields));
  let offset = 0;
  let nulls = '';
  for (const f of fields) {
    const value = values[f.name] ?? null;
    if (value === null && !f.nullable) throw new RangeError(`Field ${f.name} does not allow the null value.`);
    nulls += value === null ? '1' : '0';
    const bytes = encodeField(f.type, value === null ? defaultValue(f.type) : value);
    image.set(bytes, offset);
    offset += fieldLength(f.type);
  }
  return { image, nullIndicators: nulls };
}

/** The values of a record image; a field marked null in the indicators is null whatever its bytes. */
export function decodeRecord(
  fields: readonly FieldDef[],
  image: Uint8Array,
  nullIndicators = '',
): Record<string, FieldValue> {
  const out: Record<string, FieldValue> = {};
  let offset = 0;
  fields.forEach((f, i) => {
    const length = fieldLength(f.type);
    out[f.name] =
      nullIndicators[i] === '1' ? null : decodeField(f.type, image.subarray(offset, offset + length));
    offset += length;
  });
  return out;
}
