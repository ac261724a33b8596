// ALTER TABLE … ADD and … DROP COLUMN in the sandbox ("ALTER TABLE (Transact-SQL)"), with what Change
// Tracking does for each as Microsoft documents it ("Work with change tracking"): adding or dropping a
// column records no row change; updates of a column added later are tracked. A column added keeps the
// next column id, and a dropped column's id is never reused, as SQL Server numbers them.
import type { StatementResult } from '../tds/hostSession';
import type { SqlValue } from '../tds/dataTypes/sqlTypes';
import { typeColumns } from './catalogViews';
import { dropTriggers, isTracked, tracksColumns, writeTriggers } from './changeTracking';
import { statementError as error } from './basics';
import type { SandboxDatabase } from './database';
import { quote } from './basics';
import type { ColumnDef, TableInfo } from './schema';
import { columnDef } from './columnDefs';
import { columnSql } from './columnRules';
import { convert } from './convert';
import { isWord, nameOf, splitCommas, solid, type Token } from './lexer';
import { alterConstraints } from './constraints';
import { isExactNumeric, storedExact } from './exactDecimals';
import { remake } from './remake';
import { aliasType } from './aliasTypes';

const notYet = (what: string) =>
  error(50000, `The sandbox does not support this statement yet: ALTER TABLE … ${what}`);

/** ALTER TABLE t ADD … / DROP COLUMN …, from the token after the table's name; undefined when neither. */
export function alterColumns(
  db: SandboxDatabase,
  table: TableInfo,
  s: Token[],
  next: number,
): StatementResult | undefined {
  if (
    isWord(s[next], 'add') &&
    !isWord(s[next + 1], 'constraint', 'primary', 'unique', 'check', 'foreign', 'default')
  )
    return addColumns(db, table, s.slice(next + 1));
  if (isWord(s[next], 'drop') && isWord(s[next + 1], 'column'))
    return dropColumns(db, table, s.slice(next + 2));
  if (isWord(s[next], 'alter') && isWord(s[next + 1], 'column'))
    return alterColumn(db, table, s.slice(next + 2));
  return alterConstraints(db, table, s, next, (work) => change(db, table, work));
}

/**
 * ALTER TABLE t ALTER COLUMN c type [NULL | NOT NULL]: every value converted as CAST would (its errors,
 * 2628 when text would be cut, 515 for a null under NOT NULL), then the table rebuilt with the new
 * declared type (SQLite cannot change one in place). A key's or an index's column is refused (4922),
 * as SQL Server refuses it.
 */
