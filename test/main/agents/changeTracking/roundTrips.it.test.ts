// The change-tracking agent's round trips: a connection the pool hands out is not checked with a
// `SELECT 1;` of its own (each one a round trip, a fifth of a copy's requests over a slow link). The
// simulated server counts them: a stall of 0 ms armed for every `SELECT 1;` strikes once per such
// request, so the faults still pending tell how many were sent.
import type sql from 'mssql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../../../simulators/mssql';
import { openChangeTrackingSource } from '../../../../main/agents/changeTracking/source';
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
