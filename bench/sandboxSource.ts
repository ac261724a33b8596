// The change-tracking agent on a benchmark's own sandbox SQL Server (the benchmarks' shared login).
import type sql from 'mssql';
import type { SandboxSqlServer } from '../simulators/mssql';
import type { BenchRow } from './rawTargets';
import type {
  ChangeTrackingConfiguration,
  ChangeTrackingHostCredentials,
} from '../shared/agents/changeTracking';
import { openChangeTrackingSource } from '../main/agents/changeTracking/source';

export const BENCH_LOGIN = { name: 'bench', password: 'Bench-Pa55' };

/** The benchmarks' agent settings: the shared login on Sales, `connections` connections. */
export const benchCredentials = (
  sandbox: Pick<SandboxSqlServer, 'port'>,
  connections = 2,
): ChangeTrackingHostCredentials => ({
  connectionName: 'bench',
  host: '127.0.0.1',
  port: sandbox.port,
  databaseName: 'Sales',
  username: BENCH_LOGIN.name,
  password: BENCH_LOGIN.password,
  maxConnectionsCount: connections,
  enableTls: false,
});

export const BENCH_CONFIGURATION: ChangeTrackingConfiguration = {
  enableRecursionProtection: false,
  sourceChangeRetentionDays: 5,
  retentionWarningPercent: 25,
  heartbeatSeconds: 0,
  snapshotMode: 'initial',
  snapshotChunkRows: 10_000,
  droppedColumns: 'keep',
  onTableError: 'suspend-table',
  maxExceptions: 1000,
  schemaChanges: 'propagate',
  droppedTables: 'keep',
};

export const openBenchSource = (sandbox: Pick<SandboxSqlServer, 'port'>, connections = 2) =>
  openChangeTrackingSource({
    credentials: benchCredentials(sandbox, connections),
    configuration: BENCH_CONFIGURATION,
    pipelineId: 'bench',
    agentId: 'src',
  });

/**
 * The benchmarks' table on a fresh sandbox: Change Tracking and snapshots allowed, `dbo.Big` created
 * and tracked, and `rows` inserted before anything reads it.
 */
export async function createBenchTable(
  sandbox: Pick<SandboxSqlServer, 'port'>,
  rows: readonly BenchRow[],
): Promise<void> {
  const setup = await openBenchSource(sandbox);
  try {
    await setup.pool.request()
      .batch(`ALTER DATABASE Sales SET CHANGE_TRACKING = ON (CHANGE_RETENTION = 5 DAYS);
      ALTER DATABASE Sales SET ALLOW_SNAPSHOT_ISOLATION ON;
      CREATE TABLE dbo.Big (Id INT PRIMARY KEY, Name NVARCHAR(50) NOT NULL, Amount DECIMAL(12, 2) NOT NULL, At DATETIME2(3) NOT NULL);
      ALTER TABLE dbo.Big ENABLE CHANGE_TRACKING;`);
    await insertBenchRows(setup.pool, rows);
  } finally {
    await setup.close();
  }
}

/** Rows into `dbo.Big`, a thousand per statement. */
export async function insertBenchRows(pool: sql.ConnectionPool, rows: readonly BenchRow[]): Promise<void> {
  for (let from = 0; from < rows.length; from += 1000) {
    const values = rows
      .slice(from, from + 1000)
      .map(([id, name, amount, at]) => `(${id}, N'${name}', ${amount}, '${at}')`);
    await pool.request().batch(`INSERT INTO dbo.Big VALUES ${values.join(', ')}`);
  }
}
