// Source values as targets store them, by the source column's type. The mapping is documented in
// docs/runner.md; tedious gives datetime2 and time their digits past the millisecond separately.
import type { ColumnShape, RowValue } from './source';
import { nativeToEwkb } from './spatialValues';

const baseType = (c: ColumnShape) => c.sourceType.toLowerCase().replace(/\(.*$/, '');
const scaleOf = (c: ColumnShape) => Number(/\((\d+)\)/.exec(c.sourceType)?.[1] ?? '7');

/** tedious marks datetime2/time values with the 100-ns digits a Date cannot hold. */
type TediousDate = Date & { nanosecondsDelta?: number };

const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);
const three = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

/**
 * `2026-03-01 12:00:00.1234567`, as many fraction digits as the column's scale. Written from the
 * date's UTC fields (tedious reads datetime2 as UTC, useUTC): a copy formats millions of them.
 */
export function dateTimeText(d: TediousDate, scale: number, part: 'datetime' | 'date' | 'time'): string {
  const year = d.getUTCFullYear();
  if (year < 1 || year > 9999) return isoDateTimeText(d, scale, part);
  const date = `${year < 1000 ? String(year).padStart(4, '0') : year}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())}`;
  if (part === 'date') return date;
  const ms = d.getUTCMilliseconds();
  const time = `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}${fractionText(d, `.${three(ms)}`, scale)}`;
  return part === 'time' ? time : `${date} ${time}`;
}

/** The same from the ISO text, for a year SQL Server does not hold (toISOString writes it signed). */
function isoDateTimeText(d: TediousDate, scale: number, part: 'datetime' | 'date' | 'time'): string {
  const iso = d.toISOString();
  const at = iso.indexOf('T');
  if (part === 'date') return iso.slice(0, at);
  const time = `${iso.slice(at + 1, at + 9)}${fractionText(d, iso.slice(at + 9, at + 13), scale)}`;
  return part === 'time' ? time : `${iso.slice(0, at)} ${time}`;
}

/** `.1234567` cut to `scale` digits ('' at scale 0), from `.mmm` and tedious's digits past the millisecond. */
function fractionText(d: TediousDate, millis: string, scale: number): string {
  if (scale <= 0) return '';
  const delta = d.nanosecondsDelta ?? 0;
  // Without digits past the millisecond the fraction is the milliseconds' (`.123`), zeros after it.
  if (delta === 0) return scale <= 3 ? millis.slice(0, 1 + scale) : `${millis}${'0'.repeat(scale - 3)}`;
  const ticks = Math.round((d.getUTCMilliseconds() / 1000 + delta) * 1e7);
  return `.${String(ticks).padStart(7, '0').slice(0, scale)}`;
}

export type Affinity =
  | 'integer'
  | 'decimal'
  | 'float'
  | 'text'
  | 'binary'
  | 'boolean'
  | 'datetime'
  | 'date'
  | 'time'
  | 'datetimeoffset'
  | 'uuid'
  | 'spatial';

const AFFINITY: Record<string, Affinity> = {
  bit: 'boolean',
  // IBM i BOOLEAN; a ROWID is 40 bytes of bit data.
  boolean: 'boolean',
  rowid: 'binary',
  tinyint: 'integer',
  smallint: 'integer',
  int: 'integer',
  integer: 'integer',
  bigint: 'integer',
  decimal: 'decimal',
  numeric: 'decimal',
  // IBM i DECFLOAT: exact decimal text (`1.5E+3` included), kept as a decimal.
  decfloat: 'decimal',
  money: 'decimal',
  smallmoney: 'decimal',
  float: 'float',
  real: 'float',
  double: 'float',
  date: 'date',
  time: 'time',
  datetime: 'datetime',
  datetime2: 'datetime',
  // IBM i (Db2 for i) names beside SQL Server's.
  timestamp: 'datetime',
  smalldatetime: 'datetime',
  datetimeoffset: 'datetimeoffset',
  uniqueidentifier: 'uuid',
  binary: 'binary',
  varbinary: 'binary',
  image: 'binary',
  // SQL Server's rowversion (sys.types calls it timestamp; the agent names it rowversion): eight bytes.
  rowversion: 'binary',
  // IBM i LOBs: a BLOB is bytes; CLOB, DBCLOB and XML are text.
  blob: 'binary',
  // SQL Server's spatial types, read as their serialized bytes (hierarchyid is read as its path text).
  geography: 'spatial',
  geometry: 'spatial',
};

const affinities = new Map<string, Affinity>();
/** A column's affinity, by its source type (asked per value on every write: kept per type). */
export function affinityOf(c: ColumnShape): Affinity {
  let a = affinities.get(c.sourceType);
  if (a === undefined) affinities.set(c.sourceType, (a = AFFINITY[baseType(c)] ?? 'text'));
  return a;
}

