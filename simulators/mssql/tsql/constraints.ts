// Constraints in the sandbox ("ALTER TABLE (Transact-SQL)", "Unique constraints and check
// constraints"): CHECK at column and table level, UNIQUE and PRIMARY KEY added to a table, and DROP
// CONSTRAINT. A CHECK is SQLite's own named CHECK (so every write is checked, 547 when one fails); a
// constraint added later becomes part of the table made again, or a unique index for a key.
import type { StatementResult } from '../tds/hostSession';
import { physicalName, statementError as error } from './basics';
import { quote } from './basics';
import type { DatabaseHandle, TableInfo } from './schema';
import { isOp, isWord, nameOf, solid, splitCommas, syntax, type Token } from './lexer';
import { isTracked } from './changeTracking';
import { nextIndexId } from './indexes';
import { remake } from './remake';
import { checkAt, generatedName } from './constraintText';
import { addDefault, defaultNames, dropDefault } from './defaults';

export interface CheckDef {
  name: string;
  sql: string;
}

const conflict = (db: DatabaseHandle, table: TableInfo, name: string) =>
  error(
    547,
    `The ALTER TABLE statement conflicted with the CHECK constraint "${name}". The conflict occurred in database "${db.name}", table "${table.schema}.${table.name}".`,
    0,
  );

const checkNames = (sql: string): string[] =>
  [...sql.matchAll(/CONSTRAINT "((?:[^"]|"")+)" CHECK \(/g)].map((m) => (m[1] ?? '').replaceAll('""', '"'));

