// The change-tracking agent driven by the runner: first snapshots, change batches, changes lost to
// retention answered with an event and a new snapshot, and a restart that resumes from the checkpoint
// at the source. After each step the SQLite copy equals the source, row for row.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type sql from 'mssql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../../../simulators/mssql';
import { openChangeTrackingSource } from '../../../../main/agents/changeTracking/source';
import { describeTables } from '../../../../main/agents/drivers/mssql/shape';
import type { TableShape } from '../../../../main/agents/source';
import { SqliteTarget } from '../../../../main/agents/sqlite/target';
import { PipelineRunner } from '../../../../main/runner/pipelineRunner';
import type { RunnerEvent } from '../../../../main/runner/events';
import { ctConfiguration, sandboxCredentials } from '../../../helpers/changeTracking';
import { sourceReplica, sqliteReplica } from '../../../helpers/replica';
import { DBA, sandboxPool } from '../../../helpers/sandbox';

let clock = Date.UTC(2026, 10, 1);
let sandbox: SandboxSqlServer;
let admin: sql.ConnectionPool;
let shapes: TableShape[];
const tables = [
  { schema: 'dbo', table: 'Customers' },
  { schema: 'dbo', table: 'OrderLines' },
];
const entities = tables.map((t) => ({ source: t, target: { table: t.table.toLowerCase() } }));
const replicaPath = join(mkdtempSync(join(tmpdir(), 'cdc-stream-')), 'replica.sqlite');

/** One run of the runner until it has caught up, as a restarted engine would start it. */
async function step(): Promise<RunnerEvent[]> {
  const events: RunnerEvent[] = [];
  await new PipelineRunner({
    openSource: () =>
      openChangeTrackingSource({
        credentials: sandboxCredentials(sandbox),
        configuration: ctConfiguration({ sourceChangeRetentionDays: 2 }),
        pipelineId: 'p1',
        agentId: 'src',
      }),
    openTarget: async () => new SqliteTarget(replicaPath, 'p1'),
    entities,
    onEvent: (e) => events.push(e),
  }).runUntilCaughtUp();
  const noise = new Set(['started', 'stopped', 'snapshot-progress', 'snapshot-chunk-read']);
  return events.filter((e) => !noise.has(e.kind));
}
const run = (text: string) => admin.request().batch(text);

beforeAll(async () => {
  sandbox = await startSandboxSqlServer({ logins: [DBA], databases: ['Sales'], now: () => new Date(clock) });
  admin = await sandboxPool(sandbox, { max: 2 });
  await run(`ALTER DATABASE Sales SET CHANGE_TRACKING = ON (CHANGE_RETENTION = 2 DAYS, AUTO_CLEANUP = ON);
    ALTER DATABASE Sales SET ALLOW_SNAPSHOT_ISOLATION ON;
    CREATE SCHEMA SYNC;
    CREATE TABLE dbo.Customers (Id INT PRIMARY KEY, Name NVARCHAR(50) NOT NULL, Credit DECIMAL(12, 2) NULL, Since DATETIME2(3) NULL);
    CREATE TABLE dbo.OrderLines (OrderId INT NOT NULL, LineNo SMALLINT NOT NULL, Sku VARCHAR(20) NOT NULL,
      CONSTRAINT PK_OrderLines PRIMARY KEY (OrderId, LineNo));
    ALTER TABLE dbo.Customers ENABLE CHANGE_TRACKING WITH (TRACK_COLUMNS_UPDATED = ON);
    ALTER TABLE dbo.OrderLines ENABLE CHANGE_TRACKING;
    INSERT INTO dbo.Customers VALUES (1, N'Ada', 10.50, '2026-01-01 10:00:00.123'), (2, N'Grace', NULL, NULL);
    INSERT INTO dbo.OrderLines VALUES (1000, 1, 'BK-1'), (1000, 2, 'BK-2');`);
  shapes = await describeTables(admin, tables);
});
afterAll(async () => {
  await admin?.close();
  await sandbox?.close();
});

