// A record in its buffer layout, as IBM i keeps it in a physical file and in a journal entry's
// specific data: fields one after another at fixed offsets — EBCDIC text, packed and zoned decimals,
// big-endian binary and float, dates, times and timestamps as text in the field's format, VARCHAR as a
// 2-byte length then the field's full allocated length. Null fields keep default bytes and are marked
// in the null-value indicators ('1' per null field, the JONVI of a journal entry). Text is in the
// field's CCSID (ccsid.ts): CHAR/VARCHAR lengths count bytes, GRAPHIC/VARGRAPHIC lengths two-byte units.
import { decodePacked, decodeZoned, packedLength, scaledInteger } from './decimal';
import { decodeText, decodeTextExact } from './ccsid';
import { decfloatLength, decodeDecfloat } from './decfloat';
import { parseDate, parseTime, type DateFormat, type TimeFormat } from './dateTime';

export type FieldType =
  | { kind: 'char'; length: number; ccsid: number }
  | { kind: 'varchar'; length: number; ccsid: number }
  /** GRAPHIC, NCHAR, DDS G: `length` two-byte characters (double-byte EBCDIC or UTF-16). */
  | { kind: 'graphic'; length: number; ccsid: number }
  | { kind: 'vargraphic'; length: number; ccsid: number }
  | { kind: 'packed'; precision: number; scale: number }
  | { kind: 'zoned'; precision: number; scale: number }
  /** SMALLINT, INTEGER, BIGINT; a DDS B field with decimal positions has a scale. */
  | { kind: 'binary'; bytes: 2 | 4 | 8; scale?: number }
  | { kind: 'float'; bytes: 4 | 8 }
  /** DECFLOAT(16) or (34): IEEE decimal64/decimal128 in DPD, decoded to exact text (decfloat.ts). */
  | { kind: 'decfloat'; digits: 16 | 34 }
  | { kind: 'date'; format: DateFormat; separator?: string; ccsid: number }
  | { kind: 'time'; format: TimeFormat; separator?: string; ccsid: number }
  /** TIMESTAMP(p), `yyyy-mm-dd-hh.mm.ss` and p fraction digits (0 to 12; 6 when not given). */
  | { kind: 'timestamp'; ccsid: number; precision?: number }
  /**
   * DDS type H, SQL BINARY, CHAR FOR BIT DATA, CCSID 65535: bytes kept as they are. `forBitData`: a
   * character field tagged 65535 (FOR BIT DATA, DDS A with CCSID 65535), text an entity may say the
   * CCSID of, as opposed to a binary one.
   */
  | { kind: 'hex'; length: number; forBitData?: true }
  /** VARBINARY, VARCHAR FOR BIT DATA. */
  | { kind: 'varhex'; length: number; forBitData?: true }
  /** BOOLEAN: one byte, x'F1' true and x'F0' false (IBM Toolbox for Java, AS400Boolean). */
  | { kind: 'boolean' }
  /**
   * ROWID: bit data never converted, length attribute 40 (Db2 for i SQL reference, "Row ID values"),
   * held as a varying-length field: a 2-byte length, then 40 bytes.
   */
  | { kind: 'rowid' }
  /**
   * CLOB, BLOB, DBCLOB, XML: the image holds no value but IBM's placeholder (LOB_PLACEHOLDER), whose
   * span depends on where the field starts; the agent reads the value from the file by key.
   */
  | { kind: 'lob'; lob: 'CLOB' | 'BLOB' | 'DBCLOB' | 'XML'; length: number; ccsid: number }
  /** A column the agent cannot replicate (a LOB, DECFLOAT, a CCSID it has no table for): named by the checks. */
  | { kind: 'unsupported'; sqlType: string; length: number; reason: string };

export interface FieldDef {
  name: string;
  type: FieldType;
  nullable?: boolean;
  /**
   * The CCSID the file tags the field with, where an entity's forceCcsid says its bytes are in
   * another (the CCSID in `type`): SQL would convert from the tag, so a copy reads the bytes.
   */
  taggedCcsid?: number;
  /**
   * Text in a visual-order CCSID (420, 424) the agent reads into logical order, as IBM's Toolbox does
   * (bidi.ts); a copy reads the bytes, so no driver's own layout transform meets them.
   */
  logicalOrder?: true;
}

