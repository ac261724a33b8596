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
