// Record images straight to rows in the agent's one form (values.ts), with a decoder built once per
// layout: every field's offset and reader fixed in advance, text through its CCSID's table, decimals
// and dates read digit by digit, and no intermediate object per field. The common types take these
// fast paths; any other type, and any value a fast path does not recognise (a bad digit, a date out of
// range, an unusual separator), goes through decodeField and formValue, which give the same value or
// the same error: the fast paths decide nothing of their own (test/main/agents/journal/imageDecoder.unit.test.ts).
import {
  ccsidKind,
  exactSingleByteDecoder,
  singleByteUnits,
  type ExactSingleByteDecoder,
} from '../../../lib/ibmi/ccsid';
import { decodeField, fieldSpan, type FieldDef, type FieldType } from '../../../lib/ibmi/recordImage';
import type { Row, RowValue } from '../source';
import { formValue, inOrder, isTextField, replacementOf, type ValueForm } from './values';
import { daysInMonth } from '../../../shared/calendar';

type Reader = (image: Uint8Array, at: number) => RowValue;

export interface ImageDecoder {
  /** Bytes the layout takes. */
  length: number;
  /** The row of an image; a field marked '1' in the null indicators is null whatever its bytes. */
  decode(image: Uint8Array, nullIndicators: string): Row;
  /**
   * The row of an image `decode` refused, field by field: a field that cannot be decoded takes the
   * decode policy's value where it has one (`replaced` counts them), else null, and is named in
   * `unread` with its error.
   */
  decodeLenient(image: Uint8Array, nullIndicators: string): LenientRow;
}

export interface LenientRow {
  row: Row;
  /** The fields read so, with their errors; `text` for a character field's unmapped bytes. */
  unread: { field: string; error: string; text: boolean }[];
  replaced: number;
}

const NULL_MARK = 0x31; // '1'

export function compileImageDecoder(fields: readonly FieldDef[], form: ValueForm): ImageDecoder {
  const names: string[] = [];
  const offsets: number[] = [];
  const readers: Reader[] = [];
  let length = 0;
  for (const f of fields) {
    names.push(f.name);
    offsets.push(length);
    const span = fieldSpan(f.type, length);
    const general = slowReader(f, span, form);
    const fast = fastReader(f.type, form, general);
    // Visual-order text is read in logical order after the fast path's decode (values.ts, inOrder).
    readers.push(fast && f.logicalOrder ? inLogicalOrder(f, fast) : (fast ?? general));
    length += span;
  }
  const count = names.length;
  return {
    length,
    decodeLenient(image, nullIndicators) {
      const out: LenientRow = { row: {}, unread: [], replaced: 0 };
      fields.forEach((f, i) => {
        if (nullIndicators.charCodeAt(i) === NULL_MARK) {
          out.row[f.name] = null;
          return;
        }
        try {
          out.row[f.name] = (readers[i] as Reader)(image, offsets[i] as number);
        } catch (error) {
          if (!(error instanceof RangeError)) throw error;
          const span = fieldSpan(f.type, offsets[i] as number);
          const at = offsets[i] as number;
          const replacement = replacementOf(f, form, () =>
            formValue(f, decodeField(f.type, image.subarray(at, at + span), true), form),
          );
          out.row[f.name] = replacement ? replacement.value : null;
          if (replacement) out.replaced++;
          else out.unread.push({ field: f.name, error: error.message, text: isTextField(f.type) });
        }
      });
      return out;
    },
    decode(image, nullIndicators) {
      const row: Row = {};
      for (let i = 0; i < count; i++)
        row[names[i] as string] =
          nullIndicators.charCodeAt(i) === NULL_MARK
            ? null
            : (readers[i] as Reader)(image, offsets[i] as number);
      return row;
    },
  };
}

const inLogicalOrder =
  (f: FieldDef, read: Reader): Reader =>
  (image, at) => {
    const v = read(image, at);
    return typeof v === 'string' ? inOrder(f, v) : v;
  };

/** The general path: the field's value as decodeRecord reads it, put in the agent's form. */
const slowReader =
  (f: FieldDef, span: number, form: ValueForm): Reader =>
  (image, at) =>
    formValue(f, decodeField(f.type, image.subarray(at, at + span)), form);

/**
 * The field's fast reader, if its type has one; `general` is the field's general reader, which a fast
 * reader hands any value it does not recognise.
 */