/** A field's value: text for char, dates (yyyy-mm-dd), times (hh:mm:ss) and decimals; bigint for binary. */
export type FieldValue = string | bigint | number | boolean | Uint8Array | null;

/** A ROWID's length attribute: its value is at most 40 bytes. */
export const ROWID_LENGTH = 40;

export const DATE_LENGTH: Record<DateFormat, number> = {
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
    case 'varhex':
      return t.length + 2;
    case 'rowid':
      return ROWID_LENGTH + 2;
    case 'boolean':
      return 1;
    case 'graphic':
      return t.length * 2;
    case 'vargraphic':
      return t.length * 2 + 2;
    case 'unsupported':
      return t.length;
    case 'lob':
      return lobSpan(0);
    case 'packed':
      return packedLength(t.precision);
    case 'zoned':
      return t.precision;
    case 'binary':
    case 'float':
      return t.bytes;
    case 'decfloat':
      return decfloatLength(t.digits);
    case 'date':
      return DATE_LENGTH[t.format];
    case 'time':
      return 8;
    case 'timestamp':
      return timestampLength(t.precision ?? 6);
  }
}

/**
 * A LOB field in a record image as DSPJRN shows it (IBM, "Display layout of LOB columns"): 13 to 28
 * bytes of hex zeros, as many as bring the rest to a 16-byte boundary of the record, then 16 bytes
 * holding `*POINTER` and blanks.
 */
export function lobSpan(offset: number): number {
  return 13 + ((16 - ((offset + 13) % 16)) % 16) + 16;
}

/** The bytes a field takes at `offset` in the record: its length, or a LOB's aligned placeholder. */
export const fieldSpan = (t: FieldType, offset: number): number =>
  t.kind === 'lob' ? lobSpan(offset) : fieldLength(t);

export const timestampLength = (precision: number) => 19 + (precision > 0 ? precision + 1 : 0);

/** The field's SQL data type as Db2 for i names it (`DECIMAL(9,2)` for packed 9,2, `NUMERIC` for zoned). */
export function sqlTypeName(t: FieldType): string {
  switch (t.kind) {
    case 'char':
      return `CHAR(${t.length})`;
    case 'varchar':
      return `VARCHAR(${t.length})`;
    case 'graphic':
      return `GRAPHIC(${t.length})`;
    case 'vargraphic':
      return `VARGRAPHIC(${t.length})`;
    case 'varhex':
      return `VARBINARY(${t.length})`;
    case 'boolean':
      return 'BOOLEAN';
    case 'rowid':
      return 'ROWID';
    case 'lob':
      return t.lob === 'XML' ? 'XML' : `${t.lob}(${t.length})`;
    case 'unsupported':
      return t.sqlType;
    case 'packed':
      return `DECIMAL(${t.precision},${t.scale})`;
    case 'zoned':
      return `NUMERIC(${t.precision},${t.scale})`;
    case 'binary':
      // A binary field with decimal positions holds a decimal number: targets keep it exact as one.
      if (t.scale) return `DECIMAL(${binaryDigits[t.bytes]},${t.scale})`;
      return t.bytes === 2 ? 'SMALLINT' : t.bytes === 4 ? 'INTEGER' : 'BIGINT';
    case 'float':
      return t.bytes === 4 ? 'REAL' : 'DOUBLE';
    case 'decfloat':
      return `DECFLOAT(${t.digits})`;
    case 'date':
      return 'DATE';
    case 'time':
      return 'TIME';
    case 'timestamp':
      return `TIMESTAMP(${t.precision ?? 6})`;
    case 'hex':
      return `BINARY(${t.length})`;
  }
}

/** Digits a binary field of that size holds (DDS B: 1–4 digits in 2 bytes, 5–9 in 4, 10–18 in 8). */
export const binaryDigits = { 2: 4, 4: 9, 8: 18 } as const;

