// The change-tracking agent's table view: per entity, whether the table exists, its primary key
// columns, whether Change Tracking is on for it, and what would stop the agent. One query in all.
import type sql from 'mssql';
import {
  rowIdentificationText,
  type CatalogTable,
  type Entity,
  type TableState,
} from '../../../shared/controlApi';
import { tableKey } from '../source';
import { byTableName, qualified, SYNC_SCHEMA } from './names';

interface Row {
  schema_name: string;
  table_name: string;
  tracked: number;
  key_column: string | null;
}

/** Every user table with its Change Tracking and primary key columns, a row per key column. */
const readCatalogue = async (pool: sql.ConnectionPool) =>
  (
    await pool.request().query<Row>(`
    SELECT s.name AS schema_name, t.name AS table_name,
        CASE WHEN ctt.object_id IS NULL THEN 0 ELSE 1 END AS tracked, c.name AS key_column
      FROM sys.tables t
      JOIN sys.schemas s ON s.schema_id = t.schema_id
      LEFT JOIN sys.change_tracking_tables ctt ON ctt.object_id = t.object_id
      LEFT JOIN sys.key_constraints pk ON pk.parent_object_id = t.object_id AND pk.type = 'PK'
      LEFT JOIN sys.index_columns ic ON ic.object_id = t.object_id AND ic.index_id = pk.unique_index_id
      LEFT JOIN sys.columns c ON c.object_id = t.object_id AND c.column_id = ic.column_id
      ORDER BY s.name, t.name, ic.key_ordinal`)
  ).recordset;

export async function changeTrackingTables(
  pool: sql.ConnectionPool,
  entities: readonly Entity[],
): Promise<TableState[]> {
  // Grouped once by name: a lookup per entity.
  const rowsOf = byTableName(await readCatalogue(pool));
  return entities.map((e) => {
    const rows = rowsOf(e.source);
    const primaryKey = rows.flatMap((r) => (r.key_column ? [r.key_column] : []));
    const tracked = rows.some((r) => Number(r.tracked) === 1);
    const problem =
      rows.length === 0
        ? 'The table does not exist, or the login cannot see it.'
        : e.rowIdentification.kind !== 'primaryKey'
          ? 'Change tracking identifies rows by primary key only.'
          : primaryKey.length === 0
            ? 'No primary key: Change Tracking needs one.'
            : !tracked
              ? 'Change Tracking is off for the table.'
              : null;
    return {
      table: tableKey(e.source),
      exists: rows.length > 0,
      rowIdentification: rowIdentificationText(e),
      primaryKey,
      changeTracking: rows.length > 0 ? tracked : null,
      journalImages: null,
      journal: null,
      problem,
    };
  });
}

/**
 * Every table a change-tracking entity could read, the agent's own SYNC schema left out: its primary
 * key, whether Change Tracking is on, and what would stop it, with the statement that fixes it. The
 * simulated and real catalogues give no row counts here (sys.dm_db_partition_stats needs VIEW
 * DATABASE STATE): rows are null.
 */
export async function changeTrackingCatalog(pool: sql.ConnectionPool): Promise<CatalogTable[]> {
  const byTable = new Map<string, { schema: string; table: string; tracked: boolean; key: string[] }>();
  for (const r of await readCatalogue(pool)) {
    if (r.schema_name.toLowerCase() === SYNC_SCHEMA.toLowerCase()) continue;
    const id = JSON.stringify([r.schema_name, r.table_name]);
    const entry = byTable.get(id) ?? { schema: r.schema_name, table: r.table_name, tracked: false, key: [] };
    entry.tracked ||= Number(r.tracked) === 1;
    if (r.key_column) entry.key.push(r.key_column);
    byTable.set(id, entry);
  }
  return [...byTable.values()].map((t) => {
    const ref = { schema: t.schema, table: t.table };
    const problem =
      t.key.length === 0
        ? 'No primary key: Change Tracking needs one (a unique index does not stand in for it).'
        : !t.tracked
          ? 'Change Tracking is off for the table.'
          : null;
    return {
      schema: t.schema,
      table: t.table,
      rows: null,
      primaryKey: t.key,
      changeTracking: t.tracked,
      journal: null,
      journalImages: null,
      problem,
      fix:
        t.key.length > 0 && !t.tracked
          ? `ALTER TABLE ${qualified(ref)} ENABLE CHANGE_TRACKING WITH (TRACK_COLUMNS_UPDATED = ON);`
          : null,
    };
  });
}
