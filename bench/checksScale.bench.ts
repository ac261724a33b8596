// The change-tracking agent's checks (POST …/test) with 100, 1,000 and 10,000 entities on the simulated
// SQL Server: the median of three runs of every check, in milliseconds. The goal: 1,000 tables in under
// 0.5 s. Statements stay bounded (names.ts, TABLES_PER_STATEMENT), so the time grows with the tables:
// ct.checks.growth is the time per table at 10,000 over the time per table at 1,000 (1 = linear), and
// ct.checks1000per100 the time at 1,000 over the time at 100 (10 = linear). The second moved from ~10 to
// ~19 when the simulator's T-SQL translation grew quadratic in a statement's length, unseen.
import { runChecks } from '../main/agents/changeTracking/checks';
import { startSandboxSqlServer } from '../simulators/mssql';
import type { Entity } from '../shared/controlApi';
import type { Benchmark, Figure } from './harness';
import { BENCH_CONFIGURATION, benchCredentials, BENCH_LOGIN, openBenchSource } from './sandboxSource';

const SIZES = [100, 1_000, 10_000];

export const checksScaleBenchmark: Benchmark = {
  name: 'change-tracking checks at scale',
  run: async () => {
    const sandbox = await startSandboxSqlServer({ logins: [BENCH_LOGIN], databases: ['Sales'] });
    const source = await openBenchSource(sandbox);
    // Tables made on one connection: every other would read SQLite's growing schema again after each.
    const setup = await openBenchSource(sandbox, 1);
    const figures: Figure[] = [];
    try {
      const run = (text: string) => setup.pool.request().batch(text);
      await run(`ALTER DATABASE Sales SET CHANGE_TRACKING = ON (CHANGE_RETENTION = 5 DAYS);
        ALTER DATABASE Sales SET ALLOW_SNAPSHOT_ISOLATION ON; CREATE SCHEMA SYNC;`);
      let made = 0;
      for (const size of SIZES) {
        for (; made < size; made += 200)
          await run(
            Array.from(
              { length: 200 },
              (_, k) =>
                `CREATE TABLE dbo.T${made + k} (Id INT PRIMARY KEY); ALTER TABLE dbo.T${made + k} ENABLE CHANGE_TRACKING;`,
            ).join('\n'),
          );
        const entities: Entity[] = Array.from({ length: size }, (_, i) => ({
          source: { schema: 'dbo', table: `T${i}` },
          target: { table: `t${i}` },
          rowIdentification: { kind: 'primaryKey' },
        }));
        const times: number[] = [];
        for (let k = 0; k < 3; k++) {
          const start = performance.now();
          const checks = await runChecks(
            source.pool,
            benchCredentials(sandbox),
            BENCH_CONFIGURATION,
            entities,
          );
          times.push(performance.now() - start);
          const failed = checks.filter((c) => c.status === 'failed');
          if (failed.length)
            throw new Error(`checks failed at ${size}: ${failed.map((c) => c.id).join(', ')}`);
        }
        const median = [...times].sort((a, b) => a - b)[1] ?? 0;
        figures.push({ name: `ct.checks${size}`, value: Math.round(median), unit: 'ms' });
      }
      const perTable = (size: number) =>
        (figures.find((f) => f.name === `ct.checks${size}`)?.value ?? 0) / size;
      figures.push({
        name: 'ct.checks1000per100',
        value:
          Math.round(
            ((figures.find((f) => f.name === 'ct.checks1000')?.value ?? 0) /
              (figures.find((f) => f.name === 'ct.checks100')?.value || 1)) *
              10,
          ) / 10,
        unit: 'ratio',
      });
      figures.push({
        name: 'ct.checks.growth',
        value: Math.round((perTable(10_000) / perTable(1_000)) * 100) / 100,
        unit: 'ratio',
      });
      return figures;
    } finally {
      await setup.close();
      await source.close();
      await sandbox.close();
    }
  },
};
