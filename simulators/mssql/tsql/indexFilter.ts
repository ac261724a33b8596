// The WHERE of a filtered index ("CREATE INDEX (Transact-SQL)", filter_predicate): conjuncts joined by
// AND, each a column compared with a constant (IS NULL, IS NOT NULL, =, <>, !=, >, >=, !>, <, <=, !<)
// or a column IN a list of constants. Anything else (OR, NOT, functions, two columns) is error 10735.
// The predicate becomes a SQLite partial index's WHERE, and the text sys.indexes shows.
import { statementError as error, quote } from './basics';
import { isOp, isWord, nameOf, splitCommas, solid, type Token } from './lexer';
import type { TableInfo } from './schema';

export interface IndexFilter {
  /** The predicate as SQLite's partial index takes it. */
  readonly sql: string;
  /** The predicate as SQL Server keeps it in sys.indexes.filter_definition, `([c] IS NULL)`. */
  readonly definition: string;
}

const OPERATORS: Readonly<Record<string, string>> = {
  '=': '=',
  '<>': '<>',
  '!=': '<>',
  '>': '>',
  '>=': '>=',
  '!>': '<=',
  '<': '<',
  '<=': '<=',
  '!<': '>=',
};

/** A constant as SQLite and as SQL Server's definition write it; undefined for anything else. */
function constantOf(tokens: Token[]): { sql: string; shown: string } | undefined {
  const s = solid(tokens);
  const negative = isOp(s[0], '-') ? '-' : '';
  const t = s[negative ? 1 : 0];
  if (s.length !== (negative ? 2 : 1) || !t) return undefined;
  if (t.kind === 'number') return { sql: `${negative}${t.text}`, shown: `(${negative}${t.text})` };
  if (!negative && (t.kind === 'string' || t.kind === 'nstring')) {
    const literal = `'${t.value.replaceAll("'", "''")}'`;
    return { sql: literal, shown: t.kind === 'nstring' ? `N${literal}` : literal };
  }
  return undefined;
}

/** The predicate's tokens (after WHERE) checked and translated; 10735 when it is not one SQL Server takes. */
export function indexFilter(tokens: Token[], table: TableInfo, index: string): IndexFilter {
  const refused = () =>
    error(10735, `Incorrect WHERE clause for filtered index '${index}' on table '${table.name}'.`);
  let s = solid(tokens);
  // Parentheses around the whole predicate are allowed, as in the definition SQL Server shows.
  while (isOp(s[0], '(') && isOp(s.at(-1), ')')) s = s.slice(1, -1);
  if (s.length === 0) throw refused();
  const conjuncts: Token[][] = [[]];
  for (const t of s) {
    if (isWord(t, 'or', 'not', 'between', 'like')) throw refused();
    if (isWord(t, 'and')) conjuncts.push([]);
    else conjuncts.at(-1)?.push(t);
  }
  const sql: string[] = [];
  const shown: string[] = [];
  for (const c of conjuncts) {
    const column = table.columns.find((x) => x.name.toLowerCase() === nameOf(c[0]).toLowerCase());
    if (!column || (c[0]?.kind !== 'word' && c[0]?.kind !== 'quoted')) throw refused();
    const name = { sql: quote(column.name), shown: `[${column.name.replaceAll(']', ']]')}]` };
    const rest = c.slice(1);
    if (isWord(rest[0], 'is')) {
      const not = isWord(rest[1], 'not');
      if (rest.length !== (not ? 3 : 2) || !isWord(rest.at(-1), 'null')) throw refused();
      sql.push(`${name.sql} IS ${not ? 'NOT ' : ''}NULL`);
      shown.push(`${name.shown} IS ${not ? 'NOT ' : ''}NULL`);
      continue;
    }
    if (isWord(rest[0], 'in')) {
      if (!isOp(rest[1], '(') || !isOp(rest.at(-1), ')')) throw refused();
      const list = splitCommas(rest.slice(2, -1)).map(constantOf);
      if (list.length === 0 || list.some((v) => v === undefined)) throw refused();
      const values = list as { sql: string; shown: string }[];
      sql.push(`${name.sql} IN (${values.map((v) => v.sql).join(', ')})`);
      shown.push(`${name.shown} IN (${values.map((v) => v.shown).join(',')})`);
      continue;
    }
    const op = rest[0]?.kind === 'op' ? OPERATORS[rest[0].text] : undefined;
    const value = constantOf(rest.slice(1));
    if (!op || !value) throw refused();
    sql.push(`${name.sql} ${op} ${value.sql}`);
    shown.push(`${name.shown}${rest[0]?.text ?? op}${value.shown}`);
  }
  return { sql: sql.join(' AND '), definition: `(${shown.join(' AND ')})` };
}
