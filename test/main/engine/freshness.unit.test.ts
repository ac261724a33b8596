// The freshness figures: p50 and p99 of the batches' end-to-end latency within 1% of the exact ones,
// each window counting only its own batches, and the Prometheus histograms as the format wants them
// (cumulative by `le`, `+Inf` equal to the count, the parts' sums adding up to the end-to-end sum).
import { describe, expect, it } from 'vitest';
import { Freshness } from '../../../main/engine/freshness';
import { createEngineMetrics } from '../../../main/engine/metrics';

const split = (ms: number) => ({ sourceMs: ms * 0.6, engineMs: ms * 0.1, targetMs: ms * 0.3 });

describe('Freshness', () => {
  it('gives p50 and p99 within 1% of the exact quantiles', () => {
    const f = new Freshness();
    const now = 1_800_000_000;
    const all: number[] = [];
    let seed = 7;
    for (let i = 0; i < 5_000; i++) {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      const ms = 5 + (seed % 100_000) ** 1.3 / 50;
      all.push(ms);
      f.add(now - (i % 50), split(ms));
    }
    all.sort((a, b) => a - b);
    const exact = (q: number) => (all[Math.ceil(q * all.length) - 1] ?? 0) / 1000;
    const w = f.window(now, 60);
    expect(w.batches).toBe(5_000);
    expect(Math.abs((w.p50Seconds ?? 0) - exact(0.5))).toBeLessThanOrEqual(exact(0.5) * 0.01);
    expect(Math.abs((w.p99Seconds ?? 0) - exact(0.99))).toBeLessThanOrEqual(exact(0.99) * 0.01);
  });

  it('counts in each window only the batches committed in it', () => {
    const f = new Freshness();
    const now = 1_800_000_000;
    f.add(now - 25 * 3_600, split(9_000));
    f.add(now - 2 * 3_600, split(4_000));
    f.add(now - 600, split(2_000));
    f.add(now - 5, split(100));
    const w = f.windows(now);
    expect([w.minute.batches, w.hour.batches, w.day.batches]).toEqual([1, 2, 3]);
    expect(w.minute.p99Seconds).toBeCloseTo(0.1, 2);
    expect(w.day.p99Seconds).toBeCloseTo(4, 1);
    expect(f.window(now + 120, 60)).toEqual({ batches: 0, p50Seconds: null, p99Seconds: null });
  });
});

describe('Freshness read as time moves on', () => {
  it('gives, push after push, what a merge of the slots from scratch gives, as slots leave each window', () => {
    const f = new Freshness();
    const added: [number, number][] = [];
    const start = 1_800_000_000;
    let seed = 11;
    // Park and Miller's generator: its products stay exact in a double.
    const next = () => (seed = (seed * 48_271) % 2_147_483_647);
    // Two days and a bit, read every few minutes: batches leave the minute, the hour and then the day.
    for (let now = start; now < start + 2.2 * 86_400; now += 7 + (next() % 400)) {
      for (let k = next() % 4; k > 0; k--) {
        const ms = 1 + (next() % 20_000);
        f.add(now, split(ms));
        added.push([now, ms]);
      }
      const fromScratch = new Freshness();
      for (const [at, ms] of added) if (at > now - 86_400 - 20) fromScratch.add(at, split(ms));
      expect(f.windows(now)).toEqual(fromScratch.windows(now));
    }
    expect(added.length).toBeGreaterThan(1_000);
  });
});

describe('the histograms in /metrics', () => {
  it('are cumulative by le, end at +Inf with the count, and the parts add up to the whole', () => {
    const metrics = createEngineMetrics(() => new Date());
    for (const ms of [3, 300, 300, 70_000])
      metrics.event('p', 'a', 'batch-applied', { changes: 1, lagMs: ms, latency: split(ms), tables: {} });
    const text = metrics.render([{ pipelineId: 'p', id: 'a', type: 'journal', state: 'running' }], '1');
    expect(text).toContain('# TYPE cdc_freshness_seconds histogram');
    const value = (line: string) =>
      Number(
        text
          .split('\n')
          .find((l) => l.startsWith(line))
          ?.split(' ')[1],
      );
    const of = 'pipeline="p",agent="a",type="journal"';
    expect(value(`cdc_freshness_seconds_bucket{${of},le="0.005"}`)).toBe(1);
    expect(value(`cdc_freshness_seconds_bucket{${of},le="0.25"}`)).toBe(1);
    expect(value(`cdc_freshness_seconds_bucket{${of},le="0.5"}`)).toBe(3);
    expect(value(`cdc_freshness_seconds_bucket{${of},le="60"}`)).toBe(3);
    expect(value(`cdc_freshness_seconds_bucket{${of},le="120"}`)).toBe(4);
    expect(value(`cdc_freshness_seconds_bucket{${of},le="+Inf"}`)).toBe(4);
    expect(value(`cdc_freshness_seconds_count{${of}}`)).toBe(4);
    const whole = value(`cdc_freshness_seconds_sum{${of}}`);
    expect(whole).toBeCloseTo(70.603, 6);
    const parts = ['source', 'engine', 'target'].map((part) =>
      value(`cdc_batch_latency_seconds_sum{${of},part="${part}"}`),
    );
    expect(parts.reduce((a, b) => a + b, 0)).toBeCloseTo(whole, 6);
  });
});
