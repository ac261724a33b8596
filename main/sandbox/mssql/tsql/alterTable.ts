// ALTER TABLE … ADD and … DROP COLUMN in the sandbox ("ALTER TABLE (Transact-SQL)"), with what Change
// Tracking does for each as Microsoft documents it ("Work with change tracking"): adding or dropping a
// column records no row change; updates of a column added later are tracked. A column added keeps the
// next column id, and a dropped column's id is never reused, as SQL Server numbers them.
import type { StatementResult } from '../tds/server';
import { typeFacts } from './catalogViews';
import { dropTriggers, isTracked, tracksColumns, writeTriggers } from './changeTracking';
import { quote, SqlError, type ColumnDef, type SandboxDatabase, type TableInfo } from './database';
import { columnDef } from './columnDefs';
import { isWord, nameOf, splitCommas, solid, type Token } from './lexer';
import { declaredType } from './typeNames';

const error = (number: number, message: string, state = 1) =>
  new SqlError({ number, state, class: 16, message });

const notYet = (what: string) =>
  error(50000, `The sandbox does not support this statement yet: ALTER TABLE … ${what}`);

/** ALTER TABLE t ADD … / DROP COLUMN …, from the token after the table's name; undefined when neither. */
export function alterColumns(
  db: SandboxDatabase,
  table: TableInfo,
  s: Token[],
  next: number,
): StatementResult | undefined {
  if (isWord(s[next], 'add') && !isWord(s[next + 1], 'constraint', 'primary', 'unique', 'check', 'foreign'))
    return addColumns(db, table, s.slice(next + 1));
  if (isWord(s[next], 'drop') && isWord(s[next + 1], 'column'))
    return dropColumns(db, table, s.slice(next + 2));
  return undefined;
}

/** A literal default as SQLite's ADD COLUMN takes it (a constant, never an expression). */
function literalDefault(text: string): string | undefined {
  const t = text
    .trim()
    .replace(/^\((.*)\)$/s, '$1')
    .replace(/^\((.*)\)$/s, '$1')
    .trim();
  if (/^[-+]?\d+(\.\d+)?$/.test(t)) return t;
  const quoted = /^N?('(?:[^']|'')*')$/is.exec(t);
  return quoted?.[1];
}

function addColumns(db: SandboxDatabase, table: TableInfo, rest: Token[]): StatementResult {
  const parts = splitCommas(rest).map(solid);
  const withValues = rest.some((t, i) => isWord(t, 'with') && isWord(rest[i + 1], 'values'));
  const columns = parts.map((def, i) =>
    columnDef(def, table.columns.length + i + 1, () => {
      throw notYet('ADD … PRIMARY KEY');
    }),
  );
  const rows = db.db.prepare<[], { n: bigint }>(`SELECT count(*) AS n FROM ${table.sqlName}`).get()?.n ?? 0n;
  for (const c of columns) {
    if (table.columns.some((x) => x.name.toLowerCase() === c.name.toLowerCase()))
      throw error(
        2705,
        `Column names in each table must be unique. Column name '${c.name}' in table '${table.name}' is specified more than once.`,
      );
    if (c.identity) throw notYet('ADD … IDENTITY');
    if (!c.nullable && c.defaultSql === undefined) {
      if (rows > 0n)
        throw error(
          4901,
          `ALTER TABLE only allows columns to be added that can contain nulls, or have a DEFAULT definition specified, or the column being added is an identity or timestamp column, or alternatively if none of the previous conditions are satisfied the table must be empty to allow addition of this column. Column '${c.name}' cannot be added to non-empty table '${table.name}' because it does not satisfy these conditions.`,
        );
      throw notYet('ADD … NOT NULL without a DEFAULT');
    }
    if (c.defaultSql !== undefined && literalDefault(c.defaultSql) === undefined)
      throw notYet('ADD … DEFAULT with an expression');
  }
  change(db, table, () => {
    for (const c of columns) addColumn(db, table, c, withValues);
  });
  return {};
}

