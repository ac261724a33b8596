// sp_rename for tables and columns ("sp_rename (Transact-SQL)"): the object keeps its id, Change
// Tracking goes on recording it (its side table and column ids do not change), and SQL Server's
// caution comes back as an informational message with return status 0. A column rename does not move
// sys.objects.modify_date here, so a reader that relies on it alone misses renames.
import type { StatementResult } from '../tds/hostSession';
import { dropTriggers, isTracked, tracksColumns, writeTriggers } from './changeTracking';
import { statementError as error } from './basics';
import type { SandboxDatabase } from './database';
import { quote, tableSql } from './basics';
import type { TableInfo } from './schema';
import { lex, nameOf } from './lexer';

const CAUTION = {
  kind: 'info' as const,
  number: 15477,
  state: 1,
  class: 10,
  message: 'Caution: Changing any part of an object name could break scripts and stored procedures.',
};

/** sp_rename @objname, @newname [, @objtype]: a table ('schema.table') or a column ('[schema.]table.column'). */
export function spRename(
  db: SandboxDatabase,
  objname: string,
  newname: string,
  objtype: string | null,
): StatementResult {
  const parts = lex(objname)
    .filter((t) => t.kind === 'word' || t.kind === 'quoted')
    .map(nameOf);
  const type = objtype?.trim().toUpperCase() ?? null;
  if (type === 'COLUMN' || (type === null && parts.length === 3)) {
    const column = parts.at(-1) ?? '';
    const table = db.table(parts.length >= 3 ? parts.at(-3) : undefined, parts.at(-2) ?? '');
    const found = table?.columns.find((c) => c.name.toLowerCase() === column.toLowerCase());
    if (!table || !found)
      throw error(
        15248,
        `Either the parameter @objname is ambiguous or the claimed @objtype (${type ?? '(null)'}) is wrong.`,
        11,
      );
    if (table.columns.some((c) => c !== found && c.name.toLowerCase() === newname.toLowerCase()))
      throw error(
        15335,
        `Error: The new name '${newname}' is already in use as a COLUMN name and would cause a duplicate that is not permitted.`,
      );
    renameColumn(db, table, found.name, newname);
    return { messages: [CAUTION] };
  }
  if (type !== null && type !== 'OBJECT')
    throw error(50000, `The sandbox does not support sp_rename with @objtype '${objtype ?? ''}' yet.`);
  const table = db.table(parts.length >= 2 ? parts.at(-2) : undefined, parts.at(-1) ?? '');
  if (!table)
    throw error(
      15225,
      `No item by the name of '${objname}' could be found in the current database '${db.name}', given that @itemtype was input as '${objtype ?? '(null)'}'.`,
      11,
    );
  if (db.table(table.schema, newname))
    throw error(
      15335,
      `Error: The new name '${newname}' is already in use as a OBJECT name and would cause a duplicate that is not permitted.`,
    );
  db.db.transaction(() => {
    db.db.exec(
      `ALTER TABLE ${tableSql(table.schema, table.name)} RENAME TO ${tableSql(table.schema, newname)}`,
    );
    db.db.prepare('UPDATE __objects SET name = ? WHERE object_id = ?').run(newname, table.objectId);
  })();
  return { messages: [CAUTION] };
}

function renameColumn(db: SandboxDatabase, table: TableInfo, from: string, to: string): void {
  db.db.transaction(() => {
    const tracked = isTracked(db, table.objectId);
    const columnsTracked = tracked && tracksColumns(db, table.objectId);
    if (tracked) dropTriggers(db, table.objectId);
    db.db.exec(`ALTER TABLE ${table.sqlName} RENAME COLUMN ${quote(from)} TO ${quote(to)}`);
    for (const catalog of ['__columns', '__keys', '__indexes']) {
      const column = catalog === '__columns' ? 'name' : 'column_name';
      db.db
        .prepare(`UPDATE ${catalog} SET ${column} = ? WHERE object_id = ? AND ${column} = ? COLLATE NOCASE`)
        .run(to, table.objectId, from);
    }
    const now = db.table(table.schema, table.name);
    if (tracked && now) writeTriggers(db, now, columnsTracked);
  })();
}
