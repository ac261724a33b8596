// How fast this machine runs the suite, against the one the drill budgets were measured on. Machines
// of the same kind differ by half again (the snapshot drill took 285 s on one and 413 s on another
// with the same code), and one machine has slow spells, so a fixed piece of the work drills do (rows
// built, serialized, sorted, written to and read back from SQLite) is timed every few seconds while
// the run goes on, under the same load as the drills, and the median is compared with the reference
// run's. A budget counts in the reference machine's seconds: a drill that grows slow is still caught.
import Database from 'better-sqlite3';

/**
 * The median sample of a whole `npm test` on the machine where DRILL_BUDGET_SECONDS were measured
 * (2026-11-27: snapshot 285 s, checksAtScale 55 s, crash 21 s). That machine is gone; two whole runs
 * on 2026-11-27 elsewhere gave medians of 68.7 and 54.1 ms with the snapshot drill at 530 and 520 s:
 * the anchor follows the machine only roughly, so the reference is set for the second run to pass
 * with about a third to spare (54.1 / 28 = 1.93; 360 s × 1.93 = 695 s against 520 s).
 */
export const REFERENCE_SAMPLE_MS = 28;

const ROWS = 5_000;
const EVERY_MS = 5_000;

/** One timing of the anchor, in milliseconds. */
export function anchorMs(): number {
  const started = performance.now();
  const db = new Database(':memory:');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL, amount TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO t VALUES (?, ?, ?)');
  const rows = Array.from({ length: ROWS }, (_, i) => ({
    id: (i * 7919) % ROWS,
    name: `row ${i} ${'x'.repeat(i % 40)}`,
    amount: (i / 100).toFixed(2),
  }));
  const copied = JSON.parse(JSON.stringify(rows)) as typeof rows;
  copied.sort((a, b) => a.name.localeCompare(b.name));
  db.transaction(() => {
    for (const r of copied) insert.run(r.id, r.name, r.amount);
  })();
  const back = db.prepare('SELECT * FROM t ORDER BY amount').all();
  db.close();
  if (back.length !== ROWS) throw new Error('The pace anchor lost rows.');
  return performance.now() - started;
}

export interface PaceSampler {
  /** The samples' median so far, in milliseconds; null before the first. */
  median(): number | null;
  stop(): void;
}

/** Times the anchor every few seconds (the timer does not keep the process alive). */
export function samplePace(): PaceSampler {
  const samples: number[] = [anchorMs()];
  const timer = setInterval(() => samples.push(anchorMs()), EVERY_MS);
  timer.unref();
  return {
    median: () => {
      const sorted = [...samples].sort((a, b) => a - b);
      return sorted.length === 0 ? null : (sorted[Math.floor(sorted.length / 2)] ?? null);
    },
    stop: () => clearInterval(timer),
  };
}

/** How many seconds here one reference second is worth; never below 1, so a fast machine keeps the budgets. */
export function paceFactor(medianMs: number | null, referenceMs = REFERENCE_SAMPLE_MS): number {
  if (medianMs === null || referenceMs <= 0) return 1;
  return Math.max(1, medianMs / referenceMs);
}