/** The scale SQL Server shows a decimal or money column's values at; NaN for other types. */
function scaleOfDecimal(c: ColumnShape): number {
  const type = c.sourceType.toLowerCase();
  return /money/.test(type) ? 4 : Number(/^(?:decimal|numeric)\(\d+,\s*(\d+)\)/.exec(type)?.[1] ?? NaN);
}

/**
 * A decimal written at the column's scale as SQL Server shows it (`12.50` for decimal(9,2), four
 * places for money), not JavaScript's shortest form (`12.5`). Text (the exact digits the agent reads)
 * is padded with zeros, never through a number; a number only when a driver handed one.
 */
function decimalText(c: ColumnShape, v: number | string): string {
  const scale = scaleOfDecimal(c);
  if (!Number.isInteger(scale)) return String(v);
  if (typeof v === 'number') return Math.abs(v) < 1e21 ? v.toFixed(scale) : String(v);
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(v.trim());
  if (!m || (m[3] ?? '').length > scale) return v;
  const whole = m[2] || '0';
  const text = scale > 0 ? `${whole}.${(m[3] ?? '').padEnd(scale, '0')}` : whole;
  return m[1] === '-' ? `-${text}` : text;
}

/** Whether decimal text is already as decimalText() writes it at `scale`: an optional '-', digits, `scale` places. */
function atScale(v: string, scale: number): boolean {
  const start = v.charCodeAt(0) === 0x2d ? 1 : 0;
  const point = scale > 0 ? v.length - scale - 1 : v.length;
  if (point <= start || (scale > 0 && v.charCodeAt(point) !== 0x2e)) return false;
  for (let i = start; i < v.length; i++) {
    const d = v.charCodeAt(i) - 0x30;
    if (i !== point && (d < 0 || d > 9)) return false;
  }
  return true;
}

/**
 * portable() for one column, decided once: a target writing a batch converts each value without
 * looking its column's type up again. The common values (text, numbers, decimals already at their
 * scale) pass as they are; every other goes through portable(), so the result is always the same.
 */
export function portableWriter(c: ColumnShape): (v: RowValue) => RowValue {
  const a = affinityOf(c);
  if (a === 'decimal') {
    const scale = scaleOfDecimal(c);
    if (!Number.isInteger(scale)) return (v) => portable(c, v);
    return (v) => (typeof v === 'string' && atScale(v, scale) ? v : portable(c, v));
  }
  if (a === 'integer') return (v) => (typeof v === 'number' || typeof v === 'bigint' ? v : portable(c, v));
  if (a === 'uuid' || a === 'spatial' || a === 'boolean') return (v) => portable(c, v);
  // The column's part and scale read once, not per value.
  const writeDate = dateWriter(c, a);
  return (v) => (v instanceof Date ? writeDate(v) : v);
}

/** How a Date read from column `c` is written: its part, and the digits the column's scale keeps. */
function dateWriter(c: ColumnShape, a: Affinity): (d: TediousDate) => string {
  if (a === 'datetimeoffset') return (d) => d.toISOString();
  if (a === 'date') return (d) => dateTimeText(d, 0, 'date');
  if (a === 'time') {
    const scale = scaleOf(c);
    return (d) => dateTimeText(d, scale, 'time');
  }
  const scale = baseType(c) === 'datetime2' ? scaleOf(c) : 3;
  return (d) => dateTimeText(d, scale, 'datetime');
}

/** A value in its portable form: numbers and text as given, decimals as text, times as text. */
export function portable(c: ColumnShape, v: RowValue): RowValue {
  if (v === null) return null;
  const a = affinityOf(c);
  if (v instanceof Date) return dateWriter(c, a)(v);
  if (a === 'decimal') return typeof v === 'number' || typeof v === 'string' ? decimalText(c, v) : String(v);
  if (a === 'uuid') return String(v).toLowerCase();
  if (a === 'spatial' && v instanceof Uint8Array) {
    try {
      return nativeToEwkb(v, baseType(c) === 'geography');
    } catch (e) {
      throw new Error(
        `Column ${c.name} (${c.sourceType}) cannot be written as EWKB: ${(e as Error).message}.`,
        { cause: e },
      );
    }
  }
  // A boolean read back from a target (SQLite's 1n, PostgreSQL's 't') keys a verify's repair: the same value.
  if (a === 'boolean') return v === true || v === 1 || v === 1n || v === '1' || v === 't' || v === 'true';
  if (a === 'integer' && typeof v === 'string') return BigInt(v);
  return v;
}
