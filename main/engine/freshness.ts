// An agent's freshness: each batch's end-to-end latency (its newest change's commit at the source to
// its commit at the target) and where the time went. For the p50 and p99 of the last minute, hour and
// day it keeps, per ten seconds of a day, counts on a log scale (any quantile within 1% of the batch
// it stands for) rather than every batch; for Prometheus, histograms since the engine started.
import type { BatchLatency } from '../../shared/batchEvent';
import type { Freshness as FreshnessFigures } from '../../shared/liveFeed';

/** Buckets' ratio: a quantile read from them is within (GAMMA - 1) / 2 of the true one. */
const GAMMA = 1.02;
const LOG_GAMMA = Math.log(GAMMA);
/** Latencies under a millisecond share one bucket, read as 0. */
const UNDER_A_MS = -1;
const SLOT_S = 10;
const DAY_S = 86_400;

/** The windows the quantiles are given for, in seconds. */
const FRESHNESS_WINDOWS: Record<keyof FreshnessFigures, number> = { minute: 60, hour: 3_600, day: DAY_S };

/** One window's batches and quantiles, as a status carries them (shared/liveFeed.ts). */
type WindowFigures = FreshnessFigures['minute'];

/** Prometheus' `le` bounds of the histograms, in seconds: a fast LAN to a day behind. */
export const HISTOGRAM_BOUNDS_S = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 21600, 86400,
];

/** A Prometheus histogram: observations counted per bound (not yet cumulative), their sum and count. */
export class Histogram {
  readonly perBound = HISTOGRAM_BOUNDS_S.map(() => 0);
  sum = 0;
  count = 0;

  observe(seconds: number): void {
    const i = HISTOGRAM_BOUNDS_S.findIndex((b) => seconds <= b);
    if (i >= 0) this.perBound[i] = (this.perBound[i] ?? 0) + 1;
    this.sum += seconds;
    this.count += 1;
  }

  /** The cumulative counts per `le`, `+Inf` last (equal to the count), as the text format wants them. */
  cumulative(): { le: string; count: number }[] {
    let running = 0;
    const out = HISTOGRAM_BOUNDS_S.map((b, i) => {
      running += this.perBound[i] ?? 0;
      return { le: String(b), count: running };
    });
    out.push({ le: '+Inf', count: this.count });
    return out;
  }
}

const bucketOf = (ms: number) => (ms < 1 ? UNDER_A_MS : Math.ceil(Math.log(ms) / LOG_GAMMA));
/** The value a bucket stands for: the middle of its range, so the error is at most half its width. */
const valueOf = (bucket: number) => (bucket === UNDER_A_MS ? 0 : (2 * GAMMA ** bucket) / (GAMMA + 1));

/** A window's counts kept as time moves: the slots oldest < slot <= newest, merged. */
interface Rolling {
  oldest: number;
  newest: number;
  totals: Map<number, number>;
  batches: number;
}

export class Freshness {
  /** Ten-second slot (Unix seconds / SLOT_S) → bucket → batches; only slots with batches, a day at most. */
  private readonly slots = new Map<number, Map<number, number>>();
  /**
   * Per window length, its merged counts, moved on by the slots that leave and enter it: a status
   * push then costs the buckets of a day (under a thousand), not a merge of its 8,640 slots.
   */
  private readonly rolling = new Map<number, Rolling>();
  readonly endToEnd = new Histogram();
  readonly parts = { source: new Histogram(), engine: new Histogram(), target: new Histogram() };
  /** The last batch's split. */
  last: BatchLatency | null = null;
  /** The last heartbeat's split (a quiet batch that carried only the source's heartbeat). */
  lastHeartbeat: BatchLatency | null = null;

