// The change-tracking agent on a benchmark's own sandbox SQL Server (the benchmarks' shared login).
import type { SandboxSqlServer } from '../main/sandbox/mssql';
import { openChangeTrackingSource } from '../main/connectors/changeTracking/source';

export const BENCH_LOGIN = { name: 'bench', password: 'Bench-Pa55' };

export const openBenchSource = (sandbox: SandboxSqlServer) =>
  openChangeTrackingSource({
    credentials: {
      connectionName: 'bench',
      host: '127.0.0.1',
      port: sandbox.port,
      databaseName: 'Sales',
      username: BENCH_LOGIN.name,
      password: BENCH_LOGIN.password,
      maxConnectionsCount: 2,
      enableTls: false,
    },
    configuration: {
      enableRecursionProtection: false,
      sourceChangeRetentionDays: 5,
      snapshotMode: 'initial',
      snapshotChunkRows: 10_000,
    },
    pipelineId: 'bench',
    agentId: 'src',
  });
