// A rewind of a running pipeline, both sources into both targets: back to a time taken while it ran,
// every change since is read and applied again by key, so values planted at the target behind the
// engine's back on rows changed since are mended and the target equals the source. A point the source
// cannot give is refused with the reason while the pipeline runs on, nothing moved.
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { Row } from '../../../main/agents/source';
import type { RunnerEvent } from '../../../main/runner/events';
import { bothSources } from '../../helpers/bothSources';
import { runnerOver } from '../../helpers/runnerOver';
import { SOURCE_TARGET_PAIRS, targetSideFor } from '../../helpers/targetSide';
import { pointBetween, until } from '../../helpers/until';

const sources = bothSources({ pipelineId: 'rewind', ibmiSchema: 'REWIND' });
let made = 0;

/** A row's column named `name` in any case, as the target spells it. */
const column = (row: Row | undefined, name: string) =>
  Object.keys(row ?? {}).find((k) => k.toLowerCase() === name) ?? name;

describe.each(SOURCE_TARGET_PAIRS)('a rewind from %s into %s', (sourceKind, targetKind) => {
  it('re-applies every change since the point, mending the target, while the pipeline runs on', async () => {
    const h = await sources.harness(sourceKind);
    const pipelineId = `rewind${++made}_${targetKind}`;
    const side = await targetSideFor(targetKind, sources.client(), pipelineId);
    const t = await h.createTable(`RW${made}`);
    const table = h.entity(t).target.table;
    await h.insert(
      t,
      [1, 2, 3].map((id) => ({ id, name: `n${id}`, amount: `${id}.00` })),
    );
    const events: RunnerEvent[] = [];
    const runner = runnerOver(h, side, [t], events);
    const targetRows = async () =>
      (await side.rows(table))
        .map((r) => ({ id: Number(r[column(r, 'id')]), name: String(r[column(r, 'name')]) }))
        .sort((a, b) => a.id - b.id);
    const source = [
      { id: 1, name: 'n1' },
      { id: 2, name: 'changed' },
      { id: 4, name: 'n4' },
    ];
    void runner.start();
    try {
      await until('copied', () => events.some((e) => e.kind === 'snapshot-done'));
      const point = await pointBetween();
      await h.update(t, 2, 'changed');
      await h.remove(t, 3);
      await h.insert(t, [{ id: 4, name: 'n4', amount: '4.00' }]);
      // Wait for all three changes: the first batch may carry only the update, leaving three rows.
      await until('changes applied', async () => isDeepStrictEqual(await targetRows(), source));

      // Behind the engine's back: rows changed since the point, and one untouched since.
      const [sample] = await side.rows(table);
      const [id, name] = [column(sample, 'id'), column(sample, 'name')];
      await side.tamper(table, { column: id, id: 2 }, name, 'planted');
      await side.tamper(table, { column: id, id: 4 }, name, 'planted');
      await side.tamper(table, { column: id, id: 1 }, name, 'untouched');

      runner.requestRewind(point);
      await until('rewound', () => events.some((e) => e.kind === 'rewound' || e.kind === 'rewind-refused'));
      expect(events.find((e) => e.kind === 'rewind-refused')).toBeUndefined();
      expect(events.find((e) => e.kind === 'rewound')).toMatchObject({ to: point, tables: 1 });
      await until('re-applied', async () => {
        const rows = await targetRows();
        return (
          rows.find((r) => r.id === 2)?.name === 'changed' && rows.find((r) => r.id === 4)?.name === 'n4'
        );
      });
      const mended = await targetRows();
      // Only what changed since the point is read again: row 1 keeps the value planted on it.
      expect(mended.find((r) => r.id === 1)?.name).toBe('untouched');
      expect(mended.filter((r) => r.id !== 1)).toEqual(source.filter((r) => r.id !== 1));

      // And on: a change after the rewind follows as ever.
      await h.insert(t, [{ id: 5, name: 'n5', amount: '5.00' }]);
      await until('row 5', async () => (await targetRows()).some((r) => r.id === 5));
      expect(runner.state).not.toBe('failed');
    } finally {
      await runner.stop();
    }
    expect(runner.failure).toBeNull();
  });

  it('refuses a point the source cannot give, naming why, and runs on from where it stood', async () => {
    const h = await sources.harness(sourceKind);
    const pipelineId = `rewindno${++made}_${targetKind}`;
    const side = await targetSideFor(targetKind, sources.client(), pipelineId);
    const t = await h.createTable(`RN${made}`);
    await h.insert(t, [{ id: 1, name: 'n1', amount: '1.00' }]);
    const events: RunnerEvent[] = [];
    const runner = runnerOver(h, side, [t], events);
    void runner.start();
    try {
      await until('copied', () => events.some((e) => e.kind === 'snapshot-done'));
      const point = sourceKind === 'journal' ? 'QSYS/NORCV/1' : '999999999';
      runner.requestRewind(point);
      await until('refused', () => events.some((e) => e.kind === 'rewind-refused'));
      expect(events.find((e) => e.kind === 'rewind-refused')).toMatchObject({
        to: point,
        reason: expect.stringMatching(
          sourceKind === 'journal' ? /is not in the receiver chain of journal/ : /is ahead of the database/,
        ),
      });
      expect(events.some((e) => e.kind === 'rewound')).toBe(false);
      await h.insert(t, [{ id: 2, name: 'n2', amount: '2.00' }]);
      await until('row 2', async () => (await side.rows(h.entity(t).target.table)).length === 2);
    } finally {
      await runner.stop();
    }
    expect(runner.failure).toBeNull();
  });
});
