// Table copies: rows per second copied by the runner from the simulated SQL Server into SQLite and
// PostgreSQL, beside the raw insert rate of the same rows into the same target in the same run; and a
// 5,000,000-row copy from a synthetic source (rows made on demand, so only the engine and the target
// hold memory) into SQLite, with the process's peak memory while it runs.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChangeBatch, Checkpoint, Row, SourceAgent, TableRef } from '../main/connectors/source';
import { PostgresTarget } from '../main/connectors/postgresql/target';
import { SqliteTarget } from '../main/connectors/sqlite/target';
import type { Target } from '../main/connectors/target';
import { PipelineRunner } from '../main/runner/pipelineRunner';
import { startSandboxSqlServer } from '../main/sandbox/mssql';
import type { Benchmark, Figure } from './harness';
import {
  benchRows,
  dropPostgresSchema,
  PG,
  ratio,
  rawPostgresRate,
  rawSqliteRate,
  timedRate,
} from './rawTargets';
import { BENCH_LOGIN, createBenchTable, openBenchSource } from './sandboxSource';

const COPIED = 100_000;
const SYNTHETIC = Number(process.env.BENCH_COPY_ROWS ?? 5_000_000);
const CHUNK = 10_000;
const AT = '2026-01-01 10:00:00.123';

const SHAPE = {
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
    At: AT,
  });
  return {
    check: async () => [],
    describe: async () => [SHAPE],
    countRows: async () => count,
    snapshotStart: async () => '1',
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

/** Runs `work` while sampling the resident set every 20 ms; answers the peak in MiB. */
async function peakRss(work: () => Promise<void>): Promise<number> {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.round(Math.max(peak, process.memoryUsage().rss) / 2 ** 20);
}

export const snapshotBenchmark: Benchmark = {
  name: 'snapshot',
  run: async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cdc-bench-snapshot-'));
    const schema = `cdc_bench_snap_${process.pid}`;
    const figures: Figure[] = [];
    const entities = [{ source: SHAPE.ref, target: { table: 'big' } }];
    const rows = benchRows(COPIED, AT);
    const sandbox = await startSandboxSqlServer({ logins: [BENCH_LOGIN], databases: ['Sales'] });
    try {
      await createBenchTable(sandbox, rows);
      const copy = (target: () => Promise<Target>) =>
        new PipelineRunner({
          openSource: () => openBenchSource(sandbox),
          openTarget: target,
          entities,
          pageSize: CHUNK,
        }).runUntilCaughtUp();

      const toSqlite = await timedRate(COPIED, () =>
        copy(async () => new SqliteTarget(join(dir, 'copy.sqlite'), 'bench')),
      );
      const rawSqlite = await rawSqliteRate(dir, rows);
      figures.push(
        { name: 'snapshot.ct→sqlite', value: toSqlite, unit: 'rows/s' },
        { name: 'snapshot.raw.sqlite.insert', value: rawSqlite, unit: 'rows/s' },
        { name: 'snapshot.ct→sqlite.ratio', value: ratio(toSqlite, rawSqlite), unit: 'of raw' },
      );
      const toPostgres = await timedRate(COPIED, () =>
        copy(async () => new PostgresTarget({ ...PG, schema }, 'bench')),
      );
      const rawPostgres = await rawPostgresRate(schema, rows);
      figures.push(
        { name: 'snapshot.ct→postgres', value: toPostgres, unit: 'rows/s' },
        { name: 'snapshot.raw.postgres.insert', value: rawPostgres, unit: 'rows/s' },
        { name: 'snapshot.ct→postgres.ratio', value: ratio(toPostgres, rawPostgres), unit: 'of raw' },
      );
    } finally {
      await sandbox.close();
      await dropPostgresSchema(schema);
    }

    const before = Math.round(process.memoryUsage().rss / 2 ** 20);
    let synthetic = 0;
    const peak = await peakRss(async () => {
      synthetic = await timedRate(SYNTHETIC, () =>
        new PipelineRunner({
          openSource: async () => syntheticSource(SYNTHETIC),
          openTarget: async () => new SqliteTarget(join(dir, 'synthetic.sqlite'), 'bench'),
          entities,
          pageSize: CHUNK,
        }).runUntilCaughtUp(),
      );
    });
    figures.push(
      { name: `snapshot.synthetic${SYNTHETIC / 1e6}M→sqlite`, value: synthetic, unit: 'rows/s' },
      { name: `snapshot.synthetic${SYNTHETIC / 1e6}M.rss.before`, value: before, unit: 'MiB' },
      { name: `snapshot.synthetic${SYNTHETIC / 1e6}M.rss.peak`, value: peak, unit: 'MiB' },
    );
    return figures;
  },
};
