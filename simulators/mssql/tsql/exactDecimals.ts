// decimal, numeric, money and smallmoney keep every digit, as SQL Server does (38 of them for a
// decimal). SQLite's NUMERIC affinity would turn a long value into a double (15 significant digits),
// so these columns have no affinity and each value is stored by this rule: as a number when a double
// holds it exactly (so it compares and sorts as a number), otherwise as its exact digits at the
// column's scale. Known limit: a value stored as digits compares with numbers as SQLite compares text.
import { type SqlType, type SqlValue } from '../tds/dataTypes/sqlTypes';
import {
  decimalToUnscaled,
  exactText,
  smallDecimalText,
  smallUnscaled,
  unscaledToDecimal,
} from '../tds/dataTypes/decimalText';
import type { TableInfo } from './schema';
import { isWord, solid, solidBefore, splitCommas, textOf, type Token } from './lexer';
import { castType } from './convert';
import { isClrType } from './clrValues';

export const isExactNumeric = (t: SqlType | undefined): boolean =>
  t !== undefined &&
  (t.name === 'decimal' || t.name === 'numeric' || t.name === 'money' || t.name === 'smallmoney');

/**
 * Types a value is converted into when written or compared, as SQL Server converts it: exact
 * numerics (text to digits), the CLR types (text parsed, binary checked) and uniqueidentifier (text
 * to its one form, so two spellings of a value, in either case or with braces, are one value).
 */
export const convertsOnWrite = (t: SqlType | undefined): boolean =>
  isExactNumeric(t) || isClrType(t) || t?.name === 'sql_variant' || t?.name === 'uniqueidentifier';

/** The scale a value of an exact numeric type is kept at. */
export const scaleOf = (t: SqlType): number => ('scale' in t ? t.scale : 4);

/** Whether a double holds this decimal text exactly (compared at the text's own digits). */
function doubleHolds(text: string, n: number): boolean {
  // A double JavaScript would show with an exponent (1e-10) is kept as digits: CONVERT shows those.
  if (!Number.isFinite(n) || /e/i.test(String(n))) return false;
  const places = (/\.(\d*)/.exec(text)?.[1] ?? '').length;
  return decimalToUnscaled(exactText(n), places) === decimalToUnscaled(text, places);
}

/** A value bound or written into a column of an exact numeric type, in the form SQLite should keep. */
export function storedExact(t: SqlType, v: SqlValue): SqlValue {
  if (typeof v !== 'string' || !/^\s*[+-]?(\d+\.?\d*|\.\d+)\s*$/.test(v)) return v;
  const text = unscaledToDecimal(decimalToUnscaled(v, scaleOf(t)), scaleOf(t));
  const n = Number(text);
  return doubleHolds(text, n) ? n : text;
}

/** A stored value as the exact digits at the type's scale (`12.50` for decimal(9,2)). */
export function exactDigits(t: SqlType, v: SqlValue): SqlValue {
  if (v === null || Buffer.isBuffer(v) || typeof v === 'boolean') return v;
  const scale = scaleOf(t);
  // A double's shortest digits are its exact ones unless shown with an exponent, which smallUnscaled
  // refuses; then (and past 2^53) the exact way below.
  const small = typeof v === 'string' || typeof v === 'number' ? smallUnscaled(String(v), scale) : null;
  if (small !== null) return smallDecimalText(small, scale);
  return unscaledToDecimal(decimalToUnscaled(exactText(v), scale), scale);
}

/** A numeric literal of T-SQL text that a double would round (more digits than it holds). */
export function roundedByDouble(literal: string): boolean {
  if (!/^(\d+\.?\d*|\.\d+)$/.test(literal)) return false;
  // An integer within bigint's range is SQLite's exact 64-bit integer already.
  if (!literal.includes('.') && BigInt(literal) <= 9223372036854775807n) return false;
  return !doubleHolds(literal, Number(literal));
}

const raw = (text: string): Token => ({ kind: 'op', text, value: text });

/**
 * A value written into a column of an exact numeric type, converted to the column's type as SQL Server
 * converts it on INSERT and UPDATE (rounded to the scale, 8115 past the precision), then kept by the
 * rule above, whatever the value's own type (text from an nvarchar parameter included).
 */
export function convertedInto(
  t: SqlType,
  value: Token[],
  params?: ReadonlyMap<string, { type: SqlType }>,
): Token[] {
  if (isWord(solid(value)[0], 'default') && solid(value).length === 1) return value;
  if (t.name === 'sql_variant') {
    const base = declaredType(value, params);
    const baseSql = base ? `'${JSON.stringify(base).replaceAll("'", "''")}'` : 'NULL';
    return [raw('TSQL_VARIANT('), ...value, raw(`, ${baseSql})`)];
  }
  return [raw('TSQL_CONVERT('), ...value, raw(`, '${JSON.stringify(t).replaceAll("'", "''")}', NULL)`)];
}

const joined = (parts: Token[][]): Token[] => parts.flatMap((p, i) => (i ? [raw(', '), ...p] : p));

/** One VALUES tuple's values, each converted into its column where that column is an exact numeric. */
export function exactValues(
  values: Token[],
  columns: readonly string[],
  table: TableInfo,
  params?: ReadonlyMap<string, { type: SqlType }>,
): Token[] {
  const parts = splitCommas(values);
  if (!parts.some((_, i) => convertsOnWrite(columnType(table, columns[i])))) return values;
  return joined(
    parts.map((p, i) => {
      const type = columnType(table, columns[i]);
      return type && convertsOnWrite(type) ? convertedInto(type, p, params) : p;
    }),
  );
}

