// Reading changes as a DBA relies on: changes lost to retention lead to a new snapshot (never a silent
// skip), recursion protection in a two-way setup on one table, and two engines with their own
// temporary-table prefixes reading one source at once.
import sql from 'mssql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../../../simulators/mssql';
import {
  changeTrackingContext,
  openChangeTrackingSource,
  type ChangeTrackingSource,
} from '../../../../main/agents/changeTracking/source';
import type { Change, Checkpoint } from '../../../../main/agents/source';
import { ctConfiguration, sandboxCredentials, TRACKED_ORDERS } from '../../../helpers/changeTracking';
import { DBA, sandboxPool } from '../../../helpers/sandbox';

let clock = Date.UTC(2026, 10, 1);
let sandbox: SandboxSqlServer;
let admin: sql.ConnectionPool;
const sources: ChangeTrackingSource[] = [];
const orders = { schema: 'dbo', table: 'Orders' };
const key = 'dbo.Orders';

async function source(
  options: { pipelineId?: string; prefix?: string; recursion?: boolean; trace?: (s: string) => void } = {},
) {
  const s = await openChangeTrackingSource({
    credentials: sandboxCredentials(sandbox),
    configuration: ctConfiguration({
      enableRecursionProtection: options.recursion ?? false,
      ...(options.prefix !== undefined && { temporaryTablePrefix: options.prefix }),
    }),
    pipelineId: options.pipelineId ?? 'p1',
    agentId: 'src',
    trace: options.trace,
  });
  sources.push(s);
  return s;
}
const run = (text: string) => admin.request().batch(text);
const ids = (changes: Change[]) => changes.map((c) => `${c.op}:${String(c.key.Id)}`);

beforeAll(async () => {
  sandbox = await startSandboxSqlServer({ logins: [DBA], databases: ['Sales'], now: () => new Date(clock) });
  admin = await sandboxPool(sandbox, { max: 2 });
  await run(TRACKED_ORDERS);
});
afterAll(async () => {
  for (const s of sources) await s.close().catch(() => undefined);
  await admin?.close();
  await sandbox?.close();
});

describe('retention', () => {
  it('changes lost to retention stop the table with the reason, and a new snapshot resumes it', async () => {
    const reader = await source();
    const { position } = await reader.snapshot(orders, async () => undefined);
    await run("UPDATE dbo.Orders SET Status = N'Paid' WHERE Id = 1");
    // Three days later (retention is two), the cleanup has run, as SQL Server's background task would.
    clock += 3 * 86_400_000;
    await run("INSERT INTO dbo.Orders VALUES (3, N'Open')");
    await admin.request().query("SELECT CHANGE_TRACKING_MIN_VALID_VERSION(OBJECT_ID('dbo.Orders')) AS v");

    const lost = await reader.readChanges([orders], { [key]: position });
    expect(lost.changes).toEqual([]);
    expect(lost.resnapshot).toHaveLength(1);
    expect(lost.resnapshot[0]?.reason).toMatch(
      /^Changes to dbo\.Orders after version \d+ were removed by retention cleanup \(its minimum valid version is now \d+\): it needs a new snapshot\.$/,
    );
    // The checkpoint of the lost table does not move: nothing was read.
    expect(lost.checkpoint[key]).toBe(position);

    const rows: unknown[] = [];
    const again = await reader.snapshot(orders, async (page) => void rows.push(...page));
    expect(rows).toHaveLength(3);
    await run("UPDATE dbo.Orders SET Status = N'Shipped' WHERE Id = 3");
    const resumed = await reader.readChanges([orders], { [key]: again.position });
    expect(resumed.resnapshot).toEqual([]);
    expect(ids(resumed.changes)).toEqual(['update:3']);
    expect(resumed.changes[0]?.changedColumns).toEqual(['Status']);
  });
});