function addColumn(db: SandboxDatabase, table: TableInfo, c: ColumnDef, withValues: boolean): void {
  const literal = c.defaultSql === undefined ? undefined : literalDefault(c.defaultSql);
  db.db.exec(
    `ALTER TABLE ${table.sqlName} ADD COLUMN ${quote(c.name)} ${quote(declaredType(c.type))}${c.nullable ? '' : ' NOT NULL'}${literal === undefined ? '' : ` DEFAULT ${literal}`}`,
  );
  // A nullable column's default is for rows inserted later; the rows there hold NULL unless WITH VALUES.
  if (c.nullable && literal !== undefined && !withValues)
    db.db.exec(`UPDATE ${table.sqlName} SET ${quote(c.name)} = NULL`);
  const last =
    db.db
      .prepare<[number], { id: bigint | null }>(
        'SELECT max(column_id) AS id FROM __columns WHERE object_id = ?',
      )
      .get(table.objectId)?.id ?? 0n;
  const dropped =
    db.db
      .prepare<[number], { id: bigint | null }>(
        'SELECT max(column_id) AS id FROM __dropped_columns WHERE object_id = ?',
      )
      .get(table.objectId)?.id ?? 0n;
  const f = typeFacts(c.type);
  db.db
    .prepare('INSERT INTO __columns VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)')
    .run(
      table.objectId,
      Number(last > dropped ? last : dropped) + 1,
      c.name,
      JSON.stringify(c.type),
      f.typeName,
      f.systemTypeId,
      f.maxLength,
      f.precision,
      f.scale,
      f.collation,
      c.nullable ? 1 : 0,
      0,
      null,
      null,
    );
}

function dropColumns(db: SandboxDatabase, table: TableInfo, rest: Token[]): StatementResult {
  const ifExists = isWord(rest[0], 'if') && isWord(rest[1], 'exists');
  const names = splitCommas(ifExists ? rest.slice(2) : rest).map((c) => nameOf(solid(c)[0]));
  const present = names.filter((n) => {
    const found = table.columns.some((c) => c.name.toLowerCase() === n.toLowerCase());
    if (!found && !ifExists)
      throw error(
        4924,
        `ALTER TABLE DROP COLUMN failed because column '${n}' does not exist in table '${table.name}'.`,
      );
    return found;
  });
  for (const n of present) {
    const used =
      table.keys.some((k) => k.columns.some((c) => c.toLowerCase() === n.toLowerCase())) ||
      db.db
        .prepare('SELECT 1 FROM __indexes WHERE object_id = ? AND column_name = ? COLLATE NOCASE')
        .get(table.objectId, n) !== undefined;
    if (used)
      throw error(
        4922,
        `ALTER TABLE DROP COLUMN ${n} failed because one or more objects access this column.`,
        9,
      );
  }
  change(db, table, () => {
    for (const n of present) {
      const column = table.columns.find((c) => c.name.toLowerCase() === n.toLowerCase());
      db.db.exec(`ALTER TABLE ${table.sqlName} DROP COLUMN ${quote(column?.name ?? n)}`);
      db.db.prepare('INSERT INTO __dropped_columns VALUES (?, ?)').run(table.objectId, column?.columnId ?? 0);
      db.db
        .prepare('DELETE FROM __columns WHERE object_id = ? AND column_id = ?')
        .run(table.objectId, column?.columnId ?? 0);
    }
  });
  return {};
}

/**
 * The table's columns changed in one transaction: a tracked table's triggers set aside first (SQLite
 * checks them against the new columns) and written again for the new ones, and modify_date moved.
 */
function change(db: SandboxDatabase, table: TableInfo, work: () => void): void {
  db.db.transaction(() => {
    const tracked = isTracked(db, table.objectId);
    const columnsTracked = tracked && tracksColumns(db, table.objectId);
    if (tracked) dropTriggers(db, table.objectId);
    work();
    db.db
      .prepare('UPDATE __objects SET modify_date = ? WHERE object_id = ?')
      .run(db.now().toISOString().replace('T', ' ').slice(0, 23), table.objectId);
    const now = db.table(table.schema, table.name);
    if (tracked && now) writeTriggers(db, now, columnsTracked);
  })();
}
