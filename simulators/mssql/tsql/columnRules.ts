// Declared types enforced on write, as SQL Server enforces them: a value longer than its character or
// binary column is refused with 2628 (the table, the column and the cut value named), an integer or
// decimal out of its column's range with 220 or 8115 — never stored to break a later read. SQLite
// stores any value in any column, so each such column carries a CHECK calling TSQL_FITS.
import type { SqlType, SqlValue } from '../tds/dataTypes/sqlTypes';
import { quote, SqlError } from './basics';
import { declaredType } from './typeNames';
import { MONEY_RANGE } from './convert';
import { ROWVERSION_DEFAULT } from './rowversion';
import { decimalToUnscaled, exactText } from '../tds/dataTypes/decimalText';
import type { ColumnDef } from './schema';

const INTEGER_RANGE: Record<string, [bigint, bigint]> = {
  tinyint: [0n, 255n],
  smallint: [-32768n, 32767n],
  int: [-2147483648n, 2147483647n],
  bigint: [-9223372036854775808n, 9223372036854775807n],
};

/** Whether a column of this type needs the check (a bounded length, an integer, a decimal). */
function bounded(t: SqlType): boolean {
  if ('length' in t) return t.length !== 'max';
  return t.name in INTEGER_RANGE || t.name in MONEY_RANGE || t.name === 'decimal' || t.name === 'numeric';
}

/**
 * What SQLite itself can tell fits, before TSQL_FITS is called (a JavaScript call per value written):
 * an integer within its type's range; text or bytes whose UTF-8 length is within the column's length
 * (never less than the UTF-16 length TSQL_FITS counts). Anything else still goes to TSQL_FITS.
 */
function plainlyFits(t: SqlType, column: string): string | null {
  const range = INTEGER_RANGE[t.name];
  if (range) return `typeof(${column}) = 'integer' AND ${column} BETWEEN ${range[0]} AND ${range[1]}`;
  if ('length' in t && t.length !== 'max')
    return `typeof(${column}) IN ('text', 'blob') AND length(CAST(${column} AS BLOB)) <= ${t.length}`;
  return null;
}

/** A column's SQLite definition: name, declared T-SQL type, NOT NULL, DEFAULT, and its type's check. */
export function columnSql(
  c: ColumnDef,
  table: string,
  defaultSql = c.type.name === 'rowversion' ? ROWVERSION_DEFAULT : c.defaultSql,
): string {
  // Only in a session's temporary tables (a catch-up's pending keys, written in bulk): in the database's
  // own schema the longer CHECK made every later schema change slower, as SQLite reads the schema
  // again (2,000 tables took 36 s to make instead of 16).
  const plain = table.startsWith('#') ? plainlyFits(c.type, quote(c.name)) : null;
  const check = bounded(c.type)
    ? ` CHECK (${plain ? `(${plain}) OR ` : ''}TSQL_FITS(${quote(c.name)}, '${JSON.stringify(c.type)}', '${table.replaceAll("'", "''")}', '${c.name.replaceAll("'", "''")}'))`
    : '';
  return `${quote(c.name)} ${quote(declaredType(c.type))}${c.nullable ? '' : ' NOT NULL'}${defaultSql ? `${c.defaultName ? ` CONSTRAINT ${quote(c.defaultName)}` : ''} DEFAULT (${defaultSql})` : ''}${check}`;
}

/** TSQL_FITS(value, type, table, column): 1, or SQL Server's error for a value its column cannot hold. */
export function fits(
  database: string,
  value: SqlValue,
  type: SqlType,
  table: string,
  column: string,
): number {
  if (value === null) return 1;
  if ('length' in type && type.length !== 'max') {
    const size = Buffer.isBuffer(value) ? value.length : String(value).length;
    if (size > type.length) {
      const cut = Buffer.isBuffer(value)
        ? `0x${value.subarray(0, type.length).toString('hex')}`
        : String(value).slice(0, type.length);
      throw new SqlError({
        number: 2628,
        state: 1,
        class: 16,
        message: `String or binary data would be truncated in table '${database}.${table}', column '${column}'. Truncated value: '${cut}'.`,
      });
    }
    return 1;
  }
  const range = INTEGER_RANGE[type.name];
  if (range && (typeof value === 'number' || typeof value === 'bigint')) {
    const n = typeof value === 'bigint' ? value : BigInt(Math.trunc(value));
    if (n < range[0] || n > range[1]) {
      if (type.name === 'tinyint' || type.name === 'smallint')
        throw new SqlError({
          number: 220,
          state: 1,
          class: 16,
          message: `Arithmetic overflow error for data type ${type.name}, value = ${n}.`,
        });
      throw new SqlError({
        number: 8115,
        state: 2,
        class: 16,
        message: `Arithmetic overflow error converting expression to data type ${type.name}.`,
      });
    }
    return 1;
  }
  if ((type.name === 'money' || type.name === 'smallmoney') && !Buffer.isBuffer(value)) {
    const units = decimalToUnscaled(exactText(value), 4);
    const [low, high] = MONEY_RANGE[type.name];
    if (units < low || units > high)
      throw new SqlError({
        number: 8115,
        state: 6,
        class: 16,
        message: `Arithmetic overflow error converting expression to data type ${type.name}.`,
      });
    return 1;
  }
  if (
    (type.name === 'decimal' || type.name === 'numeric') &&
    (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'string')
  ) {
    const whole =
      String(typeof value === 'number' ? Math.abs(Math.trunc(value)) : value)
        .replace(/^-/, '')
        .split('.')[0] ?? '';
    if (whole.replace(/^0+/, '').length > type.precision - type.scale)
      throw new SqlError({
        number: 8115,
        state: 8,
        class: 16,
        message: 'Arithmetic overflow error converting numeric to data type numeric.',
      });
  }
  return 1;
}
