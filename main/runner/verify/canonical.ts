// One text form per value for comparing a replica with its source: the source's value as the runner
// writes it (portable(), the documented type mapping) and the target's value as the target reads it
// back both become this form, so a correct replica never shows a difference. Numbers compare by value
// (12.50 = 12.5 = 1.25E+1), a REAL at single precision, times at the fraction digits the target keeps,
// instants with an offset as the UTC instant, bytes as hex.
import { Buffer } from 'node:buffer';
import type { ColumnShape, Row } from '../../agents/source';
import { affinityOf, portable } from '../../agents/targetValues';

/** How a target keeps a column's times: the fraction digits it holds (Infinity: all it is given). */
export type KeptDigits = (c: ColumnShape) => number;

const NULL = '\u2205';

/**
 * A plain decimal's text (`-0012.50`) in the form decimalValue gives, by one pass over its characters;
 * null for any other text (an exponent, a sign `+`, blanks, NaN), which decimalValue handles.
 */
function plainDecimalValue(t: string): string | null {
  const negative = t.charCodeAt(0) === 45;
  let i = negative ? 1 : 0;
  let point = -1;
  let lastNonZero = -1;
  if (i >= t.length) return null;
  for (let k = i; k < t.length; k++) {
    const ch = t.charCodeAt(k);
    if (ch === 46) {
      if (point >= 0) return null;
      point = k;
    } else if (ch >= 48 && ch <= 57) {
      if (ch !== 48) lastNonZero = k;
    } else return null;
  }
  if (point === i && t.length === i + 1) return null;
  const intEnd = point < 0 ? t.length : point;
  while (i < intEnd - 1 && t.charCodeAt(i) === 48) i++;
  const whole = intEnd > i ? t.slice(i, intEnd) : '0';
  const fraction = point >= 0 && lastNonZero > point ? t.slice(point + 1, lastNonZero + 1) : '';
  if (whole === '0' && fraction === '') return '0';
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** An exact decimal's value as text: no exponent, no leading or trailing zeros, `-` only when below 0. */
export function decimalValue(text: string): string {
  const plain = plainDecimalValue(text);
  if (plain !== null) return plain;
  const t = text.trim();
  if (/^[+-]?s?nan$/i.test(t)) return 'NaN';
  if (/^[+-]?inf(inity)?$/i.test(t)) return t.startsWith('-') ? '-Infinity' : 'Infinity';
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(t);
  if (!m) return t;
  const digits = `${m[2] ?? ''}${m[3] ?? ''}`;
  // The decimal point's place within `digits`, after the exponent moves it.
  let point = (m[2] ?? '').length + Number(m[4] ?? 0);
  let all = digits.replace(/^0+/, () => '');
  point -= digits.length - all.length;
  all = all.replace(/0+$/, '');
  if (all === '') return '0';
  const whole =
    point <= 0 ? '0' : all.length >= point ? all.slice(0, point) : all + '0'.repeat(point - all.length);
  const fraction = point < 0 ? '0'.repeat(-point) + all : all.slice(Math.max(0, point));
  return `${m[1] === '-' ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** `YYYY-MM-DD HH:MM:SS` with its fraction cut to `digits` and its trailing zeros dropped. */
function timeText(text: string, digits: number): string {
  // Most values need no rule: no `T`, no blank at either end, and a fraction (if any) of digits
  // within those kept, whose zeros at the end are dropped by a scan (`.123000` → `.123`).
  const end = text.length - 1;
  if (text.indexOf('T') < 0 && text.charCodeAt(0) !== 32 && text.charCodeAt(end) !== 32) {
    const dot = text.lastIndexOf('.');
    if (dot < 0) return text;
    if (dot < end && end - dot <= digits) {
      let last = end;
      while (last > dot && text.charCodeAt(last) === 48) last--;
      let digitsOnly = true;
      for (let k = dot + 1; k <= last; k++) {
        const ch = text.charCodeAt(k);
        if (ch < 48 || ch > 57) digitsOnly = false;
      }
      if (digitsOnly) return text.slice(0, last === dot ? dot : last + 1);
    }
  }
  const m = /^(.*?)(?:\.(\d+))?$/.exec(text.trim().replace('T', ' ')) as RegExpExecArray;
  const fraction = (m[2] ?? '').slice(0, Number.isFinite(digits) ? digits : undefined).replace(/0+$/, '');
  return fraction ? `${m[1]}.${fraction}` : (m[1] ?? '');
}

/** An instant with an offset (`…+02:00`, `Z`, `+00`) as the UTC instant, its fraction cut to `digits`. */
function instantText(text: string, digits: number): string {
  const m = /^(\d{4,})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(?:\.(\d+))?\s*(Z|[+-]\d\d(?::?\d\d)?)?$/.exec(
    text.trim(),
  );
  if (!m) return text;
  const o = /^([+-])(\d\d)(?::?(\d\d))?$/.exec(m[8] ?? 'Z');
  const offsetMinutes = o ? (o[1] === '-' ? -1 : 1) * (Number(o[2]) * 60 + Number(o[3] ?? 0)) : 0;
  const ms =
    Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])) -
    offsetMinutes * 60_000;
  const iso = new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
  return timeText(m[7] ? `${iso}.${m[7]}` : iso, digits);
}

/** One value in the compared form; `digits` is what the target keeps of this column's times. */
export function canonicalValue(c: ColumnShape, v: unknown, digits: number): string {
  if (v === null || v === undefined) return NULL;
  switch (affinityOf(c)) {
    case 'decimal':
      return decimalValue(typeof v === 'number' ? String(v) : String(v as string | bigint));
    case 'integer':
      return String(typeof v === 'bigint' ? v : BigInt(String(v).trim()));
    case 'boolean':
      return v === true || v === 1 || v === 1n || v === '1' || v === 't' || v === 'true' ? '1' : '0';
    case 'float': {
      const n = Number(v);
      return String(/^real/i.test(c.sourceType) ? Math.fround(n) : n);
    }
    case 'binary':
    case 'spatial':
      return Buffer.from(v as Uint8Array).toString('hex');
    case 'uuid':
      return String(v).toLowerCase();
    case 'datetime':
    case 'time':
    case 'date':
      return timeText(String(v), digits);
    case 'datetimeoffset':
      return instantText(String(v), digits);
    default:
      return typeof v === 'string' ? v : Buffer.isBuffer(v) ? v.toString('hex') : String(v);
  }
}

/** Whether text is a whole number already in its compared form: digits, no leading zero, no `-0`. */
function isIntegerText(t: string): boolean {
  const negative = t.charCodeAt(0) === 45;
  const first = negative ? 1 : 0;
  if (t.length === first || (t.charCodeAt(first) === 48 && (negative || t.length > 1))) return false;
  for (let i = first; i < t.length; i++) {
    const ch = t.charCodeAt(i);
    if (ch < 48 || ch > 57) return false;
  }
  return true;
}

/**
 * canonicalValue() for one column, its type's branch chosen once: a verify puts every value of a
 * table through it. The common forms (whole numbers, text, decimals and times as text) skip the
 * general path's type dispatch.
 */
export function canonicalOf(c: ColumnShape, digits: number): (v: unknown) => string {
  switch (affinityOf(c)) {
    case 'integer':
      return (v) =>
        v === null || v === undefined
          ? NULL
          : typeof v === 'bigint' || (typeof v === 'number' && Number.isSafeInteger(v))
            ? String(v)
            : typeof v === 'string' && isIntegerText(v)
              ? v
              : canonicalValue(c, v, digits);
    case 'text':
      return (v) => (typeof v === 'string' ? v : canonicalValue(c, v, digits));
    case 'decimal':
      return (v) => (typeof v === 'string' ? decimalValue(v) : canonicalValue(c, v, digits));
    case 'datetime':
    case 'date':
    case 'time':
      return (v) => (typeof v === 'string' ? timeText(v, digits) : canonicalValue(c, v, digits));
    default:
      return (v) => canonicalValue(c, v, digits);
  }
}

/** A source row as the target should hold it, column by column in `columns` order. */
export function sourceForm(columns: readonly ColumnShape[], row: Row, digits: KeptDigits): string[] {
  return columns.map((c) => canonicalValue(c, portable(c, row[c.name] ?? null), digits(c)));
}

/** A row read back from the target, column by column in `columns` order. */
export function targetForm(columns: readonly ColumnShape[], row: Row, digits: KeptDigits): string[] {
  return columns.map((c) => canonicalValue(c, row[c.name] ?? null, digits(c)));
}

/**
 * A key's text (its compared values joined), the same from either side. A one-column key is its
 * value: a table's keys all have as many columns, so no two keys' texts meet.
 */
export const keyText = (values: readonly string[]): string =>
  values.length === 1 ? (values[0] as string) : JSON.stringify(values);

/** A row in its compared form: its key's compared values, their text, and every column's. */
export interface Compared {
  row: Row;
  key: string[];
  text: string;
  values: string[];
}

/**
 * Rows in their compared form (a side's form from rowMatch) by their key's text, in the rows' order;
 * the key is taken from the columns' values, not formed twice.
 */
export function byKey(
  columns: readonly ColumnShape[],
  key: readonly string[],
  rows: readonly Row[],
  form: (row: Row) => string[],
): Map<string, Compared> {
  const at = key.map((k) => columns.findIndex((c) => c.name === k));
  const out = new Map<string, Compared>();
  const [only] = at;
  for (const row of rows) {
    const values = form(row);
    // One key column (the most common): its value is the key's text, no array joined.
    if (at.length === 1 && only !== undefined) {
      const text = values[only] ?? '';
      out.set(text, { row, key: [text], text, values });
      continue;
    }
    const keyValues = at.map((i) => values[i] ?? '');
    const text = keyText(keyValues);
    out.set(text, { row, key: keyValues, text, values });
  }
  return out;
}
