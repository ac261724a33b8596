// The open pipeline's chart moved on by pushed messages says what the engine's own answer would say
// on a reload (main/engine/store/series.ts): the backlog of a minute is its newest reading, so a backlog
// drained within the minute reads 0 beside a gauge at 0 (a day's ten-minute step: its highest); the lag
// is the step's peak, with its split.
import { describe, expect, it } from 'vitest';
import type { SeriesPoint } from '../../../shared/liveFeed';
import { addToSeries } from '../../../renderer/store/live';

const step = (at: string): SeriesPoint => ({
  at,
  changes: 0,
  lagSeconds: null,
  backlogRows: null,
  latency: null,
});
const points = [step('2026-12-07T10:00:00.000Z'), step('2026-12-07T10:01:00.000Z')];
const at = '2026-12-07T10:01:30.000Z';

describe('a chart step moved on by pushed messages', () => {
  it('keeps the newest backlog reading, so a drained backlog reads 0 at once', () => {
    const waiting = addToSeries(points, 60, at, { backlogRows: 1 });
    const drained = addToSeries(waiting, 60, at, { backlogRows: 0 });
    expect(drained.at(-1)?.backlogRows).toBe(0);
    // A batch says nothing of the backlog: the reading stays.
    expect(addToSeries(drained, 60, at, { changes: 3, lagSeconds: 0.2 }).at(-1)?.backlogRows).toBe(0);
  });

  it('keeps the highest reading in a step of the day chart, as the engine keeps its minutes', () => {
    const day = [step('2026-12-07T09:50:00.000Z'), step('2026-12-07T10:00:00.000Z')];
    const waiting = addToSeries(day, 600, at, { backlogRows: 5 });
    expect(addToSeries(waiting, 600, at, { backlogRows: 0 }).at(-1)?.backlogRows).toBe(5);
  });

  it('keeps the peak lag and the split of the batch that made it', () => {
    const slow = { sourceSeconds: 1, engineSeconds: 0.1, targetSeconds: 0.4 };
    const fast = { sourceSeconds: 0.05, engineSeconds: 0, targetSeconds: 0.05 };
    let next = addToSeries(points, 60, at, { changes: 1, lagSeconds: 1.5, latency: slow });
    next = addToSeries(next, 60, at, { changes: 1, lagSeconds: 0.1, latency: fast });
    expect(next.at(-1)).toMatchObject({ changes: 2, lagSeconds: 1.5, latency: slow });
  });
});
