// DEFAULT constraints by name, as SSMS scripts them: ALTER TABLE t ADD [CONSTRAINT n] DEFAULT (expr)
// FOR column, a named column default in CREATE TABLE (`CONSTRAINT DF_t_c DEFAULT ((0))`), and DROP
// CONSTRAINT n ("ALTER TABLE (Transact-SQL)", "Specify default values for columns"). A default is
// SQLite's own named column default in the table's CREATE TABLE text; adding or dropping one makes the
// table again (rows kept).
import { physicalName, statementError as error } from './basics';
import { quote } from './basics';
import type { DatabaseHandle, TableInfo } from './schema';
import { isWord, nameOf, type Token } from './lexer';
import { remake } from './remake';
import { checkSql, generatedName } from './constraintText';

const tableText = (db: DatabaseHandle, table: TableInfo) =>
  db.db
    .prepare<[string], { sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?")
    .get(physicalName(table.schema, table.name))?.sql ?? '';

/** The named defaults of a table's CREATE TABLE text. */
export const defaultNames = (sql: string): string[] =>
  [...sql.matchAll(/CONSTRAINT "((?:[^"]|"")+)" DEFAULT /g)].map((m) => (m[1] ?? '').replaceAll('""', '"'));

/** Where a column's definition starts in the CREATE TABLE text, and where its type (and NOT NULL) end. */
function columnAt(sql: string, column: string): { start: number; typeEnd: number } | undefined {
  const m = new RegExp(
    `[(,]\\s*(${quote(column).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} "[^"]*"( NOT NULL)?)`,
    'i',
  ).exec(sql);
  if (!m || m[1] === undefined) return undefined;
  const start = m.index + m[0].length - m[1].length;
  return { start, typeEnd: start + m[1].length };
}

/** The end of a parenthesised expression starting at `open`, quotes skipped. */
function closeAt(sql: string, open: number): number {
  let depth = 0;
  for (let k = open; k < sql.length; k++) {
    if (sql[k] === "'") k = sql.indexOf("'", k + 1);
    else if (sql[k] === '(') depth++;
    else if (sql[k] === ')' && --depth === 0) return k;
  }
  return sql.length - 1;
}

/**
 * The last position of a default's value at `at`: a parenthesised expression (CREATE TABLE, ADD …
 * FOR), or the literal SQLite's ADD COLUMN takes ('text' with '' inside, a number).
 */
function valueEnd(sql: string, at: number): number {
  if (sql[at] === '(') return closeAt(sql, at);
  if (sql[at] === "'") {
    let k = at + 1;
    while (k < sql.length && !(sql[k] === "'" && sql[k + 1] !== "'")) k += sql[k] === "'" ? 2 : 1;
    return k;
  }
  const m = /^[^\s,)]+/.exec(sql.slice(at));
  return at + (m?.[0].length ?? 1) - 1;
}

/** ADD [CONSTRAINT name] DEFAULT expr FOR column, from the DEFAULT at s[at]. */
export function addDefault(
  db: DatabaseHandle,
  table: TableInfo,
  name: string | undefined,
  s: Token[],
  at: number,
  change: (work: () => void) => void,
): void {
  const forAt = s.findIndex((t, k) => k > at && isWord(t, 'for'));
  if (forAt < 0) throw error(102, `Incorrect syntax near '${s.at(-1)?.text ?? 'DEFAULT'}'.`);
  const column = nameOf(s[forAt + 1]);
  const known = table.columns.find((c) => c.name.toLowerCase() === column.toLowerCase());
  const sql = tableText(db, table);
  const place = known && columnAt(sql, known.name);
  if (!known || !place)
    throw error(
      1752,
      `Column '${column}' in table '${table.name}' is invalid for creating a default constraint.`,
    );
  if (/^ (CONSTRAINT "(?:[^"]|"")+" )?DEFAULT /.test(sql.slice(place.typeEnd)))
    throw error(1781, 'Column already has a DEFAULT bound to it.');
  const constraint = name ?? generatedName('DF', table.name, known.name);
  const expression = checkSql(s.slice(at + 1, forAt));
  change(() =>
    remake(db, table, (text) => {
      const p = columnAt(text, known.name) ?? place;
      return `${text.slice(0, p.typeEnd)} CONSTRAINT ${quote(constraint)} DEFAULT (${expression})${text.slice(p.typeEnd)}`;
    }),
  );
}

/** DROP CONSTRAINT of a named default: true when the table had it. */
export function dropDefault(
  db: DatabaseHandle,
  table: TableInfo,
  name: string,
  change: (work: () => void) => void,
): boolean {
  const found = defaultNames(tableText(db, table)).find((n) => n.toLowerCase() === name.toLowerCase());
  if (!found) return false;
  change(() =>
    remake(db, table, (text) => {
      const head = ` CONSTRAINT ${quote(found)} DEFAULT `;
      const start = text.indexOf(head);
      if (start < 0) return text;
      return text.slice(0, start) + text.slice(valueEnd(text, start + head.length) + 1);
    }),
  );
  return true;
}
