// The change-tracking agent's checks (POST …/test) with 100, 1,000 and 10,000 entities on the simulated
// SQL Server: the median of three runs of every check after a warm-up, in milliseconds. The goal: 1,000 tables in under
// 0.5 s. Statements stay bounded (names.ts, TABLES_PER_STATEMENT), so the time grows with the tables:
// ct.checks.growth is the time per table at 10,000 over the time per table at 1,000 (1 = linear), and
// ct.checks1000per100 the time at 1,000 over the time at 100 (10 = linear). The second moved from ~10 to
// ~19 when the simulator's T-SQL translation grew quadratic in a statement's length, unseen.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runChecks } from '../main/agents/changeTracking/checks';
import { openEngine } from '../main/engine/engine';
import { startEngineServer } from '../main/engine/server';
import { silentLog } from '../main/platform/log';
import { startSandboxSqlServer, type SandboxSqlServer } from '../simulators/mssql';
import type { Entity } from '../shared/controlApi';
import { measureLatency, type Benchmark, type Figure } from './harness';
import { BENCH_CONFIGURATION, benchCredentials, BENCH_LOGIN, openBenchSource } from './sandboxSource';

const SIZES = [100, 1_000, 10_000];

/**
 * The same checks as a DBA's Test button asks for them: POST …/test on the local engine's control API,
 * with the pipeline's 1,000 entities stored, five calls after one unmeasured. The goal: p50 under 1.5 s.
 */
async function checksThroughTheApi(sandbox: SandboxSqlServer, entities: Entity[]): Promise<Figure[]> {
  const engine = openEngine({ dataDir: mkdtempSync(join(tmpdir(), 'cdc-bench-checks-')), log: silentLog });
  const server = await startEngineServer(engine.deps, { port: 0 });
  const headers = { Authorization: `Bearer ${engine.firstStartToken}`, 'Content-Type': 'application/json' };
  const agent = `${server.url}/pipelines/p/agents/sql`;
  const call = async (method: string, url: string, body: unknown) => {
    const res = await fetch(url, { method, headers, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`${method} ${url} answered ${res.status}: ${await res.text()}`);
  };
  try {
    const { maxConnectionsCount: _, ...hostCredentials } = benchCredentials(sandbox);
    await call('POST', `${server.url}/pipelines`, { id: 'p', name: 'p' });
    await call('POST', `${server.url}/pipelines/p/agents`, {
      id: 'sql',
      type: 'change-tracking',
      role: 'source',
    });
    await call('PUT', `${agent}/config/credentials`, { hostCredentials });
    await call('PUT', `${agent}/config/specific`, { configuration: BENCH_CONFIGURATION });
    await call('PUT', `${server.url}/pipelines/p/entities`, { entities });
    return await measureLatency(
      'ct.checks1000.api',
      () => fetch(`${agent}/test`, { method: 'POST', headers }),
      5,
      1,
    );
  } finally {
    await server.close();
    engine.close();
  }
}

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
        // One unmeasured run first: the pool's connections and the server's caches warm, as after a
        // DBA's first Test.
        for (let k = -1; k < 3; k++) {
          const start = performance.now();
          const checks = await runChecks(
            source.pool,
            benchCredentials(sandbox),
            BENCH_CONFIGURATION,
            entities,
          );
          if (k >= 0) times.push(performance.now() - start);
          const failed = checks.filter((c) => c.status === 'failed');
          if (failed.length)
            throw new Error(`checks failed at ${size}: ${failed.map((c) => c.id).join(', ')}`);
        }
        const median = [...times].sort((a, b) => a - b)[1] ?? 0;
        figures.push({ name: `ct.checks${size}`, value: Math.round(median), unit: 'ms' });
        if (size === 1_000) figures.push(...(await checksThroughTheApi(sandbox, entities)));
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
