// The engine and the target alone: changes prepared in memory (syntheticSource.ts) through the runner
// into SQLite and PostgreSQL, each next to its raw anchor measured in the same run on the same rows —
// one prepared INSERT in one transaction for SQLite, COPY for PostgreSQL.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PipelineRunner } from '../main/runner/pipelineRunner';
import { SqliteTarget } from '../main/agents/sqlite/target';
import { PostgresTarget } from '../main/agents/postgresql/target';
import type { Target } from '../main/agents/target';
import type { Benchmark } from './harness';
import {
  benchRows,
  createPostgresSchema,
  dropPostgresSchema,
  PG,
  ratio,
  rawPostgresCopyRate,
  rawSqliteRate,
} from './rawTargets';
import { syntheticChanges, syntheticSource } from './syntheticSource';

const CHANGES = Number(process.env.BENCH_FAST_CHANGES ?? 200_000);

/** Three rounds of a measurement and its anchor; the round whose ratio is the median of the three. */
async function medianRound(
  round: (n: number) => Promise<{ engine: number; raw: number }>,
): Promise<{ engine: number; raw: number }> {
  const rounds = [await round(1), await round(2), await round(3)];
  rounds.sort((a, b) => a.engine / a.raw - b.engine / b.raw);
  return rounds[1] as { engine: number; raw: number };
}

export const fastPathBenchmark: Benchmark = {
  name: 'fast path',
  run: async () => {
    const rows = benchRows(CHANGES, '2026-01-01 10:00:00.123000');
    const changes = syntheticChanges(rows);
    const dir = mkdtempSync(join(tmpdir(), 'cdc-bench-fast-'));
    const schema = `cdc_bench_fast_${process.pid}`;
    const entities = [{ source: { schema: 'dbo', table: 'Big' }, target: { table: 'big' } }];
    // Throughput once streaming: from the first batch's commit to the last, so the runner's start
    // (tables described and created, the empty copy) is not spread over the changes.
    const run = async (target: () => Promise<Target>, count = CHANGES) => {
      let first: { at: number; changes: number } | null = null;
      const runner = new PipelineRunner({
        openSource: async () => syntheticSource(changes.slice(0, count)),
        openTarget: target,
        entities,
        onEvent: (e) => {
          if (e.kind === 'batch-applied') first ??= { at: performance.now(), changes: e.changes };
          if (e.kind === 'failed') throw new Error(e.reason);
        },
      });
      await runner.runUntilCaughtUp();
      if (!first) throw new Error('no batch was applied');
      const { at, changes: before } = first;
      return Math.round((count - before) / ((performance.now() - at) / 1000));
    };
    await createPostgresSchema(schema);
    try {
      const sqlite = (name: string) => async () => new SqliteTarget(join(dir, `${name}.sqlite`), 'bench');
      const postgres = (pipeline: string) => async () => new PostgresTarget({ ...PG, schema }, pipeline);
      // Each path once on a tenth of the rows first, so both sides are measured with compiled code;
      // then three rounds of engine and anchor in turn, and the round with the median ratio is shown:
      // on a shared 2-core machine a single round varies by a third (fsync, the other core's load).
      await run(sqlite('warm-up'), CHANGES / 10);
      await rawSqliteRate(dir, rows.slice(0, CHANGES / 10));
      const toSqlite = await medianRound(async (round) => ({
        engine: await run(sqlite(`replica-${round}`)),
        raw: await rawSqliteRate(dir, rows),
      }));
      await run(postgres('warm-up'), CHANGES / 10);
      await rawPostgresCopyRate(schema, rows.slice(0, CHANGES / 10));
      const toPostgres = await medianRound(async (round) => {
        await dropPostgresSchema(schema);
        await createPostgresSchema(schema);
        return {
          engine: await run(postgres(`bench-${round}`)),
          raw: await rawPostgresCopyRate(schema, rows),
        };
      });
      return [
        { name: 'engine.synthetic→sqlite', value: toSqlite.engine, unit: 'changes/s' },
        {
          name: 'raw.sqlite.fastest',
          value: toSqlite.raw,
          unit: 'rows/s (the faster of 1 and 32 rows a prepared INSERT)',
        },
        {
          name: 'engine.synthetic→sqlite.ratio',
          value: ratio(toSqlite.engine, toSqlite.raw),
          unit: 'of raw',
        },
        { name: 'engine.synthetic→postgres', value: toPostgres.engine, unit: 'changes/s' },
        { name: 'raw.postgres.copy', value: toPostgres.raw, unit: 'rows/s' },
        {
          name: 'engine.synthetic→postgres.ratio',
          value: ratio(toPostgres.engine, toPostgres.raw),
          unit: 'of raw',
        },
      ];
    } finally {
      await dropPostgresSchema(schema);
    }
  },
};