export const recordLength = (fields: readonly FieldDef[]) =>
  fields.reduce((n, f) => n + fieldSpan(f.type, n), 0);

/** The integer of a big-endian binary field. */
function binaryInteger(bytes: Uint8Array, size: 2 | 4 | 8): bigint {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return size === 2 ? BigInt(view.getInt16(0)) : size === 4 ? BigInt(view.getInt32(0)) : view.getBigInt64(0);
}

const varLength = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, 2).getUint16(0);

/**
 * A field's value. Text is decoded exactly: a byte sequence its CCSID maps to no character is a
 * RangeError naming it, unless `lenientText`, which puts U+FFFD in its place (a decode policy's choice).
 */
export function decodeField(t: FieldType, bytes: Uint8Array, lenientText = false): FieldValue {
  const text = lenientText ? decodeText : decodeTextExact;
  switch (t.kind) {
    case 'char':
      return text(bytes, t.ccsid);
    case 'varchar':
      return text(bytes.subarray(2, 2 + Math.min(varLength(bytes), t.length)), t.ccsid);
    case 'graphic':
      return text(bytes, t.ccsid);
    case 'vargraphic':
      return text(bytes.subarray(2, 2 + 2 * Math.min(varLength(bytes), t.length)), t.ccsid);
    case 'packed':
      return decodePacked(bytes, t.scale);
    case 'zoned':
      return decodeZoned(bytes, t.scale);
    case 'binary': {
      const n = binaryInteger(bytes, t.bytes);
      return t.scale ? scaledInteger(n, t.scale) : n;
    }
    case 'float': {
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      return t.bytes === 4 ? view.getFloat32(0) : view.getFloat64(0);
    }
    case 'decfloat':
      return decodeDecfloat(bytes, t.digits);
    case 'date':
      return parseDate(decodeText(bytes, t.ccsid), t.format);
    case 'time':
      return parseTime(decodeText(bytes, t.ccsid), t.format);
    case 'timestamp':
      return decodeText(bytes, t.ccsid);
    case 'hex':
      return bytes.slice();
    case 'varhex':
      return bytes.slice(2, 2 + Math.min(varLength(bytes), t.length));
    case 'rowid':
      return bytes.slice(2, 2 + Math.min(varLength(bytes), ROWID_LENGTH));
    case 'boolean':
      return booleanOf(bytes[0] ?? 0);
    case 'lob':
      // Only a placeholder: the value is read from the file (journal/lobValues.ts).
      return null;
    case 'unsupported':
      throw new RangeError(`A ${t.sqlType} field cannot be decoded: ${t.reason}`);
  }
}

/** A BOOLEAN's byte; anything but x'F1' or x'F0' is not a value Db2 writes, never guessed at. */
function booleanOf(byte: number): boolean {
  if (byte === 0xf1) return true;
  if (byte === 0xf0) return false;
  throw new RangeError(
    `A BOOLEAN field holds x'${byte.toString(16).toUpperCase().padStart(2, '0')}'; Db2 for i writes x'F1' (true) or x'F0' (false).`,
  );
}

/** The values of a record image; a field marked null in the indicators is null whatever its bytes. */
export function decodeRecord(
  fields: readonly FieldDef[],
  image: Uint8Array,
  nullIndicators = '',
): Record<string, FieldValue> {
  const out: Record<string, FieldValue> = {};
  const expected = recordLength(fields);
  // A shorter image was written with another layout, or minimised (MINENTDTA): never read past its end.
  // (A DSPJRN outfile pads JOESD to its longest entry, so a longer image is not by itself an error.)
  if (image.length < expected)
    throw new ImageLengthError(`The record image is ${image.length} bytes; its layout takes ${expected}.`);
  let offset = 0;
  fields.forEach((f, i) => {
    const length = fieldSpan(f.type, offset);
    out[f.name] =
      nullIndicators[i] === '1' ? null : decodeField(f.type, image.subarray(offset, offset + length));
    offset += length;
  });
  return out;
}

/** A record image whose length does not match the layout it is decoded with. */
export class ImageLengthError extends RangeError {}
