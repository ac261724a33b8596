// Fault drills on a journal pipeline: the simulated IBM i drops connections (as a host server ending
// the job), stalls, and fails fetches half way (SQL0913, or the job ended), in catalog reads, the
// snapshot and the journal reads, while the source keeps changing. The runner retries with
// backoff, and the target ends equal to the source, row for row.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IbmiConnection } from '../../../../lib/ibmi/connection';
import type { TableShape } from '../../../../main/agents/source';
import { openJournalSource } from '../../../../main/agents/journal/source';
import { journalPlugin } from '../../../../main/agents/journal/plugin';
import { PipelineRunner } from '../../../../main/runner/pipelineRunner';
import type { RunnerEvent } from '../../../../main/runner/events';
import { SqliteTarget } from '../../../../main/agents/sqlite/target';
import { startSandboxIbmi, type SandboxIbmi } from '../../../../simulators/ibmi';
import { SEED_ADMIN } from '../../../../simulators/ibmi/seed';
import { journalConfiguration, journalEntity, sandboxIbmiCredentials } from '../../../helpers/journal';
import { ibmiReplica, sqliteReplica } from '../../../helpers/replica';
import { until } from '../../../helpers/until';

let sandbox: SandboxIbmi;
let admin: IbmiConnection;
beforeEach(async () => {
  sandbox = await startSandboxIbmi({ seed: true });
  admin = await sandbox.connect({ ...SEED_ADMIN });
});
afterEach(async () => {
  await admin.close();
  await sandbox.close();
});

const customer = journalEntity({ schema: 'SHOP', table: 'CUSTOMER' });
const SNAPSHOT_READ = /FROM SHOP\.CUSTOMER T WHERE RRN/;
const JOURNAL_READ = /FROM SYNC\.JRNOUT/;

const QUICK_RETRIES = { firstDelayMs: 1, maxDelayMs: 10, maxAttempts: 20 };

/** SHOP/CUSTOMER as the agent describes it, for comparing replicas. */
async function customerShape(): Promise<TableShape> {
  const s = await openJournalSource({
    credentials: sandboxIbmiCredentials(sandbox),
    configuration: journalConfiguration(),
    pipelineId: 'shape',
    agentId: 'src',
    entities: [customer],
  });
  try {
    const [shape] = await s.describe([customer.source]);
    if (!shape) throw new Error('no shape');
    return shape;
  } finally {
    await s.close();
  }
}

function runner(path: string, events: RunnerEvent[], retry = QUICK_RETRIES) {
  return new PipelineRunner({
    openSource: () =>
      openJournalSource({
        credentials: sandboxIbmiCredentials(sandbox),
        configuration: journalConfiguration(),
        pipelineId: 'faults',
        agentId: 'src',
        entities: [customer],
      }),
    openTarget: async () => new SqliteTarget(path, 'faults'),
    // As the runtime passes it: a fault may strike before the source has opened.
    classifyError: journalPlugin.classifyError,
    entities: [{ source: customer.source, target: { table: 'customer' } }],
    onEvent: (e) => events.push(e),
    maxRows: 7,
    snapshotChunkRows: 5,
    retry,
    idleMs: 20,
  });
}

async function change(from: number, count: number) {
  for (let id = from; id < from + count; id++) {
    await admin.query('INSERT INTO SHOP.CUSTOMER (ID, NAME) VALUES (?, ?)', [id, `n${id}`]);
    if (id % 3 === 0) await admin.query('UPDATE SHOP.CUSTOMER SET CITY = ? WHERE ID = ?', ['Bern', id - 1]);
    if (id % 5 === 0) await admin.query('DELETE FROM SHOP.CUSTOMER WHERE ID = ?', [id - 2]);
  }
}

describe.each([
  ['dropped connections', 'drop', 0],
  ['stalls of 30 ms', 'stall', 30],
  ['SQL0913 half way through a fetch', 'fail-mid-result', 0],
  ['connections lost half way through a fetch', 'drop-mid-result', 0],
] as const)('%s during snapshot and stream', (_label, kind, ms) => {
  it('are retried, and the target ends equal to the source', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'cdc-journal-faults-')), 'replica.sqlite');
    const events: RunnerEvent[] = [];
    // Faults land on whichever statements come next: the admin's own changes are spared by arming
    // them only around the runner's reads.
    sandbox.system.injectFaults(kind, 2, ms);
    // A stall does not fail the snapshot, so it is read once: one stall strikes it.
    sandbox.system.injectFaults(kind, kind === 'stall' ? 1 : 2, ms, SNAPSHOT_READ);
    const first = runner(path, events);
    await first.runUntilCaughtUp();
    expect(first.failure).toBeNull();
    for (let round = 0; round < 4; round++) {
      await change(100 + round * 20, 12);
      sandbox.system.injectFaults(kind, 2, ms, JOURNAL_READ);
      const next = runner(path, events);
      await next.runUntilCaughtUp();
      expect(next.failure).toBeNull();
    }
    expect(sandbox.system.pendingFaults()).toBe(0);
    if (kind !== 'stall') expect(events.filter((e) => e.kind === 'retrying').length).toBe(12);
    const shape = await customerShape();
    expect(sqliteReplica(path, 'customer', shape)).toEqual(await ibmiReplica(admin, shape, 7));
  });
});

describe('a restart of the IBM i host servers under a running pipeline', () => {
  it('ends every job and refuses sign-ons for a while; the runner retries, then catches up', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'cdc-journal-restart-')), 'replica.sqlite');
    const events: RunnerEvent[] = [];
    const running = runner(path, events, { firstDelayMs: 20, maxDelayMs: 100, maxAttempts: 40 });
    const loop = running.start();
    const applied = () => events.filter((e) => e.kind === 'batch-applied').length;
    await until('the snapshot', () => events.some((e) => e.kind === 'snapshot-done'));
    await change(300, 4);
    await until('the first batch', () => applied() >= 1);

    await sandbox.restart(400);
    // The admin's own job ended with the restart, as every other did.
    await expect(admin.query('VALUES 1')).rejects.toMatchObject({ messageId: 'CWBCO1047' });
    await admin.close();
    admin = await sandbox.connect({ ...SEED_ADMIN });
    await change(320, 6);
    const shape = await customerShape();
    await until('the target to equal the source', async () => {
      const source = await ibmiReplica(admin, shape, 7);
      return sqliteReplica(path, 'customer', shape).checksum === source.checksum;
    });
    await running.stop();
    await loop;
    expect(running.failure).toBeNull();
    // Sign-ons refused while it was down were retried, not taken for a wrong setting.
    const reasons = events.flatMap((e) => (e.kind === 'retrying' ? [e.reason] : []));
    expect(reasons.some((r) => /CWBCO1049/.test(r))).toBe(true);
    expect(sqliteReplica(path, 'customer', shape)).toEqual(await ibmiReplica(admin, shape, 7));
  });
});
