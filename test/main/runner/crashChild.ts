// The runner in a process of its own, for the crash test: it replicates the sandbox's tables into a
// SQLite file and prints each event as a line of JSON, until killed (or, with --until-caught-up, until
// the source has nothing more to give).
import { openChangeTrackingSource } from '../../../main/agents/changeTracking/source';
import { PipelineRunner } from '../../../main/runner/pipelineRunner';
import { SqliteTarget } from '../../../main/agents/sqlite/target';

const [port = '', path = '', mode = ''] = process.argv.slice(2);
const runner = new PipelineRunner({
  openSource: () =>
    openChangeTrackingSource({
      credentials: {
        connectionName: 'crash',
        host: '127.0.0.1',
        port: Number(port),
        databaseName: 'Sales',
        username: 'dba',
        password: 'Dba-Pa55',
        maxConnectionsCount: 2,
        enableTls: false,
      },
      configuration: {
        enableRecursionProtection: false,
        sourceChangeRetentionDays: 5,
        retentionWarningPercent: 25,
        heartbeatSeconds: 0,
        snapshotMode: 'initial',
        snapshotChunkRows: 50,
        droppedColumns: 'keep',
        onTableError: 'suspend-table',
        maxExceptions: 1000,
        schemaChanges: 'propagate',
        droppedTables: 'keep',
      },
      pipelineId: 'crash',
      agentId: 'src',
    }),
  openTarget: async () => new SqliteTarget(path, 'crash'),
  entities: ['Accounts', 'Entries'].map((table) => ({ source: { schema: 'dbo', table }, target: { table } })),
  onEvent: (e) => process.stdout.write(`${JSON.stringify(e)}\n`),
  idleMs: 20,
  maxRows: 40,
  snapshotChunkRows: 50,
  retry: { firstDelayMs: 20, maxDelayMs: 200, maxAttempts: 20 },
});
process.stdout.write('{"kind":"ready"}\n');
await (mode === '--until-caught-up' ? runner.runUntilCaughtUp() : runner.start());
process.exit(runner.state === 'failed' ? 1 : 0);