function fastReader(t: FieldType, form: ValueForm, general: Reader): Reader | null {
  switch (t.kind) {
    case 'char': {
      const text = singleByte(t.ccsid);
      // null: a byte the CCSID maps to no character, which the general path names.
      return text && ((image, at) => text(image, at, t.length) ?? general(image, at));
    }
    case 'varchar': {
      const text = singleByte(t.ccsid);
      return (
        text && ((image, at) => text(image, at + 2, Math.min(u16(image, at), t.length)) ?? general(image, at))
      );
    }
    case 'binary':
      if (t.scale) return null;
      if (t.bytes === 2) return (image, at) => (u16(image, at) << 16) >> 16;
      if (t.bytes === 4) return (image, at) => i32(image, at);
      return int64;
    case 'float':
      return t.bytes === 4 ? float32 : float64;
    case 'packed':
      return t.precision <= 15 ? packed(t.precision, t.scale, general) : null;
    case 'zoned':
      return t.precision <= 15 ? zoned(t.precision, t.scale, general) : null;
    case 'date':
      return dateReader(t, general);
    case 'time':
      return timeReader(t, general);
    case 'timestamp':
      return (t.precision ?? 6) === 6 && form.utcOffsetMinutes === null ? timestampReader(t, general) : null;
    default:
      return null;
  }
}

const singleByte = (ccsid: number): ExactSingleByteDecoder | null =>
  ccsidKind(ccsid) === 'single' ? exactSingleByteDecoder(ccsid) : null;

const u16 = (b: Uint8Array, at: number) => ((b[at] as number) << 8) | (b[at + 1] as number);
const i32 = (b: Uint8Array, at: number) =>
  ((b[at] as number) << 24) |
  ((b[at + 1] as number) << 16) |
  ((b[at + 2] as number) << 8) |
  (b[at + 3] as number);

// Floats and 64-bit integers are copied into one scratch word, big-endian as IBM i stores them.
const word = new Uint8Array(8);
const wordView = new DataView(word.buffer);
function load(image: Uint8Array, at: number, bytes: number): DataView {
  for (let i = 0; i < bytes; i++) word[i] = image[at + i] as number;
  return wordView;
}
const int64: Reader = (image, at) => load(image, at, 8).getBigInt64(0);
const float32: Reader = (image, at) => load(image, at, 4).getFloat32(0);
const float64: Reader = (image, at) => load(image, at, 8).getFloat64(0);

/**
 * A decimal's text at its scale from the integer of its digits. At most 15 digits, so the quotient is
 * the double nearest the exact value and toFixed gives that value back, as one string.
 */
function decimalText(digits: number, scale: number, negative: boolean): string {
  if (digits === 0) return ZEROS[scale] as string;
  const value = scale === 0 ? digits : digits / 10 ** scale;
  return (negative ? -value : value).toFixed(scale);
}
const ZEROS = Array.from({ length: 16 }, (_, scale) => (0).toFixed(scale));

const POSITIVE_SIGN = [0xa, 0xc, 0xe, 0xf];
const NEGATIVE_SIGN = [0xb, 0xd];

function packed(precision: number, scale: number, fallback: Reader): Reader {
  const bytes = Math.floor(precision / 2) + 1;
  return (image, at) => {
    let digits = 0;
    const last = at + bytes - 1;
    for (let i = at; i < last; i++) {
      const b = image[i] as number;
      const high = b >> 4;
      const low = b & 0xf;
      if (high > 9 || low > 9) return fallback(image, at);
      digits = digits * 100 + high * 10 + low;
    }
    const b = image[last] as number;
    const sign = b & 0xf;
    const negative = NEGATIVE_SIGN.includes(sign);
    if (b >> 4 > 9 || !(negative || POSITIVE_SIGN.includes(sign))) return fallback(image, at);
    return decimalText(digits * 10 + (b >> 4), scale, negative);
  };
}

function zoned(precision: number, scale: number, fallback: Reader): Reader {
  return (image, at) => {
    let digits = 0;
    for (let i = at; i < at + precision; i++) {
      const digit = (image[i] as number) & 0xf;
      if (digit > 9) return fallback(image, at);
      digits = digits * 10 + digit;
    }
    const zone = (image[at + precision - 1] as number) >> 4;
    const negative = NEGATIVE_SIGN.includes(zone);
    if (!(negative || POSITIVE_SIGN.includes(zone))) return fallback(image, at);
    return decimalText(digits, scale, negative);
  };
}

const DIGIT_0 = 0x30;
const DASH = 0x2d;
const COLON = 0x3a;
const SPACE = 0x20;
const DOT = 0x2e;

