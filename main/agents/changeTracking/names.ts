// The change-tracking agent's own schema at the source (SQL Server's name rules are in
// drivers/mssql/names.ts).
/** The schema the agent keeps its own tables in (spec: created when absent; the name is fixed). */
export const SYNC_SCHEMA = 'SYNC';
