// The T-SQL of SQL Server's CLR types, rewritten into calls of the sandbox's functions before a
// statement is translated: static methods (`hierarchyid::Parse('/1/')`, `geography::Point(lat, long,
// srid)`, `geometry::STGeomFromText(wkt, srid)`), instance methods and properties of a column
// (`t.Node.ToString()`, `Shape.STAsText()`, `Shape.STSrid`, `Node.GetLevel()`), and CAST/CONVERT of
// such a column or of a sql_variant column, which need its type: SQLite sees only the stored bytes.
import type { SqlType } from '../tds/dataTypes/sqlTypes';
import { closing, isOp, isWord, solid, splitCommas, syntax, textOf, type Token } from './lexer';
import { castType } from './convert';
import { isClrType, type ClrTypeName } from './clrValues';

// Real tokens, so that parentheses and commas still pair up for the translation that follows.
const op = (text: string): Token => ({ kind: 'op', text, value: text });
const word = (text: string): Token => ({ kind: 'word', text, value: text });
const literal = (value: string): Token => ({
  kind: 'string',
  text: `'${value.replaceAll("'", "''")}'`,
  value,
});
const call = (name: string, ...args: Token[][]): Token[] => [
  word(name),
  op('('),
  ...args.flatMap((a, i) => (i ? [op(','), ...a] : a)),
  op(')'),
];

export const STATIC_METHODS = new Set(['parse', 'getroot', 'point', 'stgeomfromtext', 'stgeomfromwkb']);
export const INSTANCE_METHODS = new Set(['tostring', 'stastext', 'getlevel', 'stx', 'sty', 'lat', 'long']);
const PROPERTIES = new Set(['stsrid', 'stx', 'sty', 'lat', 'long']);

type Typed = ClrTypeName | 'sql_variant';

/** The CLR and sql_variant columns of the statement's tables, by lower-case name. */
export function clrColumnsOf(
  tables: readonly ({ columns: readonly { name: string; type: SqlType }[] } | undefined)[],
): Map<string, Typed> {
  const out = new Map<string, Typed>();
  for (const t of tables)
    for (const c of t?.columns ?? [])
      if (isClrType(c.type) || c.type.name === 'sql_variant')
        out.set(c.name.toLowerCase(), c.type.name as Typed);
  return out;
}

const nameOfToken = (t: Token | undefined) =>
  t?.kind === 'quoted' ? t.value.toLowerCase() : t?.kind === 'word' ? t.text.toLowerCase() : undefined;

/** Where a column reference ending at `end` starts (`t.[Node]`, `dbo.T.Node`), walking back over dots. */
function refStart(s: Token[], end: number): number {
  let k = end;
  while (isOp(s[k - 1], '.') && nameOfToken(s[k - 2]) !== undefined) k -= 2;
  return k;
}

/** The statement with CLR calls rewritten; the tokens as given when there are none. */
export function clrCalls(tokens: Token[], columns: ReadonlyMap<string, Typed>): Token[] {
  if (columns.size === 0 && !tokens.some((t) => isOp(t, '::'))) return tokens;
  const s = solid(tokens);
  const out: Token[] = [];
  for (let i = 0; i < s.length; i++) {
    const t = s[i] as Token;
    // type::Method(args)
    if (isWord(t, 'hierarchyid', 'geography', 'geometry') && isOp(s[i + 1], '::')) {
      const method = nameOfToken(s[i + 2]) ?? '';
      if (!STATIC_METHODS.has(method) || !isOp(s[i + 3], '(')) throw syntax(s[i + 2]);
      const close = closing(s, i + 3);
      const args = s.slice(i + 4, close);
      const given = args.length ? [clrCalls(args, columns)] : [];
      out.push(...call('TSQL_CLR_STATIC', [literal(t.text.toLowerCase())], [literal(method)], ...given));
      i = close;
      continue;
    }
    // column.Method() or column.Property
    const member = nameOfToken(s[i + 2]);
    const type = columns.get(nameOfToken(t) ?? '');
    if (
      type &&
      type !== 'sql_variant' &&
      isOp(s[i + 1], '.') &&
      member &&
      (INSTANCE_METHODS.has(member) || PROPERTIES.has(member))
    ) {
      const start = refStart(s, i);
      const ref = s.slice(start, i + 1);
      out.splice(out.length - (i - start), i - start);
      const called = isOp(s[i + 3], '(');
      const close = called ? closing(s, i + 3) : i + 2;
      out.push(...call('TSQL_CLR_METHOD', ref, [literal(type)], [literal(member)]));
      i = close;
      continue;
    }
    // CAST(column AS type), CONVERT(type, column[, style]) of a CLR column: the conversion knows its type.
    if (isWord(t, 'cast', 'convert') && isOp(s[i + 1], '(')) {
      const close = closing(s, i + 1);
      const inner = s.slice(i + 2, close);
      const cast = isWord(t, 'cast');
      const as = inner.findIndex((x) => isWord(x, 'as'));
      const parts = cast ? [inner.slice(as + 1), inner.slice(0, as)] : splitCommas(inner);
      const [target = [], expr = [], style] = parts;
      const last = expr.at(-1);
      const clr = columns.get(nameOfToken(last) ?? '');
      if (clr && (!cast || as > 0) && refStart(expr, expr.length - 1) === 0) {
        const to = JSON.stringify(castType(textOf(target)));
        out.push(...call('TSQL_CLR_CONVERT', expr, [literal(clr)], [literal(to)], style ?? [word('NULL')]));
        i = close;
        continue;
      }
    }
    out.push(t);
  }
  const space: Token = { kind: 'space', text: ' ', value: ' ' };
  // Names stay dotted without spaces (dbo.T, t.col), as the translation reads them.
  return out.flatMap((t, k) => (k && !isOp(t, '.') && !isOp(out[k - 1], '.') ? [space, t] : [t]));
}