describe('recursion protection', () => {
  it('skips the changes this pipeline wrote back to the table it reads, and only those', async () => {
    const protectedReader = await source({ pipelineId: 'two-way', recursion: true });
    const plainReader = await source({ pipelineId: 'two-way', recursion: false });
    const { position } = await protectedReader.snapshot(orders, async () => undefined);
    // The application changes row 1; the pipeline's own writer applies a change from the other side to row 2.
    await run("UPDATE dbo.Orders SET Status = N'App' WHERE Id = 1");
    await admin
      .request()
      .input('ctx', sql.VarBinary(128), changeTrackingContext('two-way'))
      .query("WITH CHANGE_TRACKING_CONTEXT (@ctx) UPDATE dbo.Orders SET Status = N'Echo' WHERE Id = 2");
    // Another pipeline's writes carry another context: they are changes like any other.
    await admin
      .request()
      .input('ctx', sql.VarBinary(128), changeTrackingContext('other'))
      .query("WITH CHANGE_TRACKING_CONTEXT (@ctx) UPDATE dbo.Orders SET Status = N'Other' WHERE Id = 3");
    const from = { [key]: position };
    expect(ids((await protectedReader.readChanges([orders], from)).changes)).toEqual([
      'update:1',
      'update:3',
    ]);
    expect(ids((await plainReader.readChanges([orders], from)).changes)).toEqual([
      'update:1',
      'update:2',
      'update:3',
    ]);
  });
});

describe('temporary table prefix', () => {
  it('two engines with their own prefixes read one source at once, each with its own table and checkpoint', async () => {
    const statements = { a: [] as string[], b: [] as string[] };
    const a = await source({ pipelineId: 'p1', prefix: 'engA_', trace: (s) => statements.a.push(s) });
    const b = await source({ pipelineId: 'p1', prefix: 'engB_', trace: (s) => statements.b.push(s) });
    const [snapA, snapB] = await Promise.all([
      a.snapshot(orders, async () => undefined),
      b.snapshot(orders, async () => undefined),
    ]);
    let checkpointA: Checkpoint = { [key]: snapA.position };
    let checkpointB: Checkpoint = { [key]: snapB.position };
    const seenA: string[] = [];
    const seenB: string[] = [];
    for (let round = 0; round < 4; round++) {
      await run(`INSERT INTO dbo.Orders VALUES (${100 + round}, N'New')`);
      const [batchA, batchB] = await Promise.all([
        a.readChanges([orders], checkpointA),
        b.readChanges([orders], checkpointB),
      ]);
      seenA.push(...ids(batchA.changes));
      seenB.push(...ids(batchB.changes));
      checkpointA = batchA.checkpoint;
      checkpointB = batchB.checkpoint;
    }
    expect(seenA).toEqual(['insert:100', 'insert:101', 'insert:102', 'insert:103']);
    expect(seenB).toEqual(seenA);
    expect(statements.a.some((s) => s.includes('CREATE TABLE #engA_ct_keys_0'))).toBe(true);
    expect(statements.b.some((s) => s.includes('CREATE TABLE #engB_ct_keys_0'))).toBe(true);
    expect(statements.a.some((s) => s.includes('#engB_'))).toBe(false);

    // Same pipeline and agent ids on both engines: the prefix keeps their checkpoints apart.
    await a.saveCheckpoint(checkpointA);
    await b.saveCheckpoint({ [key]: snapB.position });
    expect(await a.loadCheckpoint()).toEqual(checkpointA);
    expect(await b.loadCheckpoint()).toEqual({ [key]: snapB.position });
  });
});

describe('the checkpoint at the source', () => {
  it('a save refused half way leaves the stored one whole, and the source reads on', async () => {
    const saver = await source({ pipelineId: 'atomic' });
    const first: Checkpoint = { [key]: '5', 'dbo.Other': '6' };
    await saver.saveCheckpoint(first);
    // A DBA's constraint refuses the save's INSERT after its DELETE ran, in the same transaction.
    await run('ALTER TABLE [SYNC].[CT_CHECKPOINT] ADD CONSTRAINT CK_small_versions CHECK (version < 1000)');
    try {
      await expect(saver.saveCheckpoint({ [key]: '7', 'dbo.Other': '5000' })).rejects.toMatchObject({
        number: 547,
      });
      // SET XACT_ABORT ON rolled the DELETE back with the INSERT: nothing half-written, nothing left
      // open on the connection (the same source reads and saves again).
      expect(await saver.loadCheckpoint()).toEqual(first);
      expect(await (await source({ pipelineId: 'atomic' })).loadCheckpoint()).toEqual(first);
      await saver.saveCheckpoint({ [key]: '8', 'dbo.Other': '9' });
      expect(await saver.loadCheckpoint()).toEqual({ [key]: '8', 'dbo.Other': '9' });
    } finally {
      await run('ALTER TABLE [SYNC].[CT_CHECKPOINT] DROP CONSTRAINT CK_small_versions');
    }
  });
});
