// CREATE INDEX and DROP INDEX in the sandbox ("CREATE INDEX (Transact-SQL)"): an index on a table or a
// session's temporary table, kept as a SQLite index so reads by its columns are seeks, and listed in
// sys.indexes / sys.index_columns for permanent tables. SQL Server names indexes per table, SQLite
// per schema, so the SQLite name carries the table's.
import type { StatementResult } from '../tds/hostSession';
import { statementError as error } from './basics';
import { quote } from './basics';
import type { DatabaseHandle, TableInfo } from './schema';
import { dotted, isOp, isWord, nameOf, solid, splitCommas, syntax, type Token } from './lexer';
import { indexFilter } from './indexFilter';

/** The dotted name at s[i] (schema.table, or #temp): its parts and the index after it. */
function dottedAt(s: Token[], i: number): { parts: string[]; next: number } {
  const found = dotted(s, i);
  if (found.parts.length === 0) throw syntax(s[i]);
  return found;
}

function tableFor(db: DatabaseHandle, parts: string[]): TableInfo {
  const table = db.table(parts.length >= 2 ? parts.at(-2) : undefined, parts.at(-1) ?? '');
  if (!table)
    throw error(
      1088,
      `Cannot find the object "${parts.join('.')}" because it does not exist or you do not have permissions.`,
      12,
    );
  return table;
}

const isTemp = (table: TableInfo) => table.name.startsWith('#');
const sqliteName = (table: TableInfo, index: string) =>
  isTemp(table) ? `temp.${quote(`__ix.${table.name}.${index}`)}` : quote(`__ix.${table.objectId}.${index}`);

function exists(db: DatabaseHandle, table: TableInfo, index: string): boolean {
  const name = `__ix.${isTemp(table) ? table.name : table.objectId}.${index}`;
  const master = isTemp(table) ? 'sqlite_temp_master' : 'sqlite_master';
  const found = db.db
    .prepare<[string], { n: bigint }>(
      `SELECT count(*) AS n FROM ${master} WHERE type = 'index' AND name = ? COLLATE NOCASE`,
    )
    .get(name);
  return (found?.n ?? 0n) > 0n || table.keys.some((k) => k.name.toLowerCase() === index.toLowerCase());
}

/** The tokens of a filtered index's WHERE: up to its WITH (…) or ON filegroup, if any. */
function filterTokens(rest: Token[]): Token[] | undefined {
  const where = rest.findIndex((t) => isWord(t, 'where'));
  if (where < 0) return undefined;
  let depth = 0;
  const after = rest.slice(where + 1);
  const end = after.findIndex((t) => {
    if (isOp(t, '(')) depth++;
    if (isOp(t, ')')) depth--;
    return depth === 0 && isWord(t, 'with', 'on');
  });
  return end < 0 ? after : after.slice(0, end);
}

