// A journal pipeline of 1,000 files starts with a bounded number of statements (issue 58): layouts,
// keys and members from catalog queries over all files, DSPFFD a library at a time when DDS discovery
// is on, one DSPJRN per journal, and the checkpoint written in slices, never a round trip per file.
// Counted at the simulated IBM i, which answers every statement 30 ms late, as an IBM i 30 ms away.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IbmiConnection } from '../../../../lib/ibmi/connection';
import { openJournalSource } from '../../../../main/agents/journal/source';
import type { TableRef } from '../../../../main/agents/source';
import { SqliteTarget } from '../../../../main/agents/sqlite/target';
import { PipelineRunner } from '../../../../main/runner/pipelineRunner';
import { startSandboxIbmi, type SandboxIbmi } from '../../../../simulators/ibmi';
import { SEED_ADMIN } from '../../../../simulators/ibmi/seed';
import { journalConfiguration, journalEntity, sandboxIbmiCredentials } from '../../../helpers/journal';

const ROUND_TRIP_MS = 30;
let sandbox: SandboxIbmi;
let admin: IbmiConnection;
const libraries = { SMALL: 100, BIG: 1000 } as const;
const files: Record<string, TableRef[]> = {};

beforeAll(async () => {
  sandbox = await startSandboxIbmi({ seed: true });
  admin = await sandbox.connect({ ...SEED_ADMIN });
  for (const [library, count] of Object.entries(libraries)) {
    await admin.query(`CREATE SCHEMA ${library}`);
    files[library] = [];
    for (let i = 1; i <= count; i++) {
      const table = { schema: library, table: `F${i}` };
      await admin.query(
        `CREATE TABLE ${library}.F${i} (ID INTEGER NOT NULL PRIMARY KEY, NAME VARCHAR(20) NOT NULL)`,
      );
      await admin.command(`CHGJRNOBJ OBJ((${library}/F${i} *FILE)) ATR(*IMAGES) IMAGES(*BOTH)`);
      files[library]?.push(table);
    }
  }
}, 120_000);
afterAll(async () => {
  await admin?.close();
  await sandbox?.close();
});

/** The statements and the time of a start that runs until caught up, at ROUND_TRIP_MS a statement. */
async function start(library: keyof typeof libraries, dds: boolean, replica: string) {
  const tables = files[library] ?? [];
  const runner = new PipelineRunner({
    openSource: () =>
      openJournalSource({
        credentials: sandboxIbmiCredentials(sandbox, { enableDdsDiscovery: dds }),
        configuration: journalConfiguration(),
        pipelineId: `many_${library}_${dds ? 'dds' : 'sql'}`,
        agentId: 'source',
        entities: tables.map((t) => journalEntity(t)),
      }),
    openTarget: async () => new SqliteTarget(replica, `many_${library}`),
    entities: tables.map((t) => journalEntity(t)),
    // From the journal's end, no copy: a copy reads every file, a start need not.
    snapshotMode: 'never',
    idleMs: 20,
  });
  sandbox.system.linkDelayMs = ROUND_TRIP_MS;
  const before = sandbox.system.requests;
  const began = performance.now();
  try {
    await runner.runUntilCaughtUp();
  } finally {
    sandbox.system.linkDelayMs = 0;
  }
  expect(runner.failure).toBeNull();
  return { statements: sandbox.system.requests - before, seconds: (performance.now() - began) / 1000 };
}

describe.each([false, true])('a journal start of 1,000 files (DDS discovery %s)', (dds) => {
  it('makes as many statements as a start of 100, but a checkpoint slice, and takes seconds 30 ms away', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'many-files-'));
    const counts: Record<string, { first: number; again: number; seconds: number }> = {};
    for (const library of ['SMALL', 'BIG'] as const) {
      const replica = join(dir, `${library}.sqlite`);
      const first = await start(library, dds, replica);
      // A change in one file, then a start from the checkpoint.
      await admin.query(`INSERT INTO ${library}.F7 VALUES (?, 'x')`, [dds ? 2 : 1]);
      const again = await start(library, dds, replica);
      counts[library] = { first: first.statements, again: again.statements, seconds: again.seconds };
    }
    console.log(`1,000-file start (DDS discovery ${dds}): ${JSON.stringify(counts)}`);
    const [small, big] = [counts.SMALL, counts.BIG];
    // The checkpoint is written 250 files a statement pair: 4 pairs at 1,000, 1 at 100.
    const slices = 2 * (Math.ceil(1000 / 250) - Math.ceil(100 / 250));
    expect(big?.first).toBeLessThanOrEqual((small?.first ?? 0) + slices);
    expect(big?.again).toBeLessThanOrEqual((small?.again ?? 0) + slices);
    expect(big?.again).toBeLessThan(100);
    expect(big?.seconds).toBeLessThan(10);
  }, 180_000);
});
