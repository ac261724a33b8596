// The change-tracking agent's round trips: a connection the pool hands out is not checked with a
// `SELECT 1;` of its own (each one a round trip, a fifth of a copy's requests over a slow link). The
// simulated server counts them: a stall of 0 ms armed for every `SELECT 1;` strikes once per such
// request, so the faults still pending tell how many were sent. And a batch's requests in series,
// counted by a proxy on the link (simulators/delayLink.ts), do not grow with its tables.
import type sql from 'mssql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../../../simulators/mssql';
import { startDelayLink } from '../../../../simulators/delayLink';
import { openChangeTrackingSource } from '../../../../main/agents/changeTracking/source';
import { openPool } from '../../../../main/agents/drivers/mssql/connection';
import type { Checkpoint } from '../../../../main/agents/source';
import { ctConfiguration, sandboxCredentials, TRACKED_ORDERS } from '../../../helpers/changeTracking';
import { DBA, sandboxPool } from '../../../helpers/sandbox';

let sandbox: SandboxSqlServer;
let admin: sql.ConnectionPool;
const orders = { schema: 'dbo', table: 'Orders' };
const ARMED = 10_000;

beforeAll(async () => {
  sandbox = await startSandboxSqlServer({ logins: [DBA], databases: ['Sales'] });
  admin = await sandboxPool(sandbox, { max: 2 });
  await admin.request().batch(TRACKED_ORDERS);
});
afterAll(async () => {
  await admin?.close();
  await sandbox?.close();
});

describe('round trips of the change-tracking agent', () => {
  it('sends no SELECT 1 to check a pooled connection, through a copy and a catch-up', async () => {
    // An RPC's text is its procedure and its text parameters, a line each (faults.ts).
    sandbox.injectFaults('stall', ARMED, 0, /(^|\n)\s*SELECT 1;?\s*$/i);
    // The admin pool's own requests (a default pool checks each connection with a SELECT 1 too).
    let byAdmin = 0;
    const asAdmin = async (work: () => Promise<unknown>) => {
      const before = sandbox.pendingFaults();
      await work();
      byAdmin += before - sandbox.pendingFaults();
    };
    // The count works: a SELECT 1 sent on purpose strikes.
    await asAdmin(() => admin.request().query('SELECT 1;'));
    expect(byAdmin).toBeGreaterThanOrEqual(1);
    const source = await openChangeTrackingSource({
      credentials: sandboxCredentials(sandbox, { maxConnectionsCount: 2 }),
      configuration: ctConfiguration(),
      pipelineId: 'trips',
      agentId: 'src',
    });
    try {
      const start = await source.snapshotStart(orders);
      const chunk = await source.readChunk(orders, null, 1);
      await source.readChunk(orders, chunk.next, 10);
      await asAdmin(() => admin.request().batch("UPDATE dbo.Orders SET Status = N'Paid' WHERE Id = 1"));
      for (let i = 0; i < 5; i++) {
        const batch = await source.readChanges([orders], { 'dbo.Orders': start });
        expect(batch.changes.map((c) => c.key.Id)).toEqual([1]);
      }
    } finally {
      await source.close();
    }
    expect(ARMED - sandbox.pendingFaults()).toBe(byAdmin);
  });
});

const WIDE = Array.from({ length: 20 }, (_, i) => ({ schema: 'dbo', table: `Wide${i}` }));

