// A sandbox SQL Server whose clock moves a second per change, and dbo.Ledger tracked by Change
// Tracking with the setup's changes made: each change's version and commit time recorded, for the
// tests that start or stop a pipeline at a version or a time.
import type sql from 'mssql';
import { afterAll, beforeAll } from 'vitest';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../simulators/mssql';
import type { SandboxLogin } from '../../simulators/mssql/host';
import type { RunnerEntity } from '../../main/runner/pipelineRunner';
import { DBA, sandboxPool } from './sandbox';

export const LEDGER: RunnerEntity[] = [
  { source: { schema: 'dbo', table: 'Ledger' }, target: { table: 'ledger' } },
];

export function clockedLedger(o: { start: string; changes: readonly string[]; logins?: SandboxLogin[] }) {
  let clock = Date.parse(o.start);
  let sandbox: SandboxSqlServer | undefined;
  let admin: sql.ConnectionPool | undefined;
  /** Each change made: the version it committed as, and its commit time as the view shows it. */
  const commits: { version: string; time: string }[] = [];
  const started = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error('The sandbox starts in beforeAll.');
    return v;
  };
  const change = async (statement: string): Promise<void> => {
    clock += 1000;
    const pool = started(admin);
    await pool.request().batch(statement);
    const { recordset } = await pool
      .request()
      .query<{ v: string; t: Date }>(
        'SELECT commit_ts AS v, commit_time AS t FROM sys.dm_tran_commit_table WHERE commit_ts = CHANGE_TRACKING_CURRENT_VERSION()',
      );
    const [row] = recordset;
    if (row)
      commits.push({ version: String(row.v), time: row.t.toISOString().slice(0, 23).replace('T', ' ') });
  };
  beforeAll(async () => {
    sandbox = await startSandboxSqlServer({
      logins: [DBA, ...(o.logins ?? [])],
      databases: ['Sales'],
      now: () => new Date(clock),
    });
    admin = await sandboxPool(sandbox, { max: 1 });
    await admin.request().batch(`
      ALTER DATABASE Sales SET CHANGE_TRACKING = ON (CHANGE_RETENTION = 2 DAYS, AUTO_CLEANUP = ON);
      ALTER DATABASE Sales SET ALLOW_SNAPSHOT_ISOLATION ON;
      CREATE SCHEMA SYNC;
      CREATE TABLE dbo.Ledger (Id INT PRIMARY KEY, Name NVARCHAR(10) NOT NULL);
      ALTER TABLE dbo.Ledger ENABLE CHANGE_TRACKING;`);
    for (const statement of o.changes) await change(statement);
  });
  afterAll(async () => {
    await admin?.close();
    await sandbox?.close();
  });
  return {
    commits,
    change,
    /** Moves the sandbox clock on (past a retention, say). */
    advance: (ms: number) => {
      clock += ms;
    },
    get sandbox() {
      return started(sandbox);
    },
    get admin() {
      return started(admin);
    },
  };
}
