// T-SQL type names ↔ the sandbox's wire types, and how a column is declared in SQLite: the T-SQL type
// kept whole in the declared type, behind a word that gives SQLite the affinity to store it by:
// integers as 64-bit integers, temporal values and GUIDs as canonical text (which sorts right),
// binary as blobs, decimals and money without affinity (numbers, or exact digits past a double's).
import type { SqlType } from '../tds/dataTypes/sqlTypes';

export class TypeNameError extends Error {}

const PREFIX = 'tsql ';

export function parseTypeName(text: string): SqlType {
  const m = /^\s*(\w+)\s*(?:\(\s*(max|\d+)\s*(?:,\s*(\d+)\s*)?\))?\s*$/i.exec(text);
  if (!m) throw new TypeNameError(`Cannot find data type ${text.trim()}.`);
  const name = (m[1] ?? '').toLowerCase();
  const a = m[2]?.toLowerCase();
  const b = m[3];
  const length = (fallback: number): number | 'max' => (a === 'max' ? 'max' : a ? Number(a) : fallback);
  switch (name) {
    case 'bit':
    case 'tinyint':
    case 'smallint':
    case 'int':
    case 'bigint':
    case 'real':
    case 'date':
    case 'datetime':
    case 'uniqueidentifier':
    case 'money':
    case 'smallmoney':
    case 'rowversion':
    case 'xml':
    case 'smalldatetime':
    case 'text':
    case 'ntext':
    case 'image':
    case 'sql_variant':
    case 'hierarchyid':
    case 'geography':
    case 'geometry':
      return { name };
    case 'timestamp':
      return { name: 'rowversion' };
    // The one-word ISO synonyms ("Data type synonyms (Transact-SQL)"): the base type, as if named.
    case 'integer':
      return { name: 'int' };
    case 'character':
      return { name: 'char', length: length(1) };
    case 'float':
      return a && Number(a) <= 24 ? { name: 'real' } : { name: 'float' };
    case 'decimal':
    case 'numeric':
    case 'dec':
      return {
        name: name === 'numeric' ? 'numeric' : 'decimal',
        precision: a ? Number(a) : 18,
        scale: b ? Number(b) : 0,
      };
    case 'char':
    case 'varchar':
    case 'nchar':
    case 'nvarchar':
    case 'binary':
    case 'varbinary':
      return { name, length: length(1) };
    case 'time':
    case 'datetime2':
    case 'datetimeoffset':
      return { name, scale: a ? Number(a) : 7 };
    case 'sysname':
      return { name: 'nvarchar', length: 128 };
    default:
      throw new TypeNameError(`Cannot find data type ${m[1] ?? text}.`);
  }
}

export function typeText(t: SqlType): string {
  if ('precision' in t) return `${t.name}(${t.precision},${t.scale})`;
  if ('length' in t) return `${t.name}(${t.length})`;
  if ('scale' in t) return `${t.name}(${t.scale})`;
  return t.name;
}

const AFFINITY: Partial<Record<SqlType['name'], string>> = {
  bit: 'int',
  tinyint: 'int',
  smallint: 'int',
  int: 'int',
  bigint: 'int',
  float: 'real',
  real: 'real',
  binary: 'blob',
  varbinary: 'blob',
  // Decimals and money without affinity: a value a double holds exactly is stored as a number (it
  // compares and sorts as one); longer ones as their exact digits (exactDecimals.ts), never rounded.
  decimal: 'blob',
  numeric: 'blob',
  money: 'blob',
  smallmoney: 'blob',
  rowversion: 'blob',
  image: 'blob',
  sql_variant: 'blob',
  // CLR values are their stored bytes: hierarchyid's sort as the hierarchy does.
  hierarchyid: 'blob',
  geography: 'blob',
  geometry: 'blob',
};

/** The SQLite declared type of a column of this T-SQL type. */
export function declaredType(t: SqlType): string {
  return `${PREFIX}${AFFINITY[t.name] ?? 'text'} ${typeText(t)}`;
}

/** The T-SQL type back from a SQLite declared type; undefined for expressions and foreign columns. */
export function typeFromDeclared(declared: string | null): SqlType | undefined {
  if (!declared?.startsWith(PREFIX)) return undefined;
  return parseTypeName(declared.slice(PREFIX.length).replace(/^\w+\s+/, ''));
}
