// A history table at a SQL Server target (docs/shaping.md, "History"): the statements that end a key's
// current version when a row's values differ from it and open one where none is. Values are compared
// exactly, not as the column's collation compares them: under a case-insensitive collation 'a' = 'A',
// and SQL Server pads the shorter of two strings with spaces, and of two binaries with 0x00, before
// comparing ("Comparing binary 0x and 0x00 turns out to be equal"), so text is compared as Unicode
// under a binary collation and, with binaries, by its length too.
import type { ColumnShape } from '../source';
import type { TargetTable } from '../target';
import { bracket } from '../drivers/mssql/names';
import { comparedColumns, writtenColumns } from '../history';

/** A binary collation: code point order, no case or accent folding. */
const EXACT = 'Latin1_General_100_BIN2';
const TEXT_TYPES = new Set([
  'char',
  'varchar',
  'nchar',
  'nvarchar',
  'text',
  'ntext',
  'xml',
  'datetimeoffset',
]);
const BINARY_TYPES = new Set(['binary', 'varbinary', 'image', 'geography', 'geometry']);

/**
 * `a` and `b` (one a column, one a value converted to its type) equal as the data, nulls equal. Text
 * (and datetimeoffset, whose `=` ignores the offset) is compared as nvarchar, which every text type
 * converts to without loss; binaries and the spatial types (not comparable as they are) as varbinary.
 */
function sameValue(type: string, a: string, b: string): string {
  const base = type.toLowerCase().replace(/\(.*$/, '').trim();
  const both = `${a} IS NULL AND ${b} IS NULL`;
  if (TEXT_TYPES.has(base)) {
    const [x, y] = [a, b].map((v) => `CAST(${v} AS nvarchar(max))`);
    return `(${both}) OR (${x} COLLATE ${EXACT} = ${y} AND DATALENGTH(${x}) = DATALENGTH(${y}))`;
  }
  if (BINARY_TYPES.has(base)) {
    const [x, y] = [a, b].map((v) => `CAST(${v} AS varbinary(max))`);
    return `(${both}) OR (${x} = ${y} AND DATALENGTH(${x}) = DATALENGTH(${y}))`;
  }
  return `(${both}) OR ${a} = ${b}`;
}

export interface VersionStatements {
  /** Ends the key's current version where it differs, then opens one where none is. */
  write: string;
  /** Ends the key's current version (a delete). */
  end: string;
}

/**
 * The statements for one row of `t`, its values bound as `param(column)`, the transaction's time as
 * `@now` and the key compared as the column's collation compares it (as the live table's key does).
 */
export function versionStatements(
  t: TargetTable,
  typeOf: (c: ColumnShape) => string,
  param: (c: ColumnShape) => string,
  prefix: string,
): VersionStatements {
  const h = t.history as { from: string; to: string };
  const name = `${bracket(t.schema ?? 'dbo')}.${bracket(t.name)}`;
  const columnOf = (k: string) => t.columns.find((c) => c.name === k) as ColumnShape;
  const current = `${t.key.map((k) => `${bracket(k)} = ${param(columnOf(k))}`).join(' AND ')} AND ${bracket(h.to)} IS NULL`;
  const same = comparedColumns(t).map(
    (c) => `(${sameValue(typeOf(c), bracket(c.name), `CAST(${param(c)} AS ${typeOf(c)})`)})`,
  );
  const end = `${prefix}UPDATE ${name} SET ${bracket(h.to)} = @now WHERE ${current}`;
  const written = writtenColumns(t);
  const open = `${prefix}INSERT INTO ${name} (${[...written.map((c) => bracket(c.name)), bracket(h.from)].join(', ')})
    SELECT ${[...written.map(param), '@now'].join(', ')} WHERE NOT EXISTS (SELECT 1 FROM ${name} WHERE ${current})`;
  // With nothing but the key to compare, a written key's version never differs: only opened.
  const differing = same.length ? `${end} AND CASE WHEN ${same.join(' AND ')} THEN 0 ELSE 1 END = 1;\n` : '';
  return { write: `${differing}${open}`, end };
}

/** The transaction's time, once per batch, as text SQL Server converts into datetime2(3) exactly. */
export const NOW_SQL = 'SELECT CONVERT(varchar(23), CAST(SYSUTCDATETIME() AS datetime2(3)), 126) AS now';
