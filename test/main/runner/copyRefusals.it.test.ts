// A copy the source refuses, or that sees nothing of a table that has rows, fails that table with the
// reason — never "done" over an empty target table — while the pipeline's other tables copy and
// stream: the IBM i query governor refusing the copy's query (SQL0666), a copy failing past its
// retries (SQL0913, the file locked by another job; a timeout is the same case), and a read that
// returns no row of a table the source counts rows in. Resumed once the cause is gone, the copy completes.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tableKey, type SourceAgent, type TableRef } from '../../../main/agents/source';
import { SqliteTarget } from '../../../main/agents/sqlite/target';
import type { RunnerEvent } from '../../../main/runner/events';
import { PipelineRunner } from '../../../main/runner/pipelineRunner';
import { startSandboxIbmi, type SandboxIbmi } from '../../../simulators/ibmi';
import { SEED_ADMIN } from '../../../simulators/ibmi/seed';
import type { SourceHarness } from '../agents/contract/sourceAgent';
import { journalHarness, sandboxIbmiCredentials } from '../../helpers/journal';
import { until } from '../../helpers/until';

let ibmi: SandboxIbmi;
let h: SourceHarness & { prepare(): Promise<void> };

beforeAll(async () => {
  ibmi = await startSandboxIbmi({ seed: true });
  h = journalHarness(await ibmi.connect({ ...SEED_ADMIN }), sandboxIbmiCredentials(ibmi), {
    schema: 'COPYREF',
    pipelineId: 'copyref',
  });
  await h.prepare();
});
afterAll(async () => {
  await h?.close();
  await ibmi?.close();
});

/** The agent, with `readChunk` of one table answering no row, as a read that does not see them. */
function blindTo(agent: SourceAgent, table: TableRef, blind: () => boolean): SourceAgent {
  return new Proxy(agent, {
    get(target, property) {
      if (property !== 'readChunk') return Reflect.get(target, property, target) as unknown;
      return (ref: TableRef, cursor: string | null, limit: number) =>
        blind() && tableKey(ref) === tableKey(table)
          ? Promise.resolve({ rows: [], next: null })
          : target.readChunk(ref, cursor, limit);
    },
  });
}

async function setUp(name: string) {
  const [a, b] = [await h.createTable(`${name}A`), await h.createTable(`${name}B`)];
  await h.insert(a, [
    { id: 1, name: 'one', amount: '1.00' },
    { id: 2, name: 'two', amount: '2.00' },
  ]);
  await h.insert(b, [{ id: 1, name: 'uno', amount: '1.00' }]);
  const path = join(mkdtempSync(join(tmpdir(), 'cdc-copyref-')), 'replica.sqlite');
  const count = (t: TableRef) => {
    const db = new Database(path, { readonly: true });
    const n = (db.prepare(`SELECT COUNT(*) AS n FROM "${h.entity(t).target.table}"`).get() as { n: number })
      .n;
    db.close();
    return n;
  };
  return { a, b, path, count };
}