/** The number of `count` digit units at `at`; -1 when one is not a digit. */
function digitsAt(units: readonly number[], at: number, count: number): number {
  let n = 0;
  for (let i = at; i < at + count; i++) {
    const d = (units[i] as number) - DIGIT_0;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}
const isDigit = (units: readonly number[], at: number) => digitsAt(units, at, 1) >= 0;

/** A field's bytes through its single-byte CCSID's table into `units` (one array per reader). */
function unitsReader(ccsid: number, length: number): ((image: Uint8Array, at: number) => number[]) | null {
  if (ccsidKind(ccsid) !== 'single') return null;
  const table = singleByteUnits(ccsid);
  const units = new Array<number>(length).fill(0);
  return (image, at) => {
    for (let i = 0; i < length; i++) units[i] = table[image[at + i] as number] as number;
    return units;
  };
}
const text = (units: number[]) => String.fromCharCode.apply(null, units);

/** Where year, month and day stand in the fixed-width date formats, and the year's digits. */
const DATE_PLACES = {
  iso: { y: 0, m: 5, d: 8, yearDigits: 4, separators: [4, 7] },
  jis: { y: 0, m: 5, d: 8, yearDigits: 4, separators: [4, 7] },
  usa: { y: 6, m: 0, d: 3, yearDigits: 4, separators: [2, 5] },
  eur: { y: 6, m: 3, d: 0, yearDigits: 4, separators: [2, 5] },
  mdy: { y: 6, m: 0, d: 3, yearDigits: 2, separators: [2, 5] },
  dmy: { y: 6, m: 3, d: 0, yearDigits: 2, separators: [2, 5] },
  ymd: { y: 0, m: 3, d: 6, yearDigits: 2, separators: [2, 5] },
} as const;

function dateReader(t: Extract<FieldType, { kind: 'date' }>, fallback: Reader): Reader | null {
  const places = t.format === 'julian' ? null : DATE_PLACES[t.format];
  const length = places?.yearDigits === 4 ? 10 : 8;
  const read = unitsReader(t.ccsid, length);
  if (!read || !places) return null;
  const iso = [0, 0, 0, 0, DASH, 0, 0, DASH, 0, 0];
  return (image, at) => {
    const units = read(image, at);
    const year = digitsAt(units, places.y, places.yearDigits);
    const m = digitsAt(units, places.m, 2);
    const d = digitsAt(units, places.d, 2);
    if (year < 0 || m < 1 || m > 12 || d < 1 || places.separators.some((i) => isDigit(units, i)))
      return fallback(image, at);
    // Two-digit years hold 1940 to 2039 (dateTime.ts); year 0 is no date (parseDate decides).
    const y = places.yearDigits === 4 ? year : year >= 40 ? 1900 + year : 2000 + year;
    if (y < 1 || d > daysInMonth(y, m)) return fallback(image, at);
    const century = places.yearDigits === 4 ? -1 : y < 2000 ? 19 : 20;
    iso[0] = century < 0 ? (units[places.y] as number) : DIGIT_0 + Math.floor(century / 10);
    iso[1] = century < 0 ? (units[places.y + 1] as number) : DIGIT_0 + (century % 10);
    iso[2] = units[places.y + places.yearDigits - 2] as number;
    iso[3] = units[places.y + places.yearDigits - 1] as number;
    iso[5] = units[places.m] as number;
    iso[6] = units[places.m + 1] as number;
    iso[8] = units[places.d] as number;
    iso[9] = units[places.d + 1] as number;
    return text(iso);
  };
}

function timeReader(t: Extract<FieldType, { kind: 'time' }>, fallback: Reader): Reader | null {
  const read = unitsReader(t.ccsid, 8);
  if (!read || t.format === 'usa') return null;
  return (image, at) => {
    const units = read(image, at);
    const h = digitsAt(units, 0, 2);
    const m = digitsAt(units, 3, 2);
    const s = digitsAt(units, 6, 2);
    if (h < 0 || h > 24 || m < 0 || m > 59 || s < 0 || s > 59 || isDigit(units, 2) || isDigit(units, 5))
      return fallback(image, at);
    units[2] = units[5] = COLON;
    return text(units);
  };
}

/** `yyyy-mm-dd-hh.mm.ss.ffffff` as `yyyy-mm-dd hh:mm:ss.ffffff`, the form values.ts gives it. */
function timestampReader(t: Extract<FieldType, { kind: 'timestamp' }>, fallback: Reader): Reader | null {
  const read = unitsReader(t.ccsid, 26);
  if (!read) return null;
  return (image, at) => {
    const units = read(image, at);
    if (units[10] !== DASH || units[13] !== DOT) return fallback(image, at);
    units[10] = SPACE;
    units[13] = units[16] = COLON;
    units[19] = DOT;
    return text(units);
  };
}
