// Benchmarks report figures; they never pass or fail. Each figure prints as a line and lands in
// bench/results.json with the machine it was measured on.
export interface Figure {
  name: string;
  value: number;
  unit: string;
}

export interface Benchmark {
  name: string;
  run(): Promise<Figure[]>;
}

/** Calls `fn` repeatedly for about `ms` milliseconds (after a warm-up) and returns calls per second. */
export function rate(fn: () => void, ms = 1000): number {
  const until = (deadline: number) => {
    let n = 0;
    while (performance.now() < deadline) {
      for (let i = 0; i < 100; i++) fn();
      n += 100;
    }
    return n;
  };
  until(performance.now() + ms / 4);
  const start = performance.now();
  const count = until(start + ms);
  return count / ((performance.now() - start) / 1000);
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

/**
 * Latency of one HTTP request, repeated: `warmup` unmeasured calls, then `calls` measured ones in a row.
 * Answers the p50 and p99 in milliseconds; any status other than 200 stops the benchmark.
 */
export async function measureLatency(
  name: string,
  request: () => Promise<Response>,
  calls = 2000,
  warmup = 200,
): Promise<Figure[]> {
  const times: number[] = [];
  for (let i = 0; i < warmup + calls; i++) {
    const start = performance.now();
    const res = await request();
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${name} answered ${res.status}`);
    if (i >= warmup) times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 1000) / 1000;
  return [
    { name: `${name}.p50`, value: round(percentile(times, 50)), unit: 'ms' },
    { name: `${name}.p99`, value: round(percentile(times, 99)), unit: 'ms' },
  ];
}
