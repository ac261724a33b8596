// The charts' split of the lag: each step keeps where its peak lag went, the slowest batch's source,
// engine and target parts, so the three add up to the Lag chart's figure; a day's ten-minute step keeps
// its slowest minute's; a backlog point or a batch without a split never makes one up.
import { describe, expect, it } from 'vitest';
import { openDb } from '../../../../main/engine/store/db';
import { createRepo } from '../../../../main/engine/store/repo';
import { createSeriesStore } from '../../../../main/engine/store/series';

const AT = '2026-12-07T10:00:00.000Z';
const MINUTE = Date.parse('2026-12-07T10:00:00.000Z');

function store() {
  const db = openDb(':memory:');
  const repo = createRepo(db);
  repo.createPipeline({ id: 'p', name: 'p' }, AT);
  repo.createAgent({ pipelineId: 'p', id: 'a', name: 'a', type: 'change-tracking', role: 'source' }, AT);
  return createSeriesStore(db);
}

const batch = (sourceMs: number, engineMs: number, targetMs: number) => ({
  changes: 1,
  lagMs: sourceMs + engineMs + targetMs,
  latency: { sourceMs, engineMs, targetMs },
  tables: { 'dbo.T': { inserts: 1, updates: 0, deletes: 0 } },
});

const stepAt = (points: { at: string }[], at: number) =>
  points.find((p) => Date.parse(p.at) <= at && at < Date.parse(p.at) + 60_000);

describe('the split of the lag in the charts', () => {
  it('keeps the slowest batch of a minute, whichever came first, for the agent and its tables', () => {
    const series = store();
    series.addBatch('p', 'a', MINUTE + 1_000, batch(100, 5, 200));
    series.addBatch('p', 'a', MINUTE + 2_000, batch(2_000, 10, 300));
    series.addBatch('p', 'a', MINUTE + 3_000, batch(50, 1, 20));
    series.addBacklog('p', 'a', MINUTE + 4_000, 7);
    const answer = series.read('p', 'a', 'hour', MINUTE + 30_000);
    const slowest = { sourceSeconds: 2, engineSeconds: 0.01, targetSeconds: 0.3 };
    expect(answer.points.at(-1)).toMatchObject({
      changes: 3,
      lagSeconds: 2.31,
      backlogRows: 7,
      latency: slowest,
    });
    expect(answer.tables[0]?.points.at(-1)).toMatchObject({ lagSeconds: 2.31, latency: slowest });
    // A step with no batch has no split.
    expect(answer.points.at(-2)?.latency).toBeNull();
  });

  it('keeps the slowest minute of a ten-minute step in the day chart', () => {
    const series = store();
    series.addBatch('p', 'a', MINUTE + 60_000, batch(100, 5, 200));
    series.addBatch('p', 'a', MINUTE + 180_000, batch(40, 900, 60));
    series.addBatch('p', 'a', MINUTE + 300_000, batch(10, 10, 10));
    const answer = series.read('p', 'a', 'day', MINUTE + 420_000);
    const step = answer.points.find((p) => Date.parse(p.at) === MINUTE);
    expect(step).toMatchObject({
      changes: 3,
      lagSeconds: 1,
      latency: { sourceSeconds: 0.04, engineSeconds: 0.9, targetSeconds: 0.06 },
    });
  });

  it('leaves the split unknown when the slowest batch came from a runner that did not split it', () => {
    const series = store();
    series.addBatch('p', 'a', MINUTE + 1_000, batch(10, 10, 10));
    series.addBatch('p', 'a', MINUTE + 2_000, { changes: 1, lagMs: 500, tables: {} });
    const point = stepAt(series.read('p', 'a', 'hour', MINUTE + 30_000).points, MINUTE);
    expect(point).toMatchObject({ lagSeconds: 0.5, latency: null });
  });
});