function alterColumn(db: SandboxDatabase, table: TableInfo, rest: Token[]): StatementResult {
  const name = nameOf(rest[0]);
  const column = table.columns.find((c) => c.name.toLowerCase() === name.toLowerCase());
  if (!column)
    throw error(
      4924,
      `ALTER TABLE ALTER COLUMN failed because column '${name}' does not exist in table '${table.name}'.`,
    );
  const wanted = columnDef(
    rest,
    column.columnId,
    () => {
      throw notYet('ALTER COLUMN … PRIMARY KEY');
    },
    (alias) => aliasType(db, alias),
  );
  const index =
    table.keys.find((k) => k.columns.some((c) => c.toLowerCase() === name.toLowerCase()))?.name ??
    db.db
      .prepare<[number, string], { name: string }>(
        'SELECT name FROM __indexes WHERE object_id = ? AND column_name = ? COLLATE NOCASE',
      )
      .get(table.objectId, name)?.name;
  if (index)
    throw error(
      4922,
      `ALTER TABLE ALTER COLUMN ${column.name} failed because one or more objects access this column. (The object '${index}' is dependent on column '${column.name}'.)`,
      9,
    );
  const target = { ...column, type: wanted.type, nullable: wanted.nullable };
  const where = `'${db.name}.${table.schema}.${table.name}'`;
  const rows = db.db
    .prepare(`SELECT rowid, ${quote(column.name)} FROM ${table.sqlName}`)
    .raw()
    .all() as [number | bigint, SqlValue][];
  const converted = rows.map(([rowid, value]): [number | bigint, SqlValue] => {
    if (value === null && !target.nullable)
      throw error(
        515,
        `Cannot insert the value NULL into column '${column.name}', table ${where}; column does not allow nulls. UPDATE fails.`,
        2,
      );
    const to = convert({ type: column.type, value }, target.type).value;
    const cut =
      typeof to === 'string' && typeof value === 'string' && to.trimEnd().length < value.trimEnd().length;
    if (cut)
      throw error(
        2628,
        `String or binary data would be truncated in table ${where}, column '${column.name}'. Truncated value: '${to}'.`,
      );
    if (typeof to === 'boolean') return [rowid, to ? 1 : 0];
    return [rowid, isExactNumeric(target.type) ? storedExact(target.type, to) : to];
  });
  change(db, table, () => {
    rebuild(db, table, column.name, target);
    const update = db.db.prepare(`UPDATE ${table.sqlName} SET ${quote(column.name)} = ? WHERE rowid = ?`);
    for (const [rowid, value] of converted) update.run(value, rowid);
    db.db
      .prepare(
        `UPDATE __columns SET type = ?, type_name = ?, system_type_id = ?, max_length = ?, precision = ?, scale = ?,
          collation_name = ?, is_nullable = ?, user_type_id = ? WHERE object_id = ? AND column_id = ?`,
      )
      .run(
        ...typeColumns(target.type),
        target.nullable ? 1 : 0,
        wanted.aliasTypeId ?? null,
        table.objectId,
        column.columnId,
      );
  });
  return {};
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The table made again with one column's definition replaced, its rows (rowids kept) and its indexes
 * ("Making Other Kinds Of Table Schema Changes", sqlite.org/lang_altertable.html).
 */
function rebuild(db: SandboxDatabase, table: TableInfo, columnName: string, target: ColumnDef): void {
  const own = `${table.schema}.${table.name}`;
  // The column's definition as columnSql or ADD COLUMN wrote it: type, NOT NULL, DEFAULT, its CHECK
  // (with or without the plain test before TSQL_FITS that columnSql now writes).
  const column = new RegExp(
    `${escapeRegExp(quote(columnName))} "(?:[^"]|"")*"(?: NOT NULL)?( DEFAULT (?:\\((?:[^()']|'(?:[^']|'')*'|\\([^()]*\\))*\\)|'(?:[^']|'')*'|[-+\\w.]+))?(?: CHECK \\((?:\\((?:[^()']|'(?:[^']|'')*'|\\((?:[^()']|'(?:[^']|'')*'|\\([^()]*\\))*\\))*\\) OR )?TSQL_FITS\\((?:[^()']|'(?:[^']|'')*')*\\)\\))?`,
  );
  // The new type's definition, keeping the column's default (SQL Server keeps its DEFAULT constraint).
  const replaced = (_whole: string, kept: string | undefined) => {
    const fresh = columnSql({ ...target, defaultSql: undefined }, own);
    const at = fresh.indexOf(' CHECK (');
    return at < 0 ? `${fresh}${kept ?? ''}` : `${fresh.slice(0, at)}${kept ?? ''}${fresh.slice(at)}`;
  };
  remake(db, table, (sql) => sql.replace(column, replaced));
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
    columnDef(
      def,
      table.columns.length + i + 1,
      () => {
        throw notYet('ADD … PRIMARY KEY');
      },
      (alias) => aliasType(db, alias),
    ),
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
    `ALTER TABLE ${table.sqlName} ADD COLUMN ${columnSql({ ...c, defaultSql: undefined }, `${table.schema}.${table.name}`)}${literal === undefined ? '' : `${c.defaultName ? ` CONSTRAINT ${quote(c.defaultName)}` : ''} DEFAULT ${literal}`}`,
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
  db.db
    .prepare('INSERT INTO __columns VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)')
    .run(
      table.objectId,
      Number(last > dropped ? last : dropped) + 1,
      c.name,
      ...typeColumns(c.type),
      c.nullable ? 1 : 0,
      0,
      null,
      null,
      c.aliasTypeId ?? null,
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
