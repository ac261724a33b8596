// Local test replication from the simulated SQL Server (the sample Sales database) into SQLite and
// into the real PostgreSQL of this machine: snapshot, changes of every kind, a restart that resumes,
// and after each step the target equal to the source, row for row (a checksum over all columns).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type sql from 'mssql';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../../../simulators/mssql';
import { openChangeTrackingSource } from '../../../../main/agents/changeTracking/source';
import { describeTables } from '../../../../main/agents/drivers/mssql/shape';
import type { TableShape } from '../../../../main/agents/source';
import { PipelineRunner, type RunnerEntity } from '../../../../main/runner/pipelineRunner';
import type { RunnerEvent } from '../../../../main/runner/events';
import { SqliteTarget } from '../../../../main/agents/sqlite/target';
import { PostgresTarget } from '../../../../main/agents/postgresql/target';
import { MssqlTarget } from '../../../../main/agents/changeTracking/target';
import type { Target } from '../../../../main/agents/target';
import { ctConfiguration, sandboxCredentials } from '../../../helpers/changeTracking';
import { sandboxPool } from '../../../helpers/sandbox';
import {
  POSTGRES,
  postgresClient,
  postgresReplicas,
  sourceReplica,
  sqliteReplica,
  type Replica,
} from '../../../helpers/replica';

const AGENT = { name: 'cdc_agent', password: 'Agent-Passw0rd' };
let sandbox: SandboxSqlServer;
let admin: sql.ConnectionPool;
let shapes: TableShape[];
const entities: RunnerEntity[] = ['Customers', 'Orders', 'OrderLines'].map((table) => ({
  source: { schema: 'dbo', table },
  target: { table: table.toLowerCase() },
}));

function runner(pipelineId: string, openTarget: () => Promise<Target>, events: RunnerEvent[] = []) {
  return new PipelineRunner({
    openSource: () =>
      openChangeTrackingSource({
        credentials: sandboxCredentials(sandbox, { username: AGENT.name, password: AGENT.password }),
        configuration: ctConfiguration({ sourceChangeRetentionDays: 2 }),
        pipelineId,
        agentId: 'sales',
      }),
    openTarget,
    entities,
    onEvent: (e) => events.push(e),
    snapshotChunkRows: 2,
    retry: { firstDelayMs: 10, maxDelayMs: 50, maxAttempts: 3 },
  });
}

const CHANGES = `
  INSERT INTO dbo.Customers (Name, Email, Country, CreatedAt) VALUES (N'Hedy Lamarr', 'hedy@example.com', 'AT', '2026-04-01 07:00:00.250');
  UPDATE dbo.Customers SET Email = NULL WHERE CustomerId = 1;
  DELETE FROM dbo.Customers WHERE CustomerId = 3;
  INSERT INTO dbo.Orders (CustomerId, OrderedAt, Status, Total, RowGuid) VALUES (4, '2026-04-02 09:15:30.9876543', N'Open', 123456.78, NEWID());
  UPDATE dbo.Orders SET Status = N'Paid', Total = Total + 0.01 WHERE OrderId = 1001;
  UPDATE dbo.OrderLines SET LineNo = 3 WHERE OrderId = 1000 AND LineNo = 2;
  INSERT INTO dbo.OrderLines (OrderId, LineNo, Sku, Quantity, Price) VALUES (1001, 2, 'PN-010', 3, 12.50);
`;

beforeAll(async () => {
  sandbox = await startSandboxSqlServer({ seed: true, databases: ['master', 'Sales', 'Replica'] });
  admin = await sandboxPool(sandbox, { user: 'sa', password: 'Sandbox-Passw0rd', max: 2 });
  shapes = await describeTables(
    admin,
    entities.map((e) => e.source),
  );
});
afterAll(async () => {
  await admin?.close();
  await sandbox?.close();
});

async function sourceReplicas(fractionDigits: number): Promise<Replica[]> {
  return Promise.all(shapes.map((s) => sourceReplica(admin, s, fractionDigits)));
}

