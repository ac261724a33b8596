// Table copies: rows per second copied by the runner from the simulated SQL Server into SQLite and
// PostgreSQL, beside the raw insert rate of the same rows into the same target in the same run; and a
// 5,000,000-row copy from a synthetic source into SQLite in a process of its own (copyMemory.ts), with
// that process's peak memory.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PostgresTarget } from '../main/agents/postgresql/target';
import { SqliteTarget } from '../main/agents/sqlite/target';
import { BENCH_SHAPE } from './copyMemory';
import type { Target } from '../main/agents/target';
import { PipelineRunner } from '../main/runner/pipelineRunner';
import { startSandboxSqlServer } from '../simulators/mssql';
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

export const snapshotBenchmark: Benchmark = {
  name: 'snapshot',
  run: async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cdc-bench-snapshot-'));
    const schema = `cdc_bench_snap_${process.pid}`;
    const figures: Figure[] = [];
    const entities = [{ source: BENCH_SHAPE.ref, target: { table: 'big' } }];
    const rows = benchRows(COPIED, AT);
    // In a process of its own: the peak is the copy's, not what earlier benchmarks left behind.
    const copied = JSON.parse(
      execFileSync(
        process.execPath,
        ['--import', 'tsx', fileURLToPath(new URL('./copyMemory.ts', import.meta.url))],
        {
          encoding: 'utf8',
          env: { ...process.env, BENCH_COPY_ROWS: String(SYNTHETIC) },
        },
      ),
    ) as { rowsPerSecond: number; rssBefore: number; rssPeak: number; heapPeak: number };
    const label = `snapshot.synthetic${SYNTHETIC / 1e6}M`;
    figures.push(
      { name: `${label}→sqlite`, value: copied.rowsPerSecond, unit: 'rows/s' },
      { name: `${label}.rss.before`, value: copied.rssBefore, unit: 'MiB' },
      { name: `${label}.rss.peak`, value: copied.rssPeak, unit: 'MiB' },
      { name: `${label}.heap.peak`, value: copied.heapPeak, unit: 'MiB' },
    );
    const sandbox = await startSandboxSqlServer({ logins: [BENCH_LOGIN], databases: ['Sales'] });
    try {
      await createBenchTable(sandbox, rows);
      const copy = (target: () => Promise<Target>) =>
        new PipelineRunner({
          openSource: () => openBenchSource(sandbox),
          openTarget: target,
          entities,
          snapshotChunkRows: CHUNK,
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

    return figures;
  },
};
