// A status push reads an agent's freshness windows: for a day of busy batches that must stay the cost
// of the day's buckets, not a merge of its 8,640 ten-second slots. The anchor, measured in the same run,
// is that merge (what a first reading does); the figure is how many pushes run in the anchor's time.
import { Freshness } from '../main/engine/freshness';
import { rate, type Benchmark } from './harness';

const DAY_S = 86_400;

/** A day of batches, three every two seconds, latencies spread from 5 ms to a few seconds. */
function busyDay(now: number): Freshness {
  const f = new Freshness();
  let seed = 7;
  for (let s = 0; s < DAY_S; s += 2)
    for (let k = 0; k < 3; k++) {
      seed = (seed * 48_271) % 2_147_483_647;
      const ms = 5 + (seed % 100_000) ** 1.3 / 50;
      f.add(now - DAY_S + s, { sourceMs: ms, engineMs: 0, targetMs: 0 });
    }
  return f;
}

export const freshnessBenchmark: Benchmark = {
  name: 'freshness windows',
  run: async () => {
    const now = 1_800_000_000;
    const day = busyDay(now);
    let at = now;
    const pushes = rate(() => day.windows((at += 1)), 500);
    // A reading behind the last one merges every slot again: one slot further back each time.
    let back = now;
    const merges = rate(() => day.windows((back -= 10)), 500);
    return [
      { name: 'freshness.push.perMerge', value: Math.round(pushes / merges), unit: 'pushes per full merge' },
      { name: 'freshness.push', value: Math.round(pushes), unit: 'pushes/s' },
    ];
  },
};
