// The metrics text for names a customer's database may hold: quotes, backslashes and line breaks in
// table names come back from a Prometheus parser as they were; counters start at 0 for an agent that
// has done nothing yet, and gauges with nothing to say are left out rather than written as 0.
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { describe, expect, it } from 'vitest';
import { createEngineMetrics } from '../../../main/engine/metrics';

describe('engine metrics', () => {
  it('escapes label values so a parser reads them back exactly', () => {
    const metrics = createEngineMetrics(() => new Date('2026-11-25T12:00:00Z'));
    const table = 'dbo.My "Table"\\2026\nnew';
    metrics.event('p1', 'src', 'snapshot-progress', { table, rowsDone: 10, rowsTotal: 40 });
    const text = metrics.render(
      [{ pipelineId: 'p1', id: 'src', type: 'change-tracking', state: 'running' }],
      '1.0',
    );
    const copied = parsePrometheusTextFormat(text).find((f) => f.name === 'cdc_snapshot_rows_copied');
    expect(copied?.metrics).toEqual([
      { value: '10', labels: { pipeline: 'p1', agent: 'src', type: 'change-tracking', table } },
    ]);
  });

  it('counts from 0 for an agent with nothing done, and leaves unknown gauges out', () => {
    const metrics = createEngineMetrics(() => new Date('2026-11-25T12:00:00Z'));
    metrics.backlog('p1', 'src', { rowsToRead: null, minutesLeft: null, measuredMinutesLeft: null });
    const families = parsePrometheusTextFormat(
      metrics.render([{ pipelineId: 'p1', id: 'src', type: 'journal', state: 'configured' }], '1.0'),
    );
    const samples = (name: string) => families.find((f) => f.name === name)?.metrics ?? [];
    expect(samples('cdc_changes_applied_total').map((m) => [m.labels?.operation, m.value])).toEqual([
      ['insert', '0'],
      ['update', '0'],
      ['delete', '0'],
    ]);
    expect(samples('cdc_backlog_rows')).toEqual([]);
    expect(samples('cdc_lag_seconds')).toEqual([]);
    expect(
      samples('cdc_agent_state')
        .filter((m) => m.value === '1')
        .map((m) => m.labels?.state),
    ).toEqual(['configured']);
  });
});

describe('an idle pipeline', () => {
  it('shows idle since its last batch instead of that batch’s lag, until changes come again', () => {
    let now = new Date('2026-11-25T12:00:00Z');
    const metrics = createEngineMetrics(() => now);
    const batch = (lagMs: number) =>
      metrics.event('p1', 'src', 'batch-applied', {
        changes: 1,
        inserts: 1,
        updates: 0,
        deletes: 0,
        lagMs,
        tables: {},
      });
    const point = (rowsToRead: number) =>
      metrics.backlog('p1', 'src', { rowsToRead, minutesLeft: null, measuredMinutesLeft: null });
    batch(6_000);
    expect(metrics.figures('p1', 'src')).toMatchObject({ lagSeconds: 6, idleSince: null });
    expect(metrics.figures('p1', 'src').changesPerSecond).toBeGreaterThan(0);
    now = new Date('2026-11-25T12:00:05Z');
    point(0);
    // Idle reads as no work now, not as the last minute's rate beside the word "idle".
    expect(metrics.figures('p1', 'src')).toMatchObject({
      lagSeconds: null,
      idleSince: '2026-11-25T12:00:00.000Z',
      changesPerSecond: 0,
    });
    // /metrics says 0 behind, not the old batch's 6 s a lag alert would ring on.
    const lag = () =>
      parsePrometheusTextFormat(
        metrics.render([{ pipelineId: 'p1', id: 'src', type: 'journal', state: 'running' }], '1.0'),
      ).find((f) => f.name === 'cdc_lag_seconds')?.metrics[0]?.value;
    expect(lag()).toBe('0');
    // Rows waiting is not idle, and a batch after the point is work again: its lag counts.
    point(40);
    expect(metrics.figures('p1', 'src').idleSince).toBeNull();
    point(0);
    now = new Date('2026-11-25T12:00:09Z');
    batch(2_000);
    expect(metrics.figures('p1', 'src')).toMatchObject({ lagSeconds: 2, idleSince: null });
    expect(lag()).toBe('2');
  });

  it('says how fresh it is from the newest heartbeat, its age growing when none comes', () => {
    let now = new Date('2026-12-07T10:00:00Z');
    const metrics = createEngineMetrics(() => now);
    const split = { sourceMs: 40, engineMs: 5, targetMs: 15 };
    metrics.event('p1', 'src', 'batch-applied', {
      changes: 1,
      inserts: 1,
      updates: 0,
      deletes: 0,
      lagMs: 900,
      latency: { sourceMs: 800, engineMs: 50, targetMs: 50 },
      tables: {},
    });
    metrics.backlog('p1', 'src', { rowsToRead: 0, minutesLeft: null, measuredMinutesLeft: null });
    expect(metrics.figures('p1', 'src').heartbeat).toBeNull();
    now = new Date('2026-12-07T10:00:05Z');
    metrics.event('p1', 'src', 'heartbeat-applied', {
      at: '2026-12-07T10:00:04.940Z',
      lagMs: 60,
      latency: split,
    });
    // A source clock ahead of the engine's is never "fresh to" less than 0; a garbled time is no heartbeat.
    metrics.event('p1', 'src', 'heartbeat-applied', { at: 'soon', lagMs: 60, latency: split });
    now = new Date('2026-12-07T10:00:12Z');
    const figures = metrics.figures('p1', 'src');
    expect(figures.heartbeat).toEqual({
      at: '2026-12-07T10:00:04.940Z',
      freshToSeconds: 7.06,
      latency: split,
    });
    // Still idle (no change since the last batch), and the last batch's split is still the batch's.
    expect(figures.idleSince).toBe('2026-12-07T10:00:00.000Z');
    expect(figures.latency).toEqual({ sourceMs: 800, engineMs: 50, targetMs: 50 });
    expect(figures.freshness.minute.batches).toBe(3);
    metrics.event('p1', 'src', 'heartbeat-applied', {
      at: '2026-12-07T10:00:13Z',
      lagMs: 60,
      latency: split,
    });
    expect(metrics.figures('p1', 'src').heartbeat?.freshToSeconds).toBe(0);
  });

  it('counts how long rows have waited from the first point that saw them, until a batch takes them', () => {
    let now = new Date('2026-12-02T06:00:00Z');
    const metrics = createEngineMetrics(() => now);
    const point = (rowsToRead: number) =>
      metrics.backlog('p1', 'src', { rowsToRead, minutesLeft: null, measuredMinutesLeft: null });
    point(0);
    expect(metrics.figures('p1', 'src').waitingSince).toBeNull();
    now = new Date('2026-12-02T06:00:10Z');
    point(618);
    now = new Date('2026-12-02T06:00:20Z');
    // A later point with more rows keeps the first one's time: the oldest change is older still.
    point(700);
    expect(metrics.figures('p1', 'src').waitingSince).toBe('2026-12-02T06:00:10.000Z');
    metrics.event('p1', 'src', 'batch-applied', {
      changes: 700,
      inserts: 700,
      updates: 0,
      deletes: 0,
      lagMs: 20_000,
      tables: {},
    });
    expect(metrics.figures('p1', 'src').waitingSince).toBeNull();
  });
});