describe('simulated SQL Server → SQLite', () => {
  const path = join(mkdtempSync(join(tmpdir(), 'cdc-replica-')), 'replica.sqlite');
  const target = async () => new SqliteTarget(path, 'to-sqlite');
  const replicas = () => shapes.map((s, i) => sqliteReplica(path, entities[i]?.target.table ?? '', s));

  it('snapshots every table with progress, and the copy equals the source', async () => {
    const events: RunnerEvent[] = [];
    await runner('to-sqlite', target, events).runUntilCaughtUp();
    expect(events.filter((e) => e.kind === 'failed')).toEqual([]);
    expect(
      events.filter((e) => e.kind === 'snapshot-done').map((e) => e.kind === 'snapshot-done' && e.table),
    ).toEqual(['dbo.Customers', 'dbo.Orders', 'dbo.OrderLines']);
    const progress = events.filter((e) => e.kind === 'snapshot-progress' && e.table === 'dbo.Customers');
    expect(progress.at(-1)).toMatchObject({ rowsDone: 4, rowsTotal: 4 });
    expect(replicas()).toEqual(await sourceReplicas(7));
  });

  it('applies inserts, updates, deletes and a key update after a restart, and still equals the source', async () => {
    await admin.request().batch(CHANGES);
    const events: RunnerEvent[] = [];
    await runner('to-sqlite', target, events).runUntilCaughtUp();
    const applied = events.filter((e) => e.kind === 'batch-applied');
    expect(applied).toHaveLength(1);
    // The key update of an order line is a delete and an insert, as Change Tracking records it.
    expect(applied[0]).toMatchObject({ changes: 8, inserts: 4, updates: 2, deletes: 2 });
    // Lag: from the source commit (sys.dm_tran_commit_table) to the target commit, a moment ago.
    const lag = applied[0]?.kind === 'batch-applied' ? applied[0].lagMs : undefined;
    expect(lag).toBeGreaterThanOrEqual(0);
    expect(lag).toBeLessThan(60_000);
    const now = replicas();
    expect(now.map((r) => r.checksum)).toEqual((await sourceReplicas(7)).map((r) => r.checksum));
    expect(now.map((r) => r.rows)).toEqual((await sourceReplicas(7)).map((r) => r.rows));
  });
});

describe('simulated SQL Server → PostgreSQL', () => {
  const schema = `cdc_test_${process.pid}`;
  let client: pg.Client;
  const target = async () => new PostgresTarget({ ...POSTGRES, schema }, 'to-postgres');
  const replicas = () =>
    postgresReplicas(
      client,
      schema,
      shapes.map((s, i) => [entities[i]?.target.table ?? '', s] as const),
    );

  beforeAll(async () => {
    client = await postgresClient();
  });
  afterAll(async () => {
    await client?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client?.end();
  });

  it('creates typed tables, snapshots, streams, and the copy equals the source', async () => {
    const events: RunnerEvent[] = [];
    await runner('to-postgres', target, events).runUntilCaughtUp();
    expect(events.filter((e) => e.kind === 'failed')).toEqual([]);
    expect(await replicas()).toEqual(await sourceReplicas(6));
    const { rows } = await client.query(
      `SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'orders' ORDER BY ordinal_position`,
      [schema],
    );
    expect(rows).toEqual([
      { column_name: 'OrderId', data_type: 'integer' },
      { column_name: 'CustomerId', data_type: 'integer' },
      { column_name: 'OrderedAt', data_type: 'timestamp without time zone' },
      { column_name: 'Status', data_type: 'character varying' },
      { column_name: 'Total', data_type: 'numeric' },
      { column_name: 'RowGuid', data_type: 'uuid' },
    ]);
    await admin
      .request()
      .batch(
        "UPDATE dbo.Customers SET Name = N'Ada King' WHERE CustomerId = 1; DELETE FROM dbo.OrderLines WHERE OrderId = 1001;",
      );
    await runner('to-postgres', target).runUntilCaughtUp();
    const [mine, theirs] = [await replicas(), await sourceReplicas(6)];
    expect(mine.map((r) => r.checksum)).toEqual(theirs.map((r) => r.checksum));
  });
});

describe('simulated SQL Server → simulated SQL Server (another database)', () => {
  it('creates the tables with the source types, and the copy equals the source', async () => {
    const replica = await sandboxPool(sandbox, {
      user: 'sa',
      password: 'Sandbox-Passw0rd',
      database: 'Replica',
      max: 2,
    });
    const target = async () =>
      new MssqlTarget(
        await sandboxPool(sandbox, { user: 'sa', password: 'Sandbox-Passw0rd', database: 'Replica', max: 2 }),
        'to-mssql',
        false,
        'Replica',
      );
    const events: RunnerEvent[] = [];
    await runner('to-mssql', target, events).runUntilCaughtUp();
    expect(events.filter((e) => e.kind === 'failed')).toEqual([]);
    await admin
      .request()
      .batch(
        'UPDATE dbo.Orders SET Total = 1.23 WHERE OrderId = 1000; DELETE FROM dbo.Customers WHERE CustomerId = 2;',
      );
    await runner('to-mssql', target).runUntilCaughtUp();
    for (const [i, shape] of shapes.entries()) {
      const copy = { ...shape, ref: { schema: 'dbo', table: entities[i]?.target.table ?? '' } };
      expect((await sourceReplica(replica, copy)).rows).toEqual((await sourceReplica(admin, shape)).rows);
    }
    const [copied] = await describeTables(replica, [{ schema: 'dbo', table: 'orders' }]);
    expect(copied?.columns.map((c) => c.sourceType)).toEqual(shapes[1]?.columns.map((c) => c.sourceType));
    await replica.close();
  });
});
