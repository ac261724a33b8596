// Query answers as the ODBC path hands them over: DECIMAL and NUMERIC as exact decimal text, BIGINT
// as bigint, SMALLINT and INTEGER as numbers, binary as bytes, character data as stored (CHAR padded).
import type { IbmiRow, IbmiValue } from '../../../lib/ibmi/connection';
import type { SqlValue } from '../system/files';
import type Database from 'better-sqlite3';
import { sqlError } from '../system/messages';
import { ibmiFold } from '../../../shared/names';
import { isOrdinaryIdentifier } from './lexer';

function decimal(v: number | bigint, scale: number): string {
  if (typeof v === 'bigint') return scale > 0 ? `${v}.${'0'.repeat(scale)}` : String(v);
  return v.toFixed(scale);
}

const SAFE_LOW = BigInt(Number.MIN_SAFE_INTEGER);
const SAFE_HIGH = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * How a column's values come back, decided once per column from its declared type: a DECIMAL(p,s) or
 * NUMERIC(p,s) as exact text at its scale, BIGINT as bigint, other integers as numbers while they are
 * safe, bytes as a copy, text as stored.
 */
export function converterFor(declared: string | null): (value: unknown) => IbmiValue {
  const d = (declared ?? '').toUpperCase();
  const m = /^(DECIMAL|NUMERIC)\((\d+),(\d+)\)/.exec(d);
  const scale = m ? Number(m[3]) : null;
  const isBigint = d === 'BIGINT';
  const datetime = /^(DATE|TIME|TIMESTAMP)\b/.test(d);
  return (value) => {
    if (value === null || value === undefined) return null;
    // Bytes a program wrote into a decimal or a date field (writeFromProgram): SQL cannot map them.
    if (Buffer.isBuffer(value) && scale !== null) throw sqlError(-802);
    if (Buffer.isBuffer(value) && datetime) throw sqlError(-181);
    if (typeof value === 'string') return value;
    if (scale !== null && (typeof value === 'number' || typeof value === 'bigint'))
      return decimal(value, scale);
    if (Buffer.isBuffer(value)) return new Uint8Array(value);
    if (typeof value === 'bigint') {
      if (isBigint) return value;
      return value >= SAFE_LOW && value <= SAFE_HIGH ? Number(value) : value;
    }
    if (typeof value === 'number' && isBigint) return BigInt(Math.trunc(value));
    return value as IbmiValue;
  };
}

export function runQuery(db: Database.Database, sql: string, bound: readonly SqlValue[]): IbmiRow[] {
  const stmt = db.prepare(sql);
  stmt.safeIntegers(true);
  // Each column's name and type decided once per statement, not per row.
  const columns = stmt
    .columns()
    .map((c, i) => ({
      // Db2 names a result column that is not a column or an AS name by its position: 00001, 00002 …
      name: isOrdinaryIdentifier(c.name) ? ibmiFold(c.name) : String(i + 1).padStart(5, '0'),
      convert: converterFor(c.type),
      index: i,
      // The member table's own record number column is the simulation's, never the file's: * leaves it out.
      shown: c.name !== '__RRN',
    }))
    .filter((c) => c.shown);
  const raw = stmt.raw(true).all(...bound) as unknown[][];
  return raw.map((r) => {
    const row: IbmiRow = {};
    for (const c of columns) row[c.name] = c.convert(r[c.index]);
    return row;
  });
}

export const toSqlValue = (v: IbmiValue): SqlValue => (v instanceof Uint8Array ? Buffer.from(v) : v);
