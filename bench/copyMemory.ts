// A copy of a synthetic table (rows made when a chunk asks for them, so only the engine and the target
// hold memory) into SQLite, in a process of its own, sampling its memory: the bounded-memory figure of
// `npm run bench`. Prints one JSON line: rows per second, resident set before and at its peak, heap peak.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChangeBatch, Checkpoint, Row, SourceAgent, TableRef } from '../main/agents/source';
import { SqliteTarget } from '../main/agents/sqlite/target';
import { PipelineRunner } from '../main/runner/pipelineRunner';

export const BENCH_SHAPE = {
  ref: { schema: 'dbo', table: 'Big' },
  columns: [
    { name: 'Id', sourceType: 'int', nullable: false },
    { name: 'Name', sourceType: 'nvarchar(50)', nullable: false },
    { name: 'Amount', sourceType: 'decimal(12,2)', nullable: false },
    { name: 'At', sourceType: 'datetime2(3)', nullable: false },
  ],
  key: ['Id'],
};

/** A source whose one table has `count` rows made when a chunk asks for them, and no changes. */
function syntheticSource(count: number): SourceAgent {
  const row = (i: number): Row => ({
    Id: i,
    Name: `customer ${i}`,
    Amount: ((i % 10_000) / 100).toFixed(2),
    At: '2026-01-01 10:00:00.123',
  });
  return {
    check: async () => [],
    describe: async () => [BENCH_SHAPE],
    countRows: async () => count,
    snapshotStart: async () => '1',
    readRows: async () => [],
    readChunk: async (_t: TableRef, cursor: string | null, limit: number) => {
      const from = cursor === null ? 0 : Number(cursor);
      const to = Math.min(count, from + limit);
      const rows = Array.from({ length: to - from }, (_, k) => row(from + k));
      return { rows, next: to < count ? String(to) : null };
    },
    readChanges: async (tables: readonly TableRef[], checkpoint: Checkpoint): Promise<ChangeBatch> => ({
      changes: [],
      checkpoint: {},
      resnapshot: tables
        .map((t) => `${t.schema}.${t.table}`)
        .filter((t) => checkpoint[t] === undefined)
        .map((table) => ({ table, reason: 'first copy' })),
    }),
    loadCheckpoint: async () => ({}),
    saveCheckpoint: async () => undefined,
    backlog: async () => ({ rowsToRead: 0, versionsBehind: 0, perTable: [] }),
    close: async () => undefined,
  };
}

/** Runs `work` while sampling memory every 20 ms; answers the peak resident set and heap in MiB. */
async function peakMemory(work: () => Promise<void>): Promise<{ rss: number; heap: number }> {
  const peak = { rss: 0, heap: 0 };
  const sample = () => {
    const m = process.memoryUsage();
    peak.rss = Math.max(peak.rss, m.rss);
    peak.heap = Math.max(peak.heap, m.heapUsed + m.external);
  };
  const timer = setInterval(sample, 20);
  try {
    await work();
  } finally {
    clearInterval(timer);
    sample();
  }
  return { rss: Math.round(peak.rss / 2 ** 20), heap: Math.round(peak.heap / 2 ** 20) };
}

async function main(): Promise<void> {
  const rows = Number(process.env.BENCH_COPY_ROWS ?? 5_000_000);
  const dir = mkdtempSync(join(tmpdir(), 'cdc-bench-copy-'));
  const rssBefore = Math.round(process.memoryUsage().rss / 2 ** 20);
  const started = performance.now();
  const peak = await peakMemory(() =>
    new PipelineRunner({
      openSource: async () => syntheticSource(rows),
      openTarget: async () => new SqliteTarget(join(dir, 'copy.sqlite'), 'bench'),
      entities: [{ source: BENCH_SHAPE.ref, target: { table: 'big' } }],
      snapshotChunkRows: 10_000,
    }).runUntilCaughtUp(),
  );
  const rowsPerSecond = Math.round(rows / ((performance.now() - started) / 1000));
  process.stdout.write(
    `${JSON.stringify({ rowsPerSecond, rssBefore, rssPeak: peak.rss, heapPeak: peak.heap })}\n`,
  );
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '')) await main();