function tableSql(db: DatabaseHandle, table: TableInfo): string {
  return (
    db.db
      .prepare<[string], { sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?")
      .get(physicalName(table.schema, table.name))?.sql ?? ''
  );
}

/**
 * ALTER TABLE t [WITH CHECK] ADD [CONSTRAINT n] CHECK (…) | UNIQUE (…) | PRIMARY KEY (…), and
 * ALTER TABLE t DROP CONSTRAINT [IF EXISTS] n, from the token after the table's name; undefined for
 * anything else.
 */
export function alterConstraints(
  db: DatabaseHandle,
  table: TableInfo,
  s: Token[],
  next: number,
  change: (work: () => void) => void,
): StatementResult | undefined {
  let i = next;
  if (isWord(s[i], 'with') && isWord(s[i + 1], 'check', 'nocheck')) {
    if (isWord(s[i + 1], 'nocheck'))
      throw error(50000, 'The sandbox does not support this statement yet: ALTER TABLE … WITH NOCHECK');
    i += 2;
  }
  if (isWord(s[i], 'drop') && isWord(s[i + 1], 'constraint')) {
    const ifExists = isWord(s[i + 2], 'if') && isWord(s[i + 3], 'exists');
    return dropConstraint(db, table, nameOf(s[i + (ifExists ? 4 : 2)]), ifExists, change);
  }
  if (!isWord(s[i], 'add')) return undefined;
  i++;
  let name: string | undefined;
  if (isWord(s[i], 'constraint')) {
    name = nameOf(s[i + 1]);
    i += 2;
  }
  if (name && nameTaken(db, table, name))
    throw error(2714, `There is already an object named '${name}' in the database.`, 5);
  if (isWord(s[i], 'default')) {
    addDefault(db, table, name, s, i, change);
    return {};
  }
  if (isWord(s[i], 'check')) {
    const check = { name: name ?? generatedName('CK', table.name), sql: checkAt(s, i).sql };
    change(() => {
      try {
        remake(
          db,
          table,
          (sql) => `${sql.replace(/\)\s*$/, '')}, CONSTRAINT ${quote(check.name)} CHECK (${check.sql}))`,
        );
      } catch (e) {
        if (/CHECK constraint failed/.test(String(e))) throw conflict(db, table, check.name);
        throw e;
      }
    });
    return {};
  }
  if (isWord(s[i], 'unique') || (isWord(s[i], 'primary') && isWord(s[i + 1], 'key'))) {
    const kind = isWord(s[i], 'unique') ? 'UQ' : 'PK';
    let k = kind === 'UQ' ? i + 1 : i + 2;
    const clustered = isWord(s[k], 'clustered')
      ? (k++, true)
      : isWord(s[k], 'nonclustered')
        ? (k++, false)
        : kind === 'PK';
    if (!isOp(s[k], '(')) throw syntax(s[k]);
    const close = s.findIndex((t, x) => x > k && isOp(t, ')'));
    const columns = splitCommas(s.slice(k + 1, close)).map((c) => nameOf(solid(c)[0]));
    addKey(db, table, { name: name ?? generatedName(kind, table.name), kind, clustered, columns }, change);
    return {};
  }
  return undefined;
}

function nameTaken(db: DatabaseHandle, table: TableInfo, name: string): boolean {
  const lower = name.toLowerCase();
  return (
    table.keys.some((k) => k.name.toLowerCase() === lower) ||
    [...checkNames(tableSql(db, table)), ...defaultNames(tableSql(db, table))].some(
      (n) => n.toLowerCase() === lower,
    )
  );
}

function addKey(
  db: DatabaseHandle,
  table: TableInfo,
  key: { name: string; kind: 'PK' | 'UQ'; clustered: boolean; columns: string[] },
  change: (work: () => void) => void,
): void {
  if (key.kind === 'PK' && table.keys.some((k) => k.kind === 'PK'))
    throw error(1779, `Table '${table.name}' already has a primary key defined on it.`, 0);
  const columns = key.columns.map((name) => {
    const column = table.columns.find((c) => c.name.toLowerCase() === name.toLowerCase());
    if (!column) throw error(1911, `Column name '${name}' does not exist in the target table or view.`);
    if (key.kind === 'PK' && column.nullable)
      throw error(
        8111,
        `Cannot define PRIMARY KEY constraint on nullable column in table '${table.name}'.`,
        1,
      );
    return column.name;
  });
  const clusteredNow =
    table.keys.find((k) => k.clustered)?.name ??
    db.db
      .prepare<[number], { name: string }>('SELECT name FROM __indexes WHERE object_id = ? AND clustered = 1')
      .get(table.objectId)?.name;
  if (key.clustered && clusteredNow)
    throw error(
      1902,
      `Cannot create more than one clustered index on table '${table.name}'. Drop the existing clustered index '${clusteredNow}' before creating another.`,
      3,
    );
  change(() => {
    try {
      db.db.exec(
        `CREATE UNIQUE INDEX ${quote(`__ix.${table.objectId}.${key.name}`)} ON ${table.sqlName} (${columns.map(quote).join(', ')})`,
      );
    } catch {
      throw error(
        1505,
        `The CREATE UNIQUE INDEX statement terminated because a duplicate key was found for the object name '${table.schema}.${table.name}' and the index name '${key.name}'.`,
        1,
      );
    }
    const indexId = key.clustered ? 1 : nextIndexId(db, table);
    const row = db.db.prepare('INSERT INTO __keys VALUES (?, ?, ?, ?, ?, ?, ?)');
    columns.forEach((c, n) =>
      row.run(table.objectId, key.name, key.kind, key.clustered ? 1 : 0, indexId, n + 1, c),
    );
  });
}

function dropConstraint(
  db: DatabaseHandle,
  table: TableInfo,
  name: string,
  ifExists: boolean,
  change: (work: () => void) => void,
): StatementResult {
  const lower = name.toLowerCase();
  const key = table.keys.find((k) => k.name.toLowerCase() === lower);
  if (key) {
    // "Manage change tracking": dropping the PRIMARY KEY of a tracked table fails; tracking goes first.
    if (key.kind === 'PK' && isTracked(db, table.objectId))
      throw error(
        50000,
        `Cannot drop the PRIMARY KEY constraint '${key.name}' of table '${table.name}' while change tracking is enabled on it. Disable change tracking on the table first.`,
      );
    const index = `__ix.${table.objectId}.${key.name}`;
    const added = db.db
      .prepare<[string], { n: bigint }>(
        "SELECT count(*) AS n FROM sqlite_master WHERE type = 'index' AND name = ?",
      )
      .get(index);
    change(() => {
      if ((added?.n ?? 0n) > 0n) db.db.exec(`DROP INDEX ${quote(index)}`);
      else {
        // A key written with the table: its clause goes from the CREATE TABLE text.
        const clause = `, ${key.kind === 'PK' ? 'PRIMARY KEY' : 'UNIQUE'} (${key.columns.map(quote).join(', ')})`;
        remake(db, table, (sql) => sql.replace(clause, ''));
      }
      db.db.prepare('DELETE FROM __keys WHERE object_id = ? AND name = ?').run(table.objectId, key.name);
    });
    return {};
  }
  if (dropDefault(db, table, name, change)) return {};
  const check = checkNames(tableSql(db, table)).find((n) => n.toLowerCase() === lower);
  if (check) {
    change(() => remake(db, table, (sql) => withoutCheck(sql, check)));
    return {};
  }
  if (ifExists) return {};
  throw error(3728, `'${name}' is not a constraint.`, 1);
}

/** The CREATE TABLE text without `, CONSTRAINT "name" CHECK (…)`. */
function withoutCheck(sql: string, name: string): string {
  const start = sql.indexOf(`, CONSTRAINT ${quote(name)} CHECK (`);
  if (start < 0) return sql;
  let depth = 0;
  for (let k = sql.indexOf('(', start); k < sql.length; k++) {
    if (sql[k] === "'") k = sql.indexOf("'", k + 1);
    else if (sql[k] === '(') depth++;
    else if (sql[k] === ')' && --depth === 0) return sql.slice(0, start) + sql.slice(k + 1);
  }
  return sql;
}
