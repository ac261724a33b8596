// SQL Server's errors for what a statement met in SQLite or in the catalogue, in its words and numbers.
import type { SandboxDatabase } from './database';
import { SqlError } from './basics';
import type { TableInfo } from './schema';
import { solid, textOf, type Token } from './lexer';
import { tableNamed } from './tableNames';

/** SQLite's errors in SQL Server's words and numbers. */
export function mapError(
  error: unknown,
  context: { table?: string; db: SandboxDatabase; verb?: string },
): SqlError {
  if (error instanceof SqlError) return error;
  const message = error instanceof Error ? error.message : String(error);
  let m: RegExpExecArray | null;
  if ((error as { code?: string }).code === 'SQLITE_BUSY_SNAPSHOT') {
    // A snapshot transaction writing rows another transaction changed after its snapshot began.
    return new SqlError({
      number: 3960,
      state: 2,
      class: 16,
      message: `Snapshot isolation transaction aborted due to update conflict. You cannot use snapshot isolation to access table '${context.table ?? '?'}' directly or indirectly in database '${context.db.name}' to update, delete, or insert the row that has been modified or deleted by another transaction. Retry the transaction or change the isolation level for the update/delete statement.`,
    });
  }
  if (/database is locked|SQLITE_BUSY/.test(message))
    return new SqlError({
      number: 1222,
      state: 51,
      class: 16,
      message: 'Lock request time out period exceeded.',
    });
  // SQL Server names the object as the statement wrote it, schema and all.
  if ((m = /no such table: (.+)$/.exec(message)))
    return new SqlError({ number: 208, state: 1, class: 16, message: `Invalid object name '${m[1]}'.` });
  if ((m = /no such column: (?:.+\.)?(.+)$/.exec(message)) || (m = /has no column named (.+)$/.exec(message)))
    return new SqlError({ number: 207, state: 1, class: 16, message: `Invalid column name '${m[1]}'.` });
  if ((m = /NOT NULL constraint failed: (?:.+\.)?(.+)$/.exec(message))) {
    return new SqlError({
      number: 515,
      state: 2,
      class: 16,
      message: `Cannot insert the value NULL into column '${m[1]}', table '${context.db.name}.${context.table ?? '?'}'; column does not allow nulls. INSERT fails.`,
    });
  }
  if ((m = /UNIQUE constraint failed: (.+)$/.exec(message))) {
    const index = uniqueIndexNamed(context.db, context.table, m[1] ?? '');
    if (index)
      return new SqlError({
        number: 2601,
        state: 1,
        class: 14,
        message: `Cannot insert duplicate key row in object '${index.table}' with unique index '${index.name}'.`,
      });
    return new SqlError({
      number: 2627,
      state: 1,
      class: 14,
      message: `Violation of PRIMARY KEY or UNIQUE constraint. Cannot insert duplicate key in object '${context.table ?? '?'}'.`,
    });
  }
  if ((m = /near "(.+?)": syntax error/.exec(message)))
    return new SqlError({ number: 102, state: 1, class: 15, message: `Incorrect syntax near '${m[1]}'.` });
  if ((m = /no such function: (\w+)/.exec(message)))
    return new SqlError({
      number: 195,
      state: 10,
      class: 15,
      message: `'${m[1]}' is not a recognized built-in function name.`,
    });
  if ((m = /CHECK constraint failed: (.+)$/.exec(message))) {
    const constraint = m[1] ?? '';
    return new SqlError({
      number: 547,
      state: 0,
      class: 16,
      message: `The ${context.verb ?? 'INSERT'} statement conflicted with the CHECK constraint "${constraint}". The conflict occurred in database "${context.db.name}", table "${context.table ?? '?'}".`,
    });
  }
  // Never another engine's words: what SQLite could not do is a feature the sandbox lacks.
  return new SqlError({
    number: 50000,
    state: 1,
    class: 16,
    message: 'The sandbox does not support this statement yet.',
  });
}

/** The CREATE UNIQUE INDEX whose columns SQLite names in a UNIQUE failure (2601, not a constraint's 2627). */
function uniqueIndexNamed(
  db: SandboxDatabase,
  tableName: string | undefined,
  failed: string,
): { table: string; name: string } | undefined {
  const table = tableName ? tableNamed(db, tableName.split('.')) : undefined;
  if (!table || table.objectId < 0) return undefined;
  const columns = failed
    .split(', ')
    .map((c) => c.slice(c.lastIndexOf('.') + 1).toLowerCase())
    .join(',');
  const rows = db.db
    .prepare<[number], { name: string; cols: string }>(
      'SELECT name, group_concat(lower(column_name)) AS cols FROM (SELECT * FROM __indexes WHERE object_id = ? AND is_unique = 1 ORDER BY key_ordinal) GROUP BY name',
    )
    .all(table.objectId);
  const found = rows.find((r) => r.cols === columns);
  return found ? { table: `${table.schema}.${table.name}`, name: found.name } : undefined;
}

/** 4701 (TRUNCATE) and 4902 (ALTER TABLE) share SQL Server's wording. */
export const cannotFind = (number: number, name: string) =>
  new SqlError({
    number,
    state: 1,
    class: 16,
    message: `Cannot find the object "${name}" because it does not exist or you do not have permissions.`,
  });

/** Error 229, as SQL Server words a denied object permission. */
export function denied(permission: string, db: SandboxDatabase, table: TableInfo): SqlError {
  return new SqlError({
    number: 229,
    state: 5,
    class: 14,
    message: `The ${permission} permission was denied on the object '${table.name}', database '${db.name}', schema '${table.schema}'.`,
  });
}

export function unsupportedHere(tokens: Token[]): never {
  throw new SqlError({
    number: 50000,
    state: 1,
    class: 16,
    message: `The sandbox does not support this statement yet: ${textOf(solid(tokens)).slice(0, 80)}`,
  });
}