describe('a batch over many tables', () => {
  it('makes as many requests in series as a batch over one table', async () => {
    for (const t of WIDE)
      await admin.request()
        .batch(`CREATE TABLE dbo.${t.table} (Id INT PRIMARY KEY, Note NVARCHAR(20) NOT NULL);
        ALTER TABLE dbo.${t.table} ENABLE CHANGE_TRACKING;`);
    const link = await startDelayLink({ port: sandbox.port }, 0);
    const open = () =>
      openChangeTrackingSource({
        credentials: sandboxCredentials(link, { maxConnectionsCount: 2 }),
        configuration: ctConfiguration(),
        pipelineId: 'wide',
        agentId: 'src',
      });
    const source = await open();
    // The turns of each batch of a catch-up of 30 changes, 10 a batch, once the connections are up.
    const catchUp = async (tables: typeof WIDE, from: Checkpoint) => {
      const turns: number[] = [];
      let checkpoint = from;
      for (let caughtUp = false; !caughtUp;) {
        const before = link.turns;
        const batch = await source.readChanges(tables, checkpoint, { maxRows: 10 });
        turns.push(link.turns - before);
        checkpoint = batch.checkpoint;
        caughtUp = batch.caughtUp === true;
      }
      return turns;
    };
    try {
      const start = (
        await admin.request().query<{ v: string }>('SELECT CHANGE_TRACKING_CURRENT_VERSION() AS v')
      ).recordset[0]?.v;
      const at = (tables: typeof WIDE) =>
        Object.fromEntries(tables.map((t) => [`${t.schema}.${t.table}`, String(start)]));
      // A first batch signs on and describes its tables: for 21 as for one. Then what follows is
      // batches alone.
      const lone = await open();
      let before = link.turns;
      await lone.readChanges([orders], at([orders]));
      const firstOfOne = link.turns - before;
      await lone.close();
      before = link.turns;
      await source.readChanges([orders, ...WIDE], at([orders, ...WIDE]));
      expect(link.turns - before).toBe(firstOfOne);
      for (let id = 0; id < 30; id++)
        await admin.request().batch(`INSERT INTO dbo.Wide${id % 20} VALUES (${id}, N'n${id}');
          INSERT INTO dbo.Orders VALUES (${100 + id}, N'Open');`);
      const one = await catchUp([orders], at([orders]));
      const twenty = await catchUp(WIDE, at(WIDE));
      expect(one.length).toBe(3);
      expect(twenty).toEqual(one);
      // Begin, the head, the rows and commit on the reader, the commit times beside them on the pool;
      // the first batch also loads the keys. They were two statements per table, one after another.
      expect(one).toEqual([6, 5, 5]);
    } finally {
      await source.close();
      await link.close();
    }
  });
});

describe('a pool’s sign-on', () => {
  it('hands out the connection connect() signed on with, and signs on again only when needed', async () => {
    const link = await startDelayLink({ port: sandbox.port }, 0);
    const credentials = sandboxCredentials(link, { maxConnectionsCount: 2 });
    try {
      // connect() signs on to test the settings; that session serves the first request.
      const pool = await openPool(credentials);
      expect(link.connections).toEqual({ accepted: 1, open: 1 });
      await pool.request().query('SELECT 1 AS one');
      expect(link.connections).toEqual({ accepted: 1, open: 1 });
      // Two requests at once need a second session.
      await Promise.all([pool.request().query('SELECT 1 AS one'), pool.request().query('SELECT 2 AS two')]);
      expect(link.connections).toEqual({ accepted: 2, open: 2 });
      await pool.close();
      await until(() => link.connections.open === 0);
      // Closed before its first request, the session kept is closed with the pool.
      const unused = await openPool(credentials);
      await unused.close();
      await until(() => link.connections.open === 0);
      expect(link.connections.accepted).toBe(3);
      // A session the server ended while it waited is replaced, not handed out.
      const waited = await openPool(credentials);
      await sandbox.restart(0);
      await until(() => link.connections.open === 0);
      const [row] = (await waited.request().query<{ one: number }>('SELECT 1 AS one')).recordset;
      expect(row?.one).toBe(1);
      expect(link.connections.accepted).toBe(5);
      await waited.close();
      // A session no request takes is closed after the pool's idle time, as an idle one would be.
      const idle = await openPool(credentials, { idleTimeoutMillis: 100 });
      expect(link.connections.open).toBe(1);
      await until(() => link.connections.open === 0);
      const [again] = (await idle.request().query<{ one: number }>('SELECT 1 AS one')).recordset;
      expect(again?.one).toBe(1);
      await idle.close();
    } finally {
      await link.close();
    }
  });
});

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(done()).toBe(true);
}
