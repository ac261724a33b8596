// The types SQL Server gives a SELECT's expression columns that SQLite cannot report: a CAST or
// CONVERT is of its target type ("CAST and CONVERT (Transact-SQL)"), CHANGE_TRACKING_IS_COLUMN_IN_MASK
// is bit. SQLite declares a type only for a column read as it is stored, so without these the sandbox
// would type such a column by its values (a bit as float, a varchar(41) as nvarchar(max)).
import type { SqlType } from '../tds/dataTypes/sqlTypes';
import { castType } from './convert';
import { closing, isOp, isWord, solid, splitCommas, textOf, type Token } from './lexer';

/** Words that end a select list at its own level. */
const LIST_END = new Set([
  'from',
  'into',
  'where',
  'group',
  'having',
  'order',
  'union',
  'except',
  'intersect',
  'option',
]);

/**
 * Target types whose converted values the sandbox stores as a column of that type stores them, so they
 * read back as such a column reads. Others (sql_variant, CLR types, xml, the old LOB types) keep the
 * type their values suggest.
 */
const TYPED = new Set([
  'bit',
  'tinyint',
  'smallint',
  'int',
  'bigint',
  'decimal',
  'numeric',
  'float',
  'real',
  'char',
  'varchar',
  'nchar',
  'nvarchar',
  'binary',
  'varbinary',
  'date',
  'time',
  'datetime2',
  'uniqueidentifier',
]);

/**
 * The type of each column of the statement's result by position where SQL Server fixes it by the
 * expression and SQLite cannot see it; undefined for the rest, and for the whole statement when its
 * columns cannot be counted from its text (`*`, a set operation).
 */
export function selectListTypes(tokens: Token[]): (SqlType | undefined)[] | undefined {
  const s = solid(tokens);
  let start = -1;
  let depth = 0;
  // The outermost SELECT: after any common table expressions, at depth 0.
  for (let k = 0; k < s.length; k++) {
    if (isOp(s[k], '(')) depth++;
    else if (isOp(s[k], ')')) depth--;
    else if (depth === 0 && isWord(s[k], 'select')) {
      start = k + 1;
      break;
    }
  }
  if (start < 0) return undefined;
  if (isWord(s[start], 'distinct', 'all')) start++;
  if (isWord(s[start], 'top')) {
    start += isOp(s[start + 1], '(') ? closing(s, start + 1) - start + 1 : 2;
    if (isWord(s[start], 'percent')) start++;
    if (isWord(s[start], 'with') && isWord(s[start + 1], 'ties')) start += 2;
  }
  let end = s.length;
  depth = 0;
  for (let k = start; k < s.length; k++) {
    if (isOp(s[k], '(')) depth++;
    else if (isOp(s[k], ')')) depth--;
    else if (depth === 0 && s[k]?.kind === 'word' && LIST_END.has((s[k] as Token).text.toLowerCase())) {
      // A set operation combines the types of both sides: left to the values.
      if (isWord(s[k], 'union', 'except', 'intersect')) return undefined;
      end = end === s.length ? k : end;
    }
  }
  const items = splitCommas(s.slice(start, end));
  if (items.some((item) => isOp(item.at(-1), '*'))) return undefined;
  return items.map(expressionType);
}

/**
 * The parts of CAST(expr AS type) or CONVERT(type, expr[, style]) between its parentheses; for a CAST
 * without AS at its own level, no type.
 */
export function conversionParts(
  isCast: boolean,
  inner: Token[],
): { expr: Token[]; type: Token[]; style: Token[] | undefined } {
  if (!isCast) {
    const [type = [], expr = [], style] = splitCommas(inner);
    return { expr, type, style };
  }
  let depth = 0;
  let as = -1;
  inner.forEach((x, k) => {
    if (isOp(x, '(')) depth++;
    if (isOp(x, ')')) depth--;
    if (depth === 0 && isWord(x, 'as')) as = k;
  });
  return as < 0
    ? { expr: inner, type: [], style: undefined }
    : { expr: inner.slice(0, as), type: inner.slice(as + 1), style: undefined };
}

/**
 * The type of a select-list item that is one CAST, CONVERT, CHANGE_TRACKING_IS_COLUMN_IN_MASK or
 * SYSDATETIME call.
 */
function expressionType(item: Token[]): SqlType | undefined {
  const call = item[0];
  if (!isOp(item[1], '(')) return undefined;
  const close = closing(item, 1);
  // What follows the call may only be its column name: `AS name`, or the name alone.
  const rest = item.slice(close + 1);
  const aliasOnly =
    rest.length === 0 ||
    (rest.length === 1 && rest[0]?.kind !== 'op') ||
    (rest.length === 2 && isWord(rest[0], 'as'));
  if (!aliasOnly) return undefined;
  if (isWord(call, 'change_tracking_is_column_in_mask')) return { name: 'bit' };
  // "SYSDATETIME (Transact-SQL)": datetime2(7), as SYSUTCDATETIME.
  if (isWord(call, 'sysdatetime', 'sysutcdatetime')) return castType('datetime2(7)');
  if (!isWord(call, 'cast', 'convert')) return undefined;
  const { type: typeTokens } = conversionParts(isWord(call, 'cast'), item.slice(2, close));
  if (typeTokens.length === 0) return undefined;
  try {
    // The type's text as the translator reads it (conversion in dml.ts), so both name the same type.
    const type = castType(textOf(solid(typeTokens)));
    return TYPED.has(type.name) ? type : undefined;
  } catch {
    // An unknown type: the translation refuses the statement with SQL Server's error, not this.
    return undefined;
  }
}
