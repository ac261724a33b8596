// The change-tracking agent's table view: per entity, whether the table exists, its primary key
// columns, whether Change Tracking is on for it, and what would stop the agent. One query in all.
import type sql from 'mssql';
import { rowIdentificationText, type Entity, type TableState } from '../../../shared/controlApi';
import { tableKey } from '../source';
import { byTableName } from './names';

interface Row {
  schema_name: string;
  table_name: string;
  tracked: number;
  key_column: string | null;
}

export async function changeTrackingTables(
  pool: sql.ConnectionPool,
  entities: readonly Entity[],
): Promise<TableState[]> {
  const { recordset } = await pool.request().query<Row>(`
    SELECT s.name AS schema_name, t.name AS table_name,
        CASE WHEN ctt.object_id IS NULL THEN 0 ELSE 1 END AS tracked, c.name AS key_column
      FROM sys.tables t
      JOIN sys.schemas s ON s.schema_id = t.schema_id
      LEFT JOIN sys.change_tracking_tables ctt ON ctt.object_id = t.object_id
      LEFT JOIN sys.key_constraints pk ON pk.parent_object_id = t.object_id AND pk.type = 'PK'
      LEFT JOIN sys.index_columns ic ON ic.object_id = t.object_id AND ic.index_id = pk.unique_index_id
      LEFT JOIN sys.columns c ON c.object_id = t.object_id AND c.column_id = ic.column_id
      ORDER BY s.name, t.name, ic.key_ordinal`);
  // Grouped once by name: a lookup per entity.
  const rowsOf = byTableName(recordset);
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