describe('a copy that cannot see a table’s rows', () => {
  it('fails that table with SQL0666 when the query governor refuses it; resumed, it completes', async () => {
    const { a, b, path, count } = await setUp('G');
    const file = a.table;
    ibmi.system.injectFaults('governor', 1, 0, new RegExp(`FROM \\S*${file}\\b.*FETCH FIRST`));
    const events: RunnerEvent[] = [];
    const runner = new PipelineRunner({
      openSource: () => h.open(),
      openTarget: async () => new SqliteTarget(path, 'governor'),
      entities: [h.entity(a), h.entity(b)],
      onEvent: (e) => events.push(e),
      idleMs: 20,
    });
    void runner.start();
    try {
      await until('A suspended', () => events.some((e) => e.kind === 'table-suspended'));
      const suspended = events.find((e) => e.kind === 'table-suspended');
      expect(suspended).toMatchObject({ table: tableKey(a) });
      expect(suspended?.kind === 'table-suspended' && suspended.reason).toMatch(
        /SQL0666.*time limit or storage limit/,
      );
      await until('B copied', () =>
        events.some((e) => e.kind === 'snapshot-done' && e.table === tableKey(b)),
      );
      expect(events.some((e) => e.kind === 'snapshot-done' && e.table === tableKey(a))).toBe(false);
      await h.insert(b, [{ id: 2, name: 'dos', amount: '2.00' }]);
      await until('B streaming', () => count(b) === 2);
      // The limit lifted (CHGQRYA QRYTIMLMT(*NOMAX)), the DBA resumes: the copy completes.
      expect(runner.resumeTable(tableKey(a))).toBe('resumed');
      await until('A copied', () =>
        events.some((e) => e.kind === 'snapshot-done' && e.table === tableKey(a)),
      );
      expect(count(a)).toBe(2);
    } finally {
      await runner.stop();
    }
    expect(runner.failure).toBeNull();
  });

  it('suspends that table at its cursor when its copy keeps failing past the retries, the others go on', async () => {
    const { a, b, path, count } = await setUp('L');
    // Another job holds the file: each read of A's copy ends with SQL0913, which a retry may heal.
    ibmi.system.injectFaults('fail-mid-result', 3, 0, new RegExp(`FROM \\S*${a.table}\\b.*FETCH FIRST`));
    const events: RunnerEvent[] = [];
    const runner = new PipelineRunner({
      openSource: () => h.open(),
      openTarget: async () => new SqliteTarget(path, 'locked'),
      entities: [h.entity(a), h.entity(b)],
      onEvent: (e) => events.push(e),
      idleMs: 20,
      retry: { firstDelayMs: 10, maxDelayMs: 20, maxAttempts: 3 },
    });
    void runner.start();
    try {
      await until('A suspended', () => events.some((e) => e.kind === 'table-suspended'));
      const suspended = events.find((e) => e.kind === 'table-suspended');
      expect(suspended).toMatchObject({ table: tableKey(a) });
      expect(suspended?.kind === 'table-suspended' && suspended.reason).toMatch(
        /its copy failed 3 times in a row, the last time with: .*SQL0913.*resume it once the cause is fixed/,
      );
      expect(events.filter((e) => e.kind === 'retrying')).toHaveLength(2);
      await until('B copied', () =>
        events.some((e) => e.kind === 'snapshot-done' && e.table === tableKey(b)),
      );
      await h.insert(b, [{ id: 2, name: 'dos', amount: '2.00' }]);
      await until('B streaming', () => count(b) === 2);
      // The lock released, the DBA resumes: the copy goes on from its cursor and completes.
      expect(runner.resumeTable(tableKey(a))).toBe('resumed');
      await until('A copied', () =>
        events.some((e) => e.kind === 'snapshot-done' && e.table === tableKey(a)),
      );
      expect(count(a)).toBe(2);
    } finally {
      await runner.stop();
    }
    expect(runner.failure).toBeNull();
  });

  it('fails that table when the read returns no row of a table the source counts rows in', async () => {
    const { a, b, path, count } = await setUp('Z');
    let blind = true;
    const events: RunnerEvent[] = [];
    const runner = new PipelineRunner({
      openSource: async () => blindTo(await h.open(), a, () => blind),
      openTarget: async () => new SqliteTarget(path, 'empty'),
      entities: [h.entity(a), h.entity(b)],
      onEvent: (e) => events.push(e),
      idleMs: 20,
    });
    void runner.start();
    try {
      await until('A suspended', () => events.some((e) => e.kind === 'table-suspended'));
      expect(events.find((e) => e.kind === 'table-suspended')).toMatchObject({
        table: tableKey(a),
        reason: expect.stringMatching(/its copy read no row while the source holds 2 \(counted again now\)/),
      });
      expect(events.some((e) => e.kind === 'snapshot-done' && e.table === tableKey(a))).toBe(false);
      await until('B copied', () => count(b) === 1);
      blind = false;
      expect(runner.resumeTable(tableKey(a))).toBe('resumed');
      await until('A copied', () => count(a) === 2);
    } finally {
      await runner.stop();
    }
    expect(runner.failure).toBeNull();
  });
});
