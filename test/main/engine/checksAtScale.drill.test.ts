// The change-tracking agent with 1,200 entities on the simulated SQL Server: more tables than one
// statement may name (SQL Server takes 2,100 parameters; the simulator, as SQLite, 500 UNION terms).
// The checks, the tables view, the backlog and a change batch all answer, in bounded statements; a
// table missing among them is named; a database error during the checks is a failed check with SQL
// Server's message, never a failed request. Times are measured by `npm run bench` (changeTracking).
import type sql from 'mssql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runChecks } from '../../../main/agents/changeTracking/checks';
import { openChangeTrackingSource } from '../../../main/agents/changeTracking/source';
import { changeTrackingTables } from '../../../main/agents/changeTracking/tables';
import type { Entity } from '../../../shared/controlApi';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../../simulators/mssql';
import { ctConfiguration, sandboxCredentials } from '../../helpers/changeTracking';
import { DBA, sandboxPool } from '../../helpers/sandbox';

const COUNT = 1_200;
const entity = (name: string): Entity => ({
  source: { schema: 'dbo', table: name },
  target: { table: name.toLowerCase() },
  rowIdentification: { kind: 'primaryKey' },
});
const entities = Array.from({ length: COUNT }, (_, i) => entity(`T${i}`));

let sandbox: SandboxSqlServer;
let admin: sql.ConnectionPool;
const credentials = () => sandboxCredentials(sandbox);
const configuration = ctConfiguration({ sourceChangeRetentionDays: 2 });

beforeAll(async () => {
  sandbox = await startSandboxSqlServer({ logins: [DBA], databases: ['Sales'] });
  admin = await sandboxPool(sandbox);
  await admin
    .request()
    .batch(
      'ALTER DATABASE Sales SET CHANGE_TRACKING = ON (CHANGE_RETENTION = 2 DAYS, AUTO_CLEANUP = ON); ' +
        'ALTER DATABASE Sales SET ALLOW_SNAPSHOT_ISOLATION ON; CREATE SCHEMA SYNC;',
    );
  for (let at = 0; at < COUNT; at += 100)
    await admin
      .request()
      .batch(
        Array.from(
          { length: 100 },
          (_, k) =>
            `CREATE TABLE dbo.T${at + k} (Id INT PRIMARY KEY, V INT); ALTER TABLE dbo.T${at + k} ENABLE CHANGE_TRACKING;`,
        ).join('\n'),
      );
}, 300_000);
afterAll(async () => {
  await admin?.close();
  await sandbox?.close();
});

describe(`${COUNT} entities on one change-tracking agent`, () => {
  it('every check answers, and passes', async () => {
    const checks = await runChecks(admin, credentials(), configuration, entities);
    expect(checks.filter((c) => c.status !== 'passed')).toEqual([]);
    expect(checks.find((c) => c.id === 'table-permissions')?.message).toBe(
      `The login reads and writes all ${COUNT} entity tables.`,
    );
  });

  it('a table missing among them is named, the others pass', async () => {
    const checks = await runChecks(admin, credentials(), configuration, [...entities, entity('Gone')]);
    expect(checks.find((c) => c.id === 'entity-tables')).toMatchObject({
      status: 'failed',
      message: expect.stringContaining(': dbo.Gone.'),
    });
    expect(checks.find((c) => c.id === 'change-tracking-tables')?.status).toBe('passed');
  });

  it('a database error during the checks is a check that could not run, with SQL Server’s number and message', async () => {
    sandbox.injectFaults('fail-mid-result', 1, 0, /HAS_PERMS_BY_NAME/);
    const checks = await runChecks(admin, credentials(), configuration, entities);
    expect(checks.find((c) => c.id === 'table-permissions')).toMatchObject({
      status: 'unchecked',
      message: expect.stringMatching(/^SQL Server answered error 1205: /),
    });
    expect(checks.find((c) => c.id === 'primary-keys')?.status).toBe('passed');
  });

  // 1,200 tables' catalogue, backlog and changes through the simulator: ~30 s on a loaded 2-core
  // machine. What is checked is that every table is covered; speed is the benchmarks' business.
  it('the tables view, the backlog and a change batch cover every table', async () => {
    expect((await changeTrackingTables(admin, entities)).filter((t) => t.problem !== null)).toEqual([]);
    const source = await openChangeTrackingSource({
      credentials: credentials(),
      configuration,
      pipelineId: 'scale',
      agentId: 'src',
    });
    try {
      const refs = entities.map((e) => e.source);
      const start = await source.snapshotStart(refs[0] ?? { schema: 'dbo', table: 'T0' });
      const checkpoint = Object.fromEntries(refs.map((r) => [`${r.schema}.${r.table}`, start]));
      await admin.request().batch('INSERT INTO dbo.T0 VALUES (1, 1); INSERT INTO dbo.T1199 VALUES (2, 2);');
      const backlog = await source.backlog(refs, checkpoint);
      expect(backlog.perTable).toHaveLength(COUNT);
      expect(backlog.rowsToRead).toBe(2);
      const batch = await source.readChanges(refs, checkpoint);
      expect(batch.resnapshot).toEqual([]);
      expect(batch.changes.map((c) => [c.table, c.op, c.key])).toEqual([
        ['dbo.T0', 'insert', { Id: 1 }],
        ['dbo.T1199', 'insert', { Id: 2 }],
      ]);
      // The checkpoint at the source, one row per table (two parameters each, past 2,100 in one request).
      await source.saveCheckpoint(batch.checkpoint);
      expect(await source.loadCheckpoint()).toEqual(batch.checkpoint);
    } finally {
      await source.close();
    }
  }, 120_000);
});
