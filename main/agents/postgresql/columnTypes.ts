// PostgreSQL's column types for the source's columns (docs/runner.md has the mapping), how a source
// value is bound to them, and which retypes widen a column in place.
import type { PreciseTimes } from '../../../shared/agents/targets';
import type { ColumnShape, RowValue } from '../source';
import { affinityOf, portable, portableWriter } from '../targetValues';

const size = (c: ColumnShape) => /\(([^)]*)\)/.exec(c.sourceType)?.[1];

/** A time PostgreSQL's own type would change: past the microsecond, or with an offset to keep. */
export function pastNative(c: ColumnShape): boolean {
  const a = affinityOf(c);
  if (a === 'datetimeoffset') return true;
  if (a !== 'datetime' && a !== 'time') return false;
  const base = c.sourceType.toLowerCase().replace(/\(.*$/, '');
  const digits = Number(size(c) ?? (base === 'datetime2' || base === 'time' ? 7 : 0));
  return digits > 6;
}

export function postgresType(c: ColumnShape, preciseTimes: PreciseTimes = 'native'): string {
  const base = c.sourceType.toLowerCase().replace(/\(.*$/, '');
  const n = size(c);
  if (preciseTimes === 'text' && pastNative(c)) return 'text';
  switch (affinityOf(c)) {
    case 'boolean':
      return 'boolean';
    case 'integer':
      return base === 'bigint' ? 'bigint' : base === 'int' || base === 'integer' ? 'integer' : 'smallint';
    case 'decimal':
      if (base === 'money') return 'numeric(19,4)';
      if (base === 'smallmoney') return 'numeric(10,4)';
      // A DECFLOAT's exponent floats: numeric without a scale holds each value exactly.
      return n && base !== 'decfloat' ? `numeric(${n})` : 'numeric';
    case 'float':
      return base === 'real' ? 'real' : 'double precision';
    case 'binary':
      return 'bytea';
    // EWKB, which PostGIS reads with ST_GeomFromEWKB (docs/runner.md): no extension needed here.
    case 'spatial':
      return 'bytea';
    case 'datetime':
      return `timestamp(${Math.min(6, Number(base === 'datetime2' ? (n ?? 7) : base === 'timestamp' ? (n ?? 6) : 3))})`;
    case 'date':
      return 'date';
    case 'time':
      return `time(${Math.min(6, Number(n ?? 7))})`;
    case 'datetimeoffset':
      return 'timestamptz';
    case 'uuid':
      return 'uuid';
    default:
      // An IBM i CLOB, DBCLOB or XML holds up to 2 GB: text, whatever its length attribute.
      return n && n !== 'max' && !['clob', 'dbclob', 'xml'].includes(base) ? `varchar(${n})` : 'text';
  }
}

/**
 * PostgreSQL keeps microseconds and rounds a seventh digit: the value is cut to six digits first,
 * unless the column keeps exact text (preciseTimes "text").
 */
export function bindable(c: ColumnShape, v: RowValue, preciseTimes: PreciseTimes = 'native'): unknown {
  return bound(c, portable(c, v), preciseTimes);
}

/** A portable value as the target binds it. */
function bound(c: ColumnShape, p: RowValue, preciseTimes: PreciseTimes): unknown {
  if (preciseTimes === 'text' && pastNative(c)) return p;
  if (typeof p === 'string' && (affinityOf(c) === 'datetime' || affinityOf(c) === 'time'))
    return p.replace(/(\.\d{6})\d+$/, '$1');
  if (typeof p === 'string' && affinityOf(c) === 'datetimeoffset')
    return p.replace(/(\.\d{6})\d+(?=Z$|[+-]\d\d(?::?\d\d)?$|$)/, '$1');
  if (typeof p === 'bigint') return String(p);
  if (p instanceof Uint8Array) return Buffer.from(p);
  // numeric has one NaN: a DECFLOAT's signalling or negative NaN arrives as NaN (docs/runner.md).
  if (typeof p === 'string' && affinityOf(c) === 'decimal' && /^[+-]?s?nan$/i.test(p)) return 'NaN';
  return p;
}

/** A string no rule of bound() changes: text, or a time with at most six fraction digits. */
function boundAsIs(c: ColumnShape): (p: string) => boolean {
  const a = affinityOf(c);
  if (a === 'datetime' || a === 'time' || a === 'datetimeoffset')
    return (p) => {
      const dot = p.lastIndexOf('.');
      return dot < 0 || p.length - dot - 1 <= 6;
    };
  if (a === 'decimal') return (p) => !p.includes('n') && !p.includes('N');
  return () => true;
}

/** bindable() for one column, its conversions decided once: every batch value goes through it. */
export function binderOf(c: ColumnShape, preciseTimes: PreciseTimes = 'native'): (v: RowValue) => unknown {
  const write = portableWriter(c);
  const asIs = boundAsIs(c);
  return (v) => {
    const p = write(v);
    if (p === null || typeof p === 'number' || (typeof p === 'string' && asIs(p))) return p;
    return bound(c, p, preciseTimes);
  };
}

/** Integer types in order of width, as format_type and postgresType write them. */
const INTEGERS = ['smallint', 'integer', 'bigint'];

/**
 * Whether the wanted type holds more than the current one of the same family: a longer varchar, text
 * for a varchar, more digits of a numeric. Other retypes are not done in place.
 */
export function widens(current: string, wanted: string): boolean {
  if (INTEGERS.includes(current) && INTEGERS.indexOf(wanted) > INTEGERS.indexOf(current)) return true;
  const varchar = /^character varying\((\d+)\)$/.exec(current);
  if (varchar) {
    const n = /^varchar\((\d+)\)$/.exec(wanted);
    return wanted === 'text' || (n !== null && Number(n[1]) > Number(varchar[1]));
  }
  const numeric = /^numeric\((\d+),(\d+)\)$/.exec(current);
  const next = /^numeric\((\d+),(\d+)\)$/.exec(wanted);
  return (
    numeric !== null &&
    next !== null &&
    Number(next[2]) >= Number(numeric[2]) &&
    Number(next[1]) - Number(next[2]) >= Number(numeric[1]) - Number(numeric[2]) &&
    wanted !== `numeric(${numeric[1]},${numeric[2]})`
  );
}