/** CREATE [UNIQUE] [CLUSTERED | NONCLUSTERED] INDEX name ON table (col [ASC | DESC], …) [INCLUDE (…)] [WHERE …] [WITH (…)] */
export function createIndex(db: DatabaseHandle, tokens: Token[]): StatementResult {
  const s = solid(tokens);
  let i = 1;
  const unique = isWord(s[i], 'unique') ? (i++, true) : false;
  const clustered = isWord(s[i], 'clustered')
    ? (i++, true)
    : isWord(s[i], 'nonclustered')
      ? (i++, false)
      : false;
  if (!isWord(s[i], 'index')) throw syntax(s[i]);
  const name = nameOf(s[i + 1]);
  if (!isWord(s[i + 2], 'on')) throw syntax(s[i + 2]);
  const { parts, next } = dottedAt(s, i + 3);
  const table = tableFor(db, parts);
  if (!isOp(s[next], '(')) throw syntax(s[next]);
  const close = s.findIndex((t, k) => k > next && isOp(t, ')'));
  if (close < 0) throw syntax(undefined);
  const columns = splitCommas(s.slice(next + 1, close)).map((c) => {
    const col = solid(c);
    const column = table.columns.find((x) => x.name.toLowerCase() === nameOf(col[0]).toLowerCase());
    if (!column)
      throw error(1911, `Column name '${nameOf(col[0])}' does not exist in the target table or view.`);
    return { name: column.name, descending: isWord(col[1], 'desc') };
  });
  const predicate = filterTokens(s.slice(close + 1));
  const filter = predicate ? indexFilter(predicate, table, name) : undefined;
  if (exists(db, table, name))
    throw error(
      1913,
      `The operation failed because an index or statistics with name '${name}' already exists on table '${isTemp(table) ? table.name : `${table.schema}.${table.name}`}'.`,
    );
  const clusteredNow =
    table.keys.find((k) => k.clustered) ?? (clustered ? clusteredIndexOf(db, table) : undefined);
  if (clustered && clusteredNow)
    throw error(
      1902,
      `Cannot create more than one clustered index on table '${table.name}'. Drop the existing clustered index '${clusteredNow.name}' before creating another.`,
      3,
    );
  const list = columns.map((c) => `${quote(c.name)}${c.descending ? ' DESC' : ''}`).join(', ');
  db.db.transaction(() => {
    try {
      db.db.exec(
        `CREATE ${unique ? 'UNIQUE ' : ''}INDEX ${sqliteName(table, name)} ON ${table.sqlName} (${list})${filter ? ` WHERE ${filter.sql}` : ''}`,
      );
    } catch {
      throw error(
        1505,
        `The CREATE UNIQUE INDEX statement terminated because a duplicate key was found for the object name '${table.schema}.${table.name}' and the index name '${name}'.`,
      );
    }
    if (isTemp(table)) return;
    const indexId = clustered ? 1 : nextIndexId(db, table);
    const row = db.db.prepare('INSERT INTO __indexes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
    columns.forEach((c, k) =>
      row.run(
        table.objectId,
        name,
        indexId,
        unique ? 1 : 0,
        clustered ? 1 : 0,
        k + 1,
        c.name,
        c.descending ? 1 : 0,
        filter?.definition ?? null,
      ),
    );
  })();
  return {};
}

function clusteredIndexOf(db: DatabaseHandle, table: TableInfo): { name: string } | undefined {
  if (isTemp(table)) return undefined;
  return db.db
    .prepare<[number], { name: string }>('SELECT name FROM __indexes WHERE object_id = ? AND clustered = 1')
    .get(table.objectId);
}

export function nextIndexId(db: DatabaseHandle, table: TableInfo): number {
  const taken = db.db
    .prepare<[number, number], { id: bigint | null }>(
      'SELECT max(index_id) AS id FROM (SELECT index_id FROM __keys WHERE object_id = ? UNION ALL SELECT index_id FROM __indexes WHERE object_id = ?)',
    )
    .get(table.objectId, table.objectId)?.id;
  return Math.max(2, Number(taken ?? 1) + 1);
}

/** DROP INDEX [IF EXISTS] name ON table, or the older DROP INDEX table.name. */
export function dropIndex(db: DatabaseHandle, tokens: Token[]): StatementResult {
  const s = solid(tokens);
  let i = 2;
  const ifExists = isWord(s[i], 'if') && isWord(s[i + 1], 'exists') ? ((i += 2), true) : false;
  let name: string;
  let parts: string[];
  if (isWord(s[i + 1], 'on')) {
    name = nameOf(s[i]);
    parts = dottedAt(s, i + 2).parts;
  } else {
    const dotted = dottedAt(s, i).parts;
    name = dotted.at(-1) ?? '';
    parts = dotted.slice(0, -1);
  }
  const table = db.table(parts.length >= 2 ? parts.at(-2) : undefined, parts.at(-1) ?? '');
  if (!table || !exists(db, table, name)) {
    if (ifExists) return {};
    throw error(
      3701,
      `Cannot drop the index '${[...parts, name].join('.')}', because it does not exist or you do not have permission.`,
      7,
    );
  }
  if (table.keys.some((k) => k.name.toLowerCase() === name.toLowerCase()))
    throw error(
      3723,
      `An explicit DROP INDEX is not allowed on index '${table.name}.${name}'. It is being used for ${table.keys.find((k) => k.name.toLowerCase() === name.toLowerCase())?.kind === 'PK' ? 'PRIMARY KEY' : 'UNIQUE KEY'} constraint enforcement.`,
    );
  db.db.transaction(() => {
    db.db.exec(`DROP INDEX ${sqliteName(table, name)}`);
    if (!isTemp(table))
      db.db
        .prepare('DELETE FROM __indexes WHERE object_id = ? AND name = ? COLLATE NOCASE')
        .run(table.objectId, name);
  })();
  return {};
}
