// The change-tracking agent's table view: per entity, whether the table exists, its primary key
// columns, whether Change Tracking is on for it, and what would stop the agent. One query in all.
import type sql from 'mssql';
import {
  rowIdentificationText,
  type CatalogTable,
  type Entity,
  type TableState,
} from '../../../shared/controlApi';
import { CHANGE_TRACKING_KEYLESS } from '../../../shared/agents/changeTracking';
import { tableKey, type TableRef } from '../source';
import { byTableName, qualified, sameName } from '../drivers/mssql/names';
import { SYNC_SCHEMA } from './names';

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

/** The statement that turns Change Tracking on for a table, as the checks and the catalogue offer it. */
export const enableTracking = (t: TableRef): string =>
  `ALTER TABLE ${qualified(t)} ENABLE CHANGE_TRACKING WITH (TRACK_COLUMNS_UPDATED = ON);`;

/** A table's primary key and tracking from its catalogue rows, and what stops Change Tracking of it. */
function trackingOf(rows: readonly Row[]): {
  primaryKey: string[];
  tracked: boolean;
  problem: string | null;
} {
  const primaryKey = rows.flatMap((r) => (r.key_column ? [r.key_column] : []));
  const tracked = rows.some((r) => Number(r.tracked) === 1);
  const problem =
    primaryKey.length === 0
      ? CHANGE_TRACKING_KEYLESS
      : !tracked
        ? 'Change Tracking is off for the table.'
        : null;
  return { primaryKey, tracked, problem };
}

export async function changeTrackingTables(
  pool: sql.ConnectionPool,
  entities: readonly Entity[],
): Promise<TableState[]> {
  // Grouped once by name: a lookup per entity.
  const rowsOf = byTableName(await readCatalogue(pool));
  return entities.map((e) => {
    const rows = rowsOf(e.source);
    const { primaryKey, tracked, problem: stop } = trackingOf(rows);
    const problem =
      rows.length === 0
        ? 'The table does not exist, or the login cannot see it.'
        : e.rowIdentification.kind !== 'primaryKey'
          ? 'Change tracking identifies rows by primary key only.'
          : stop;
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
  const byTable = new Map<string, Row[]>();
  for (const r of await readCatalogue(pool)) {
    if (sameName(r.schema_name, SYNC_SCHEMA)) continue;
    const id = JSON.stringify([r.schema_name, r.table_name]);
    byTable.set(id, [...(byTable.get(id) ?? []), r]);
  }
  return [...byTable.values()].map((rows) => {
    const ref = { schema: rows[0]?.schema_name ?? '', table: rows[0]?.table_name ?? '' };
    const { primaryKey, tracked, problem } = trackingOf(rows);
    return {
      ...ref,
      rows: null,
      primaryKey,
      changeTracking: tracked,
      journal: null,
      journalImages: null,
      problem,
      fix: primaryKey.length > 0 && !tracked ? enableTracking(ref) : null,
    };
  });
}
