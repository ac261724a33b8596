// A record image written as IBM i writes it (the simulated IBM i's files and journal entries, and
// tests): the inverse of decodeRecord, field by field in the buffer layout of recordImage.ts.
import { encodeText, padding } from './ccsid';
import { encodePacked, encodeZoned } from './decimal';
import { encodeDecfloat } from './decfloat';
import { formatDate, formatTime } from './dateTime';
import {
  DATE_LENGTH,
  fieldSpan,
  recordLength,
  ROWID_LENGTH,
  timestampLength,
  type FieldDef,
  type FieldType,
  type FieldValue,
} from './recordImage';

/** What a null field holds in the buffer: blanks, zeros, or the default date/time. */
function defaultValue(t: FieldType): FieldValue {
  switch (t.kind) {
    case 'packed':
    case 'zoned':
    case 'decfloat':
      return '0';
    case 'binary':
      return 0n;
    case 'float':
      return 0;
    case 'boolean':
      return false;
    case 'date':
      return '0001-01-01';
    case 'time':
      return '00:00:00';
    case 'timestamp':
      return '0001-01-01-00.00.00.000000000000';
    case 'hex':
    case 'varhex':
    case 'rowid':
    case 'lob':
    case 'unsupported':
      return new Uint8Array(0);
    default:
      return '';
  }
}

const text = (v: FieldValue) => (v instanceof Uint8Array ? '' : String(v ?? ''));

/** `bytes` in a field of `length` bytes, padded with the CCSID's blank (or cut, never mid-character by the caller). */
function fixed(bytes: Uint8Array, length: number, pad: Uint8Array): Uint8Array {
  const out = new Uint8Array(length);
  out.set(bytes.subarray(0, length));
  for (let at = bytes.length; at < length; at++) out[at] = pad[(at - bytes.length) % pad.length] ?? 0x40;
  return out;
}

/** A 2-byte length (in `unit`-byte characters) then the content, in the field's full allocated length. */
function varying(content: Uint8Array, allocated: number, unit: 1 | 2): Uint8Array {
  const out = new Uint8Array(allocated + 2);
  const kept = content.subarray(0, allocated);
  new DataView(out.buffer).setUint16(0, kept.length / unit);
  out.set(kept, 2);
  return out;
}

function binary(value: FieldValue, bytes: 2 | 4 | 8, scale: number): Uint8Array {
  const out = new Uint8Array(bytes);
  const view = new DataView(out.buffer);
  const [whole = '0', fraction = ''] = text(value).split('.');
  const v = BigInt(`${whole}${fraction.padEnd(scale, '0').slice(0, scale)}` || '0');
  if (bytes === 2) view.setInt16(0, Number(v));
  else if (bytes === 4) view.setInt32(0, Number(v));
  else view.setBigInt64(0, v);
  return out;
}

function encodeField(t: FieldType, value: FieldValue): Uint8Array {
  switch (t.kind) {
    case 'char':
      return fixed(encodeText(text(value), t.ccsid), t.length, padding(t.ccsid));
    case 'varchar':
      return varying(encodeText(text(value), t.ccsid), t.length, 1);
    case 'graphic':
      return fixed(encodeText(text(value), t.ccsid), t.length * 2, padding(t.ccsid));
    case 'vargraphic':
      return varying(encodeText(text(value), t.ccsid), t.length * 2, 2);
    case 'packed':
      return encodePacked(text(value), t.precision, t.scale);
    case 'zoned':
      return encodeZoned(text(value), t.precision, t.scale);
    case 'binary':
      return binary(value, t.bytes, t.scale ?? 0);
    case 'float': {
      const out = new Uint8Array(t.bytes);
      const view = new DataView(out.buffer);
      const n = value instanceof Uint8Array ? 0 : Number(value ?? 0);
      if (t.bytes === 4) view.setFloat32(0, n);
      else view.setFloat64(0, n);
      return out;
    }
    case 'decfloat':
      return encodeDecfloat(text(value), t.digits);
    case 'date':
      return encodeText(
        text(value) === '0001-01-01' && t.format !== 'iso' && DATE_LENGTH[t.format] < 10
          ? formatDate('1940-01-01', t.format, t.separator)
          : formatDate(text(value), t.format, t.separator),
        t.ccsid,
      );
    case 'time':
      return encodeText(formatTime(text(value), t.format, t.separator).padEnd(8, ' '), t.ccsid);
    case 'timestamp': {
      // `yyyy-mm-dd-hh.mm.ss.ffffff…`: the fraction cut or padded to the column's precision.
      const length = timestampLength(t.precision ?? 6);
      const stamp = text(value).length === 19 ? `${text(value)}.` : text(value);
      return encodeText(stamp.padEnd(32, '0').slice(0, length), t.ccsid);
    }
    case 'hex':
      return fixed(value instanceof Uint8Array ? value : new Uint8Array(0), t.length, Uint8Array.of(0x40));
    case 'varhex':
      return varying(value instanceof Uint8Array ? value : new Uint8Array(0), t.length, 1);
    case 'rowid':
      return varying(value instanceof Uint8Array ? value : new Uint8Array(0), ROWID_LENGTH, 1);
    case 'boolean':
      return Uint8Array.of(value === true || value === 1 || value === 1n || value === '1' ? 0xf1 : 0xf0);
    case 'lob':
      return lobPlaceholder(0);
    case 'unsupported':
      return new Uint8Array(t.length);
  }
}

/** IBM's LOB placeholder at `offset`: zeros to a 16-byte boundary, then `*POINTER` and blanks (CCSID 37). */
function lobPlaceholder(offset: number): Uint8Array {
  const span = fieldSpan({ kind: 'lob', lob: 'BLOB', length: 0, ccsid: 65535 }, offset);
  const out = new Uint8Array(span);
  out.set(encodeText('*POINTER'.padEnd(16, ' '), 37), span - 16);
  return out;
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
    image.set(
      f.type.kind === 'lob'
        ? lobPlaceholder(offset)
        : encodeField(f.type, value === null ? defaultValue(f.type) : value),
      offset,
    );
    offset += fieldSpan(f.type, offset);
  }
  return { image, nullIndicators: nulls };
}
