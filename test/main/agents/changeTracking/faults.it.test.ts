// Fault drills on a change-tracking pipeline: the simulated SQL Server drops connections unanswered
// (as a network failure or a server restart would), stalls, and breaks result sets off half way
// (error 1205, or the connection lost), in catalog reads, the snapshot and the change reads, while the
// source keeps changing. The runner retries with backoff; the target ends equal to the source.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type sql from 'mssql';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeTables } from '../../../../main/agents/drivers/mssql/shape';
import { PipelineRunner } from '../../../../main/runner/pipelineRunner';
import type { RunnerEvent } from '../../../../main/runner/events';
import { SqliteTarget } from '../../../../main/agents/sqlite/target';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../../../simulators/mssql';
import { openSeedAgentSource } from '../../../helpers/changeTracking';
import { sandboxPool } from '../../../helpers/sandbox';
import { sourceReplica, sqliteReplica } from '../../../helpers/replica';
import { until } from '../../../helpers/until';

let sandbox: SandboxSqlServer;
let admin: sql.ConnectionPool;
beforeEach(async () => {
  sandbox = await startSandboxSqlServer({ seed: true });
  admin = await sandboxPool(sandbox, { user: 'sa', password: 'Sandbox-Passw0rd', max: 1 });
});
afterEach(async () => {
  await admin.close();
  await sandbox.close();
});

const customers = { schema: 'dbo', table: 'Customers' };
// A chunk after the first: the copy has committed rows when it breaks off.
const SNAPSHOT_READ = /FROM \[dbo\]\.\[Customers\] AS t WHERE/;
// The read of a batch: its pending keys joined to the rows (pendingKeys.ts), a result set to break off.
const CHANGE_READ = /ct_keys_\d+ k LEFT JOIN/;

const QUICK_RETRIES = { firstDelayMs: 1, maxDelayMs: 10, maxAttempts: 20 };

function runner(path: string, events: RunnerEvent[], retry = QUICK_RETRIES) {
  return new PipelineRunner({
    openSource: () => openSeedAgentSource(sandbox, 'faults'),
    openTarget: async () => new SqliteTarget(path, 'faults'),
    entities: [{ source: customers, target: { table: 'customers' } }],
    onEvent: (e) => events.push(e),
    maxRows: 5,
    snapshotChunkRows: 2,
    retry,
    idleMs: 20,
  });
}

describe.each([
  ['dropped connections', 'drop', 0],
  ['stalls of 30 ms', 'stall', 30],
  ['errors 1205 half way through a result set', 'fail-mid-result', 0],
  ['connections lost half way through a result set', 'drop-mid-result', 0],
] as const)('%s during snapshot and stream', (_label, kind, ms) => {
  it('are retried, and the target ends equal to the source', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'cdc-ct-faults-')), 'replica.sqlite');
    const events: RunnerEvent[] = [];
    sandbox.injectFaults(kind, 2, ms);
    // A stall does not fail the snapshot, so it is read once: one stall strikes it.
    sandbox.injectFaults(kind, kind === 'stall' ? 1 : 2, ms, SNAPSHOT_READ);
    const first = runner(path, events);
    await first.runUntilCaughtUp();
    expect(first.failure).toBeNull();
    for (let round = 0; round < 3; round++) {
      await admin.request().batch(`
        INSERT INTO dbo.Customers (Name, Email, Country, CreatedAt) VALUES (N'Round ${round} a', NULL, 'CH', '2026-11-22 10:00:00');
        INSERT INTO dbo.Customers (Name, Email, Country, CreatedAt) VALUES (N'Round ${round} b', 'b@example.com', 'DE', '2026-11-22 11:00:00');
        UPDATE dbo.Customers SET Email = 'changed${round}@example.com' WHERE CustomerId = 1;`);
      // The round's changes are read once (a stall does not fail the read): one stall strikes it.
      sandbox.injectFaults(kind, kind === 'stall' ? 1 : 2, ms, CHANGE_READ);
      const next = runner(path, events);
      await next.runUntilCaughtUp();
      expect(next.failure).toBeNull();
    }
    expect(sandbox.pendingFaults()).toBe(0);
    // Each fault costs one retry, but the first two drops strike the sign-ons of the pool and of the
    // change reader, which one open makes together: one retry for both.
    const retries = kind === 'drop' ? 9 : 10;
    if (kind !== 'stall') expect(events.filter((e) => e.kind === 'retrying').length).toBe(retries);
    // The copy broke off after a chunk had reached the target, and resumed after it, not from the start.
    if (kind.endsWith('mid-result')) {
      expect(events.map((e) => e.kind).join(' ')).toMatch(/snapshot-progress retrying/);
      expect(events.find((e) => e.kind === 'snapshot-resumed')).toMatchObject({ rowsDone: 2 });
    }
    const [shape] = await describeTables(admin, [customers]);
    if (!shape) throw new Error('no shape');
    expect(sqliteReplica(path, 'customers', shape)).toEqual(await sourceReplica(admin, shape, 7));
  });
});

describe('a restart of the SQL Server under a running pipeline', () => {
  it('ends every connection and refuses new ones for a while; the runner retries, then catches up', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'cdc-ct-restart-')), 'replica.sqlite');
    const events: RunnerEvent[] = [];
    const running = runner(path, events, { firstDelayMs: 20, maxDelayMs: 100, maxAttempts: 40 });
    const loop = running.start();
    const [shape] = await describeTables(admin, [customers]);
    if (!shape) throw new Error('no shape');
    const applied = () => events.filter((e) => e.kind === 'batch-applied').length;
    await until('the snapshot', () => events.some((e) => e.kind === 'snapshot-done'));
    await admin.request().batch("UPDATE dbo.Customers SET Country = 'AT' WHERE CustomerId = 2");
    await until('the first batch', () => applied() === 1);

    await sandbox.restart(400);
    // The admin's own connection went with the restart, as every other did.
    await admin.close();
    admin = await sandboxPool(sandbox, { user: 'sa', password: 'Sandbox-Passw0rd', max: 1 });
    await admin.request().batch(`
      INSERT INTO dbo.Customers (Name, Email, Country, CreatedAt) VALUES (N'After restart', NULL, 'CH', '2026-11-22 12:00:00');
      DELETE FROM dbo.Customers WHERE CustomerId = 3;`);
    await until('the target to equal the source', async () => {
      const source = await sourceReplica(admin, shape, 7);
      return sqliteReplica(path, 'customers', shape).checksum === source.checksum;
    });
    await running.stop();
    await loop;
    expect(running.failure).toBeNull();
    // Sign-ons refused while it was down were retried, not taken for a wrong setting.
    const reasons = events.flatMap((e) => (e.kind === 'retrying' ? [e.reason] : []));
    expect(reasons.some((r) => /cannot be reached/.test(r))).toBe(true);
    expect(sqliteReplica(path, 'customers', shape)).toEqual(await sourceReplica(admin, shape, 7));
  });
});
