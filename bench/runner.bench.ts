// End to end: changes per second from the simulated SQL Server through the runner into SQLite and into
// PostgreSQL, next to the raw insert rate of the same rows into the same target in the same run.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandboxSqlServer } from '../simulators/mssql';
import { startDelayLink } from '../simulators/delayLink';
import { BENCH_LOGIN, createBenchTable, insertBenchRows, openBenchSource } from './sandboxSource';
import { PipelineRunner } from '../main/runner/pipelineRunner';
import { SqliteTarget } from '../main/agents/sqlite/target';
import { PostgresTarget } from '../main/agents/postgresql/target';
import type { Target } from '../main/agents/target';
import type { Benchmark, Figure } from './harness';
import { LINK_ONE_WAY_MS } from './worlds';
import {
  dropPostgresSchema,
  PG,
  ratio,
  rawPostgresRate,
  rawSqliteRate,
  benchRows,
  catchUpRounds,
  median,
  timedRate,
  type BenchRow,
} from './rawTargets';

const CHANGES = 30_000;
const rows = benchRows(CHANGES, '2026-01-01 10:00:00.123');

export const runnerBenchmark: Benchmark = {
  name: 'runner',
  run: async () => {
    const sandbox = await startSandboxSqlServer({ logins: [BENCH_LOGIN], databases: ['Sales'] });
    const dir = mkdtempSync(join(tmpdir(), 'cdc-bench-runner-'));
    const schema = `cdc_bench_${process.pid}`;
    const figures: Figure[] = [];
    try {
      const open = () => openBenchSource(sandbox);
      await createBenchTable(sandbox, []);
      const entities = [{ source: { schema: 'dbo', table: 'Big' }, target: { table: 'big' } }];
      const runner = (target: () => Promise<Target>) =>
        new PipelineRunner({ openSource: open, openTarget: target, entities });
      const sqlitePath = join(dir, 'replica.sqlite');
      const sqlite = () => Promise.resolve(new SqliteTarget(sqlitePath, 'bench'));
      const postgres = () => Promise.resolve(new PostgresTarget({ ...PG, schema }, 'bench'));
      // Both targets snapshot the empty table first, so what follows is the change stream alone.
      await runner(sqlite).runUntilCaughtUp();
      await runner(postgres).runUntilCaughtUp();
      const { sqlite: toSqlite, postgres: toPostgres } = await catchUpRounds(
        CHANGES,
        async (round) => {
          const setup = await open();
          await insertBenchRows(
            setup.pool,
            rows.map(([id, ...rest]): BenchRow => [id + round * CHANGES, ...rest]),
          );
          await setup.close();
        },
        {
          sqlite: () => runner(sqlite).runUntilCaughtUp(),
          postgres: () => runner(postgres).runUntilCaughtUp(),
        },
      );

      // The same catch-up from a SQL Server 30 ms away: the agent's requests in series pay the link.
      // The changes are made beside it (the delay is the agent's link, not the application's).
      const link = await startDelayLink({ port: sandbox.port }, LINK_ONE_WAY_MS);
      const delayed: number[] = [];
      const turns: number[] = [];
      try {
        const far = () =>
          new PipelineRunner({ openSource: () => openBenchSource(link), openTarget: sqlite, entities });
        for (let round = 4; round <= 6; round++) {
          const setup = await open();
          await insertBenchRows(
            setup.pool,
            rows.map(([id, ...rest]): BenchRow => [id + round * CHANGES, ...rest]),
          );
          await setup.close();
          const before = link.turns;
          delayed.push(await timedRate(CHANGES, () => far().runUntilCaughtUp()));
          turns.push(link.turns - before);
        }
      } finally {
        await link.close();
      }
      const rawSqlite = await rawSqliteRate(dir, rows);
      figures.push(
        { name: 'runner.ct→sqlite', value: toSqlite, unit: 'changes/s' },
        { name: 'raw.sqlite.insert', value: rawSqlite, unit: 'rows/s' },
        { name: 'runner.ct→sqlite.ratio', value: ratio(toSqlite, rawSqlite), unit: 'of raw' },
        { name: 'runner.ct→sqlite.at30ms', value: ratio(median(delayed), toSqlite), unit: 'of no delay' },
        { name: 'runner.ct→sqlite.at30ms.turns', value: median(turns), unit: 'requests in series' },
      );

      const rawPostgres = await rawPostgresRate(schema, rows);
      await dropPostgresSchema(schema);
      figures.push(
        { name: 'runner.ct→postgres', value: toPostgres, unit: 'changes/s' },
        { name: 'raw.postgres.insert', value: rawPostgres, unit: 'rows/s' },
        { name: 'runner.ct→postgres.ratio', value: ratio(toPostgres, rawPostgres), unit: 'of raw' },
      );
      return figures;
    } finally {
      await sandbox.close();
    }
  },
};