describe('the change stream of the change-tracking agent', () => {
  const same = async () => {
    const source = await Promise.all(shapes.map((shape) => sourceReplica(admin, shape, 7)));
    expect(
      shapes.map((shape, i) => sqliteReplica(replicaPath, entities[i]?.target.table ?? '', shape)),
    ).toEqual(source);
  };
  const kinds = (events: RunnerEvent[]) => events.map((e) => e.kind);

  it('snapshots every table on the first run, then applies batches of changes', async () => {
    expect(kinds(await step())).toEqual([
      'snapshot-started',
      'snapshot-started',
      'snapshot-done',
      'snapshot-done',
    ]);
    await same();

    await run(`INSERT INTO dbo.Customers VALUES (3, N'Marie', 1.00, NULL);
      UPDATE dbo.Customers SET Credit = 99.99 WHERE Id = 1;
      DELETE FROM dbo.OrderLines WHERE OrderId = 1000 AND LineNo = 2;
      INSERT INTO dbo.OrderLines VALUES (1001, 1, 'PN-1');`);
    expect(await step()).toEqual([
      expect.objectContaining({ kind: 'batch-applied', changes: 4, inserts: 2, updates: 1, deletes: 1 }),
    ]);
    await same();
  });

  it('re-snapshots a table whose changes were lost to retention, with the reason as an event', async () => {
    await run("UPDATE dbo.Customers SET Name = N'Ada L.' WHERE Id = 1");
    clock += 3 * 86_400_000;
    await run("INSERT INTO dbo.OrderLines VALUES (1002, 1, 'BK-9')");
    // SQL Server's background cleanup, which the sandbox runs when change tracking is read outside a transaction.
    await admin.request().query("SELECT CHANGE_TRACKING_MIN_VALID_VERSION(OBJECT_ID('dbo.Customers')) AS v");
    const events = await step();
    const lost = events.filter((e) => e.kind === 'resnapshot');
    // Customers lost a change it had not read; OrderLines had read all its expired ones and goes on.
    expect(lost.map((e) => e.kind === 'resnapshot' && e.table)).toEqual(['dbo.Customers']);
    expect(lost[0]).toMatchObject({ reason: expect.stringContaining('were removed by retention cleanup') });
    expect(events.filter((e) => e.kind === 'batch-applied')).toEqual([
      expect.objectContaining({ kind: 'batch-applied', changes: 1, inserts: 1, updates: 0, deletes: 0 }),
    ]);
    await same();
  });

  it('resumes after a restart from the checkpoint kept in the SYNC schema', async () => {
    await run(`UPDATE dbo.Customers SET Since = '2026-11-05 08:00:00.000' WHERE Id = 2;
      DELETE FROM dbo.Customers WHERE Id = 3;`);
    expect(await step()).toEqual([expect.objectContaining({ kind: 'batch-applied', changes: 2 })]);
    await same();
  });

  it('a TRUNCATE TABLE while caught up empties the target table, with a reason that says truncation', async () => {
    expect(await step()).toEqual([]);
    await run('TRUNCATE TABLE dbo.OrderLines');
    const events = await step();
    expect(events.find((e) => e.kind === 'resnapshot')).toMatchObject({
      table: 'dbo.OrderLines',
      reason: expect.stringMatching(/^dbo\.OrderLines was truncated \(TRUNCATE TABLE\) after version \d+/),
    });
    expect(sqliteReplica(replicaPath, 'orderlines', shapes[1] as TableShape).rows).toEqual([]);
    await same();
  });

  it('a TRUNCATE TABLE while behind, between unread changes, ends with the target equal to the source', async () => {
    await run(`INSERT INTO dbo.OrderLines VALUES (2000, 1, 'AA-1'), (2000, 2, 'AA-2');
      UPDATE dbo.Customers SET Credit = 5.00 WHERE Id = 2;`);
    await run('TRUNCATE TABLE dbo.OrderLines');
    await run("INSERT INTO dbo.OrderLines VALUES (3000, 1, 'ZZ-1');");
    const events = await step();
    const lost = events.filter((e) => e.kind === 'resnapshot');
    expect(lost).toEqual([
      expect.objectContaining({
        table: 'dbo.OrderLines',
        reason: expect.stringContaining('was truncated (TRUNCATE TABLE)'),
      }),
    ]);
    await same();
    expect(sqliteReplica(replicaPath, 'orderlines', shapes[1] as TableShape).rows).toEqual(['3000|1|ZZ-1']);
  });
});