/** UPDATE … SET: each assignment to an exact numeric column converted into it. */
export function exactAssignments(
  tokens: Token[],
  table: TableInfo,
  params?: ReadonlyMap<string, { type: SqlType }>,
): Token[] {
  if (!table.columns.some((c) => convertsOnWrite(c.type))) return tokens;
  let depth = 0;
  let set = -1;
  let end = tokens.length;
  tokens.forEach((t, i) => {
    if (t.kind === 'op' && t.text === '(') depth++;
    if (t.kind === 'op' && t.text === ')') depth--;
    if (depth !== 0) return;
    if (set < 0 && isWord(t, 'set')) set = i;
    else if (set >= 0 && end === tokens.length && isWord(t, 'where', 'from', 'output', 'option')) end = i;
  });
  if (set < 0) return tokens;
  const assignments = splitCommas(tokens.slice(set + 1, end)).map((a) => {
    const at = a.findIndex((t) => t.kind === 'op' && t.text === '=');
    const target = solid(a.slice(0, at)).at(-1);
    const type = columnType(table, target?.kind === 'quoted' ? target.value : target?.text);
    return at > 0 && type && convertsOnWrite(type)
      ? [...a.slice(0, at + 1), ...convertedInto(type, a.slice(at + 1), params)]
      : a;
  });
  return [...tokens.slice(0, set + 1), raw(' '), ...joined(assignments), raw(' '), ...tokens.slice(end)];
}

function columnType(table: TableInfo, name: string | undefined): SqlType | undefined {
  const lower = name?.toLowerCase();
  return table.columns.find((c) => c.name.toLowerCase() === lower)?.type;
}

const COMPARISONS = new Set(['=', '<>', '!=', '<', '>', '<=', '>=', '!<', '!>']);

/**
 * The exact numeric column a variable is compared with (`col = @p`, `t.col > @p`), among the columns
 * of the statement's tables: SQL Server converts the variable to the column's type, so a decimal given
 * as text compares as a number.
 */
export function comparedColumnType(
  tokens: readonly Token[],
  at: number,
  exactColumns: ReadonlyMap<string, SqlType>,
): SqlType | undefined {
  const [column, op] = solidBefore(tokens, at, 2);
  if (!op || op.kind !== 'op' || !COMPARISONS.has(op.text)) return undefined;
  if (column?.kind !== 'word' && column?.kind !== 'quoted') return undefined;
  return exactColumns.get((column.kind === 'quoted' ? column.value : column.text).toLowerCase());
}

/** The exact numeric columns of the tables a statement names, by lower-case name. */
export function exactColumnsOf(tables: readonly (TableInfo | undefined)[]): Map<string, SqlType> {
  const out = new Map<string, SqlType>();
  for (const t of tables)
    for (const c of t?.columns ?? []) if (convertsOnWrite(c.type)) out.set(c.name.toLowerCase(), c.type);
  return out;
}

/**
 * The type SQL Server gives a value written into a sql_variant: a parameter's declared type, a CAST or
 * CONVERT's target, a literal's own type (an integer is an int, or numeric past int; 1.50 is
 * numeric(3,2); 1E3 a float; 'x' a varchar, N'x' an nvarchar, 0x… a varbinary, each sized to itself).
 * Undefined for other expressions: their value's own type is used (convert.ts variantBase).
 */
function declaredType(value: Token[], params?: ReadonlyMap<string, { type: SqlType }>): SqlType | undefined {
  const s = solid(value);
  const [t] = s;
  if (!t) return undefined;
  if (s.length === 1) {
    if (t.kind === 'variable') return params?.get(t.text.toLowerCase())?.type;
    if (t.kind === 'string') return { name: 'varchar', length: Math.max(1, t.value.length) };
    if (t.kind === 'nstring') return { name: 'nvarchar', length: Math.max(1, t.value.length) };
    if (t.kind === 'number' && /^0x/i.test(t.text))
      return { name: 'varbinary', length: Math.max(1, Math.ceil((t.text.length - 2) / 2)) };
    if (t.kind === 'number') return literalType(t.text);
  }
  if (isWord(t, 'cast', 'convert') && s[1]?.text === '(' && s.at(-1)?.text === ')') {
    const inner = s.slice(2, -1);
    if (isWord(t, 'convert')) return castTypeOf(splitCommas(inner)[0] ?? []);
    const as = inner.findIndex((x) => isWord(x, 'as'));
    return as > 0 ? castTypeOf(inner.slice(as + 1)) : undefined;
  }
  return undefined;
}

function literalType(text: string): SqlType | undefined {
  if (/e/i.test(text)) return { name: 'float' };
  const [whole = '', fraction] = text.split('.');
  if (fraction === undefined) {
    const n = BigInt(whole);
    if (n <= 2147483647n) return { name: 'int' };
    return { name: 'numeric', precision: Math.min(38, whole.length), scale: 0 };
  }
  const digits = `${whole}${fraction}`.replace(/^0+(?=\d)/, '');
  return {
    name: 'numeric',
    precision: Math.min(38, Math.max(digits.length, fraction.length, 1)),
    scale: fraction.length,
  };
}

function castTypeOf(tokens: Token[]): SqlType | undefined {
  try {
    return castType(textOf(solid(tokens)));
  } catch {
    return undefined;
  }
}
