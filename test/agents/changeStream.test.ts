// The change-tracking agent driven as the runner will drive it: first snapshots, change batches,
// changes lost to retention answered with an event and a new snapshot, and a restart that resumes
// from the checkpoint at the source. After each step the copy equals the source, row for row.
import type sql from 'mssql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../main/sandbox/mssql';
import {
  openChangeTrackingSource,
  type ChangeTrackingSource,
} from '../../main/connectors/changeTracking/source';
import { streamStep, type ChangeSink, type StreamEvent } from '../../main/connectors/changeStream';
import type { Row } from '../../main/connectors/source';
import { ctConfiguration, sandboxCredentials } from '../helpers/changeTracking';
import { DBA, sandboxPool } from '../helpers/sandbox';

let clock = Date.UTC(2026, 10, 1);
let sandbox: SandboxSqlServer;
let admin: sql.ConnectionPool;
const readers: ChangeTrackingSource[] = [];
const tables = [
  { schema: 'dbo', table: 'Customers' },
  { schema: 'dbo', table: 'OrderLines' },
];

/** A copy of the source kept in memory: table → key → row. */
class MemorySink implements ChangeSink {
  readonly tables = new Map<string, Map<string, Row>>();
  constructor(private readonly keys: Record<string, string[]>) {}
  private keyOf(table: string, row: Row) {
    return JSON.stringify((this.keys[table] ?? []).map((k) => row[k]));
  }
  private table(name: string) {
    let t = this.tables.get(name);
    if (!t) this.tables.set(name, (t = new Map()));
    return t;
  }
  async snapshotBegin(table: string) {
    this.table(table).clear();
  }
  async snapshotRows(table: string, rows: Row[]) {
    for (const r of rows) this.table(table).set(this.keyOf(table, r), r);
  }
  async apply(changes: Parameters<ChangeSink['apply']>[0]) {
    for (const c of changes) {
      if (c.op === 'delete' || !c.row) this.table(c.table).delete(this.keyOf(c.table, c.key));
      else this.table(c.table).set(this.keyOf(c.table, c.key), c.row);
    }
  }
  sorted(table: string) {
    return [...this.table(table).values()].map((r) => JSON.stringify(r)).sort();
  }
}

async function sourceRows(table: string) {
  const { recordset } = await admin.request().query(`SELECT * FROM ${table}`);
  return recordset.map((r: Row) => JSON.stringify(r)).sort();
}
async function reader() {
  const r = await openChangeTrackingSource({
    credentials: sandboxCredentials(sandbox),
    configuration: ctConfiguration({ sourceChangeRetentionDays: 2 }),
    pipelineId: 'p1',
    agentId: 'src',
  });
  readers.push(r);
  return r;
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
});
afterAll(async () => {
  for (const r of readers) await r.close().catch(() => undefined);
  await admin?.close();
  await sandbox?.close();
});

describe('the change stream of the change-tracking agent', () => {
  const sink = new MemorySink({ 'dbo.Customers': ['Id'], 'dbo.OrderLines': ['OrderId', 'LineNo'] });
  const events: StreamEvent[] = [];
  const same = async () => {
    expect(sink.sorted('dbo.Customers')).toEqual(await sourceRows('dbo.Customers'));
    expect(sink.sorted('dbo.OrderLines')).toEqual(await sourceRows('dbo.OrderLines'));
  };

  it('snapshots every table on the first run, then applies batches of changes', async () => {
    const r = await reader();
    await streamStep(r, tables, sink, (e) => events.push(e));
    expect(events.map((e) => e.kind)).toEqual([
      'snapshot-started',
      'snapshot-done',
      'snapshot-started',
      'snapshot-done',
    ]);
    await same();

    await run(`INSERT INTO dbo.Customers VALUES (3, N'Marie', 1.00, NULL);
      UPDATE dbo.Customers SET Credit = 99.99 WHERE Id = 1;
      DELETE FROM dbo.OrderLines WHERE OrderId = 1000 AND LineNo = 2;
      INSERT INTO dbo.OrderLines VALUES (1001, 1, 'PN-1');`);
    events.length = 0;
    const step = await streamStep(r, tables, sink, (e) => events.push(e));
    expect(step.changes).toBe(4);
    expect(events).toEqual([{ kind: 'batch-applied', changes: 4, inserts: 2, updates: 1, deletes: 1 }]);
    await same();
  });

  it('re-snapshots a table whose changes were lost to retention, with the reason as an event', async () => {
    const r = await reader();
    await run("UPDATE dbo.Customers SET Name = N'Ada L.' WHERE Id = 1");
    clock += 3 * 86_400_000;
    await run("INSERT INTO dbo.OrderLines VALUES (1002, 1, 'BK-9')");
    // SQL Server's background cleanup, which the sandbox runs when change tracking is read outside a transaction.
    await admin.request().query("SELECT CHANGE_TRACKING_MIN_VALID_VERSION(OBJECT_ID('dbo.Customers')) AS v");
    events.length = 0;
    await streamStep(r, tables, sink, (e) => events.push(e));
    const lost = events.filter((e) => e.kind === 'resnapshot');
    // Customers lost a change it had not read; OrderLines had read all its expired ones and goes on.
    expect(lost.map((e) => e.table)).toEqual(['dbo.Customers']);
    expect(events.filter((e) => e.kind === 'batch-applied')).toEqual([
      { kind: 'batch-applied', changes: 1, inserts: 1, updates: 0, deletes: 0 },
    ]);
    expect(lost[0]).toMatchObject({ reason: expect.stringContaining('were removed by retention cleanup') });
    await same();
  });

  it('resumes after a restart from the checkpoint kept in the SYNC schema', async () => {
    await run(`UPDATE dbo.Customers SET Since = '2026-11-05 08:00:00.000' WHERE Id = 2;
      DELETE FROM dbo.Customers WHERE Id = 3;`);
    const restarted = await reader();
    events.length = 0;
    const step = await streamStep(restarted, tables, sink, (e) => events.push(e));
    expect(step.changes).toBe(2);
    expect(events.map((e) => e.kind)).toEqual(['batch-applied']);
    await same();
  });
});
