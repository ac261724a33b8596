// Rebuilding a table, which ALTER TABLE … ALTER COLUMN and the constraint statements share.
import { physicalName } from './basics';
import { quote } from './basics';
import type { DatabaseHandle, TableInfo } from './schema';

/**
 * The table made again from its CREATE TABLE text as `edit` changes it, with its rows (rowids kept)
 * and its indexes: SQLite cannot change a column or a constraint in place.
 */
export function remake(db: DatabaseHandle, table: TableInfo, edit: (sql: string) => string): void {
  const own = physicalName(table.schema, table.name);
  const sql =
    db.db
      .prepare<[string], { sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?")
      .get(own)?.sql ?? '';
  const indexes = db.db
    .prepare<[string], { sql: string }>(
      "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
    )
    .all(own);
  const scratch = quote(`${own}__alter`);
  const names = table.columns.map((c) => quote(c.name)).join(', ');
  db.db.exec(edit(sql.replace(/^CREATE TABLE ("(?:[^"]|"")+"|\S+)/, `CREATE TABLE ${scratch}`)));
  db.db.exec(`INSERT INTO ${scratch} (rowid, ${names}) SELECT rowid, ${names} FROM ${table.sqlName}`);
  db.db.exec(`DROP TABLE ${table.sqlName}`);
  db.db.exec(`ALTER TABLE ${scratch} RENAME TO ${table.sqlName}`);
  for (const i of indexes) db.db.exec(i.sql);
}
