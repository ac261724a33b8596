// A copy the source refuses, or that sees nothing of a table that has rows, fails that table with the
// reason — never "done" over an empty target table — while the pipeline's other tables copy and
// stream: a copy failing past its retries (SQL Server's deadlock victim, 1205; an IBM i file locked by
// another job, SQL0913; a timeout is the same case), a read that returns no row of a table the source
// counts rows in, and the IBM i query governor refusing the copy's query (SQL0666). Resumed once the
// cause is gone, the copy goes on from its cursor and completes. Both sources, both targets.
import { describe, expect, it } from 'vitest';
import { tableKey, type SourceAgent, type TableRef } from '../../../main/agents/source';
import type { RunnerEvent } from '../../../main/runner/events';
import type { RunnerOptions } from '../../../main/runner/pipelineRunner';
import type { SourceHarness } from '../agents/contract/sourceAgent';
import { bothSources } from '../../helpers/bothSources';
import { runnerOver } from '../../helpers/runnerOver';
import { SOURCE_TARGET_PAIRS, targetSideFor, type SourceTargetPair } from '../../helpers/targetSide';
import { until } from '../../helpers/until';

const sources = bothSources({ pipelineId: 'copyref', ibmiSchema: 'COPYREF' });
let made = 0;

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

/** Tables A (two rows) and B (one) of a new pipeline, and a runner over them that records its events. */
async function setUp([sourceKind, targetKind]: SourceTargetPair, options: Partial<RunnerOptions> = {}) {
  const h: SourceHarness = await sources.harness(sourceKind);
  const pipelineId = `copyref${++made}_${targetKind}`;
  const side = await targetSideFor(targetKind, sources.client(), pipelineId);
  const [a, b] = [await h.createTable(`C${made}A`), await h.createTable(`C${made}B`)];
  await h.insert(a, [
    { id: 1, name: 'one', amount: '1.00' },
    { id: 2, name: 'two', amount: '2.00' },
  ]);
  await h.insert(b, [{ id: 1, name: 'uno', amount: '1.00' }]);
  const count = async (t: TableRef) => (await side.rows(h.entity(t).target.table).catch(() => [])).length;
  const events: RunnerEvent[] = [];
  const runner = runnerOver(h, side, [a, b], events, options);
  const suspendedWith = async (reason: RegExp) => {
    await until('A suspended', () => events.some((e) => e.kind === 'table-suspended'));
    expect(events.find((e) => e.kind === 'table-suspended')).toMatchObject({
      table: tableKey(a),
      reason: expect.stringMatching(reason),
    });
    expect(events.some((e) => e.kind === 'snapshot-done' && e.table === tableKey(a))).toBe(false);
    await until('B copied', () => events.some((e) => e.kind === 'snapshot-done' && e.table === tableKey(b)));
    await h.insert(b, [{ id: 2, name: 'dos', amount: '2.00' }]);
    await until('B streaming', async () => (await count(b)) === 2);
  };
  const resumedToTheEnd = async () => {
    expect(runner.resumeTable(tableKey(a))).toBe('resumed');
    await until('A copied', () => events.some((e) => e.kind === 'snapshot-done' && e.table === tableKey(a)));
    expect(await count(a)).toBe(2);
  };
  return { h, a, b, events, runner, suspendedWith, resumedToTheEnd };
}

describe.each(SOURCE_TARGET_PAIRS)(
  'a copy from %s into %s that cannot see a table’s rows',
  (sourceKind, targetKind) => {
    it('suspends that table at its cursor when its copy keeps failing past the retries; resumed, it completes', async () => {
      const p = await setUp([sourceKind, targetKind], {
        retry: { firstDelayMs: 10, maxDelayMs: 20, maxAttempts: 3 },
      });
      // Each read of A's copy fails with what a retry may heal: a deadlock victim, a file another job holds.
      if (sourceKind === 'journal')
        sources
          .ibmi()
          .system.injectFaults('fail-mid-result', 3, 0, new RegExp(`FROM \\S*${p.a.table}\\b.*FETCH FIRST`));
      else
        sources
          .mssql()
          .injectFaults(
            'fail-mid-result',
            3,
            0,
            new RegExp(`TOP \\(@n\\).*FROM \\[dbo\\]\\.\\[${p.a.table}\\]`),
          );
      void p.runner.start();
      try {
        await p.suspendedWith(
          new RegExp(
            `its copy failed 3 times in a row, the last time with: .*${sourceKind === 'journal' ? 'SQL0913' : 'deadlock'}.*resume it once the cause is fixed`,
            'i',
          ),
        );
        expect(p.events.filter((e) => e.kind === 'retrying')).toHaveLength(2);
        await p.resumedToTheEnd();
      } finally {
        await p.runner.stop();
      }
      expect(p.runner.failure).toBeNull();
    });

    it('fails that table when the read returns no row of a table the source counts rows in', async () => {
      let blind = true;
      // Opened once the runner starts, after setUp has answered.
      const p = await setUp([sourceKind, targetKind], {
        openSource: async () => blindTo(await p.h.open(), p.a, () => blind),
      });
      void p.runner.start();
      try {
        await p.suspendedWith(/its copy read no row while the source holds 2 \(counted again now\)/);
        blind = false;
        await p.resumedToTheEnd();
      } finally {
        await p.runner.stop();
      }
      expect(p.runner.failure).toBeNull();
    });
  },
);

describe.each(['sqlite', 'postgresql'] as const)(
  'a journal copy into %s the query governor refuses',
  (targetKind) => {
    it('fails that table with SQL0666; resumed once the limit is lifted, it completes', async () => {
      const p = await setUp(['journal', targetKind]);
      sources
        .ibmi()
        .system.injectFaults('governor', 1, 0, new RegExp(`FROM \\S*${p.a.table}\\b.*FETCH FIRST`));
      void p.runner.start();
      try {
        await p.suspendedWith(/SQL0666.*time limit or storage limit/);
        // The limit lifted (CHGQRYA QRYTIMLMT(*NOMAX)), the DBA resumes: the copy completes.
        await p.resumedToTheEnd();
      } finally {
        await p.runner.stop();
      }
      expect(p.runner.failure).toBeNull();
    });
  },
);
