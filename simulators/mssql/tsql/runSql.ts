// Translated SQL run in SQLite: parameters bound, result columns typed as SQL Server types them, and
// writes outside a transaction made a transaction of their own.
import type { StatementResult } from '../tds/hostSession';
import type { Column } from '../tds/tokens';
import type { SqlType, SqlValue } from '../tds/dataTypes/sqlTypes';
import type { SandboxDatabase } from './database';
import { parseTypeName, typeFromDeclared } from './typeNames';
import { exactDigits, isExactNumeric } from './exactDecimals';
import { CT_COLUMN_TYPES, finishVersion } from './changeTracking';
import { bindings, type Parameters } from './params';
import { mapError } from './sqlErrors';

/**
 * Runs translated SQL. `expressionTypes`, by result column, types the columns SQLite declares no type
 * for as SQL Server would (selectTypes.ts); ignored unless it counts the result's columns.
 */
export function run(
  db: SandboxDatabase,
  sql: string,
  params: Parameters,
  table?: string,
  expressionTypes?: readonly (SqlType | undefined)[],
): StatementResult {
  let statement;
  try {
    statement = db.db.prepare(sql);
  } catch (error) {
    throw mapError(error, { db, table });
  }
  const verb = /^\s*update\b/i.test(sql) ? 'UPDATE' : /^\s*delete\b/i.test(sql) ? 'DELETE' : 'INSERT';
  const bound = bindings(params);
  const used = Object.fromEntries(Object.entries(bound).filter(([k]) => sql.includes(`@${k}`)));
  try {
    if (!statement.reader) {
      const info = statement.run(used);
      return { rowCount: info.changes };
    }
    const declared = statement.columns();
    const rows = statement.raw(true).all(used) as SqlValue[][];
    const hints = expressionTypes?.length === declared.length ? expressionTypes : undefined;
    const columns: Column[] = declared.map((c, i) => ({
      name: c.name,
      type: resultType(sql, c, () => hints?.[i] ?? inferType(rows, i)),
      nullable: true,
    }));
    // Each column's conversion chosen once, not per value, and a column SQLite gives as it is skipped.
    columns.forEach((c, i) => {
      const convert = sqliteReader(c.type);
      if (convert) for (const r of rows) r[i] = convert(r[i] ?? null);
    });
    return { resultSet: { columns, rows }, rowCount: rows.length };
  } catch (error) {
    throw mapError(error, { db, table, verb });
  }
}

/**
 * A result column's type as SQL Server types it: declared, else `inferred()` from its values (or
 * undefined when they are not at hand); every is_* and has_* column of a catalog view bit, since the
 * views compute their flags; a CHANGETABLE column its documented type.
 */
export function resultType<Inferred extends SqlType | undefined>(
  sql: string,
  c: { name: string; type: string | null },
  inferred: () => Inferred,
): SqlType | Inferred {
  const ctType = sql.includes('"__ct.') ? CT_COLUMN_TYPES[c.name.toLowerCase()] : undefined;
  if (ctType) return parseTypeName(ctType);
  const type = typeFromDeclared(c.type) ?? inferred();
  const readsCatalog = /"(sys|INFORMATION_SCHEMA)\./i.test(sql) || sql.includes('/* catalog */');
  return readsCatalog && type?.name === 'int' && /^(is|has)_/i.test(c.name) ? { name: 'bit' } : type;
}

/** An expression column's type from its values, as close to SQL Server's as values allow. */
function inferType(rows: readonly SqlValue[][], column: number): SqlType {
  // One pass over the column: results run to many thousands of rows.
  let present = 0;
  let allIntegers = true;
  let allNumbers = true;
  let allBuffers = true;
  let fitsInt = true;
  for (const row of rows) {
    const v = row[column] ?? null;
    if (v === null) continue;
    present++;
    const isInteger = typeof v === 'bigint';
    if (!isInteger) allIntegers = false;
    else if (v < -2147483648n || v > 2147483647n) fitsInt = false;
    if (!isInteger && typeof v !== 'number') allNumbers = false;
    if (!Buffer.isBuffer(v)) allBuffers = false;
  }
  if (present === 0) return { name: 'int' };
  if (allIntegers) return fitsInt ? { name: 'int' } : { name: 'bigint' };
  if (allNumbers) return { name: 'float' };
  if (allBuffers) return { name: 'varbinary', length: 'max' };
  return { name: 'nvarchar', length: 'max' };
}

type SqliteReader = (v: SqlValue) => SqlValue;

/** How a column's values come back from SQLite as the column's type holds them; undefined: as they are. */
function sqliteReader(t: SqlType | undefined): SqliteReader | undefined {
  if (!t) return undefined;
  if (t.name === 'bit') return (v) => (v === null ? v : Number(v) !== 0);
  if (t.name === 'tinyint' || t.name === 'smallint' || t.name === 'int')
    return (v) => (v === null ? v : Number(v));
  if (t.name === 'float' || t.name === 'real') return (v) => (v === null ? v : Number(v));
  if (isExactNumeric(t)) return (v) => (v === null ? v : exactDigits(t, v));
  return undefined;
}

/**
 * A write outside an explicit transaction is a transaction of its own: its tracked changes get one
 * version, made current as it commits. Inside an explicit transaction, the COMMIT does that.
 */
export function write<T>(db: SandboxDatabase, work: () => T): T {
  if (db.db.inTransaction) return work();
  return db.db.transaction(() => {
    const result = work();
    finishVersion(db);
    return result;
  })();
}