  /** A batch's latency, or a heartbeat's: both count in the windows and the histograms. */
  add(atSeconds: number, latency: BatchLatency, from: 'batch' | 'heartbeat' = 'batch'): void {
    const ms = latency.sourceMs + latency.engineMs + latency.targetMs;
    const slot = Math.floor(atSeconds / SLOT_S);
    let counts = this.slots.get(slot);
    if (!counts) {
      counts = new Map<number, number>();
      this.slots.set(slot, counts);
      for (const [s, old] of this.slots)
        if (s <= slot - DAY_S / SLOT_S - 1) {
          this.slots.delete(s);
          for (const r of this.rolling.values()) if (s > r.oldest && s <= r.newest) merge(r, old, -1);
        }
    }
    const bucket = bucketOf(ms);
    counts.set(bucket, (counts.get(bucket) ?? 0) + 1);
    for (const r of this.rolling.values())
      if (slot > r.oldest && slot <= r.newest) merge(r, new Map([[bucket, 1]]), 1);
    this.endToEnd.observe(ms / 1000);
    this.parts.source.observe(latency.sourceMs / 1000);
    this.parts.engine.observe(latency.engineMs / 1000);
    this.parts.target.observe(latency.targetMs / 1000);
    if (from === 'batch') this.last = latency;
    else this.lastHeartbeat = latency;
  }

  /**
   * The batches committed in the window ending now, and their p50 and p99 (nearest rank). The window
   * counts whole ten-second slots, the current one included: up to ten seconds more than its length.
   */
  window(nowSeconds: number, seconds: number): WindowFigures {
    const r = this.rolled(Math.floor(nowSeconds / SLOT_S), seconds);
    const { batches } = r;
    if (batches === 0) return { batches, p50Seconds: null, p99Seconds: null };
    const ordered = [...r.totals].sort(([a], [b]) => a - b);
    const at = (q: number) => {
      const rank = Math.max(1, Math.ceil(q * batches));
      let seen = 0;
      for (const [bucket, n] of ordered) {
        seen += n;
        if (seen >= rank) return valueOf(bucket) / 1000;
      }
      return null;
    };
    return { batches, p50Seconds: at(0.5), p99Seconds: at(0.99) };
  }

  /** The window's merged counts at `newest`: moved on from the last reading, or merged anew. */
  private rolled(newest: number, seconds: number): Rolling {
    const oldest = newest - seconds / SLOT_S - 1;
    const r = this.rolling.get(seconds);
    // Behind the last reading, or so far ahead that every slot left: merged from the slots again.
    if (!r || newest < r.newest || oldest < r.oldest || oldest >= r.newest) {
      const fresh: Rolling = { oldest, newest, totals: new Map(), batches: 0 };
      for (const [slot, counts] of this.slots) if (slot > oldest && slot <= newest) merge(fresh, counts, 1);
      this.rolling.set(seconds, fresh);
      return fresh;
    }
    for (let slot = r.oldest + 1; slot <= oldest; slot++) {
      const counts = this.slots.get(slot);
      if (counts) merge(r, counts, -1);
    }
    for (let slot = r.newest + 1; slot <= newest; slot++) {
      const counts = this.slots.get(slot);
      if (counts) merge(r, counts, 1);
    }
    r.oldest = oldest;
    r.newest = newest;
    return r;
  }

  windows(nowSeconds: number): FreshnessFigures {
    return {
      minute: this.window(nowSeconds, FRESHNESS_WINDOWS.minute),
      hour: this.window(nowSeconds, FRESHNESS_WINDOWS.hour),
      day: this.window(nowSeconds, FRESHNESS_WINDOWS.day),
    };
  }
}

/** Adds (sign 1) or takes away (-1) a slot's counts from a window's; a bucket at 0 is dropped. */
function merge(r: Rolling, counts: ReadonlyMap<number, number>, sign: 1 | -1): void {
  for (const [bucket, n] of counts) {
    const total = (r.totals.get(bucket) ?? 0) + sign * n;
    if (total === 0) r.totals.delete(bucket);
    else r.totals.set(bucket, total);
    r.batches += sign * n;
  }
}

/** The windows of an agent that has applied no batch since the engine started. */
export const NO_BATCH_WINDOWS: FreshnessFigures = {
  minute: { batches: 0, p50Seconds: null, p99Seconds: null },
  hour: { batches: 0, p50Seconds: null, p99Seconds: null },
  day: { batches: 0, p50Seconds: null, p99Seconds: null },
};
