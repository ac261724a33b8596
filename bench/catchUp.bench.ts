// Catching up a backlog on the simulated SQL Server: 10,000, 100,000 and 1,000,000 pending changes read
// by the change-tracking agent in batches of 10,000 until caught up. ct.catchUp.perChange is the time
// per change; ct.catchUp.growth the time per change at 1,000,000 over that at 10,000 (1 = flat: the
// work per batch is bounded by the batch, whatever the backlog; pendingKeys.ts).
import { startSandboxSqlServer } from '../simulators/mssql';
import type { Checkpoint } from '../main/agents/source';
import type { Benchmark, Figure } from './harness';
import { BENCH_LOGIN, openBenchSource } from './sandboxSource';

const SIZES = [10_000, 100_000, 1_000_000];
const PER_STATEMENT = 1_000;

export const catchUpBenchmark: Benchmark = {
  name: 'change-tracking catch-up',
  run: async () => {
    const sandbox = await startSandboxSqlServer({ logins: [BENCH_LOGIN], databases: ['Sales'] });
    const source = await openBenchSource(sandbox);
    const figures: Figure[] = [];
    const perChange = new Map<number, number>();
    try {
      const run = (text: string) => source.pool.request().batch(text);
      await run(`ALTER DATABASE Sales SET CHANGE_TRACKING = ON (CHANGE_RETENTION = 5 DAYS);
        ALTER DATABASE Sales SET ALLOW_SNAPSHOT_ISOLATION ON; CREATE SCHEMA SYNC;`);
      for (const size of SIZES) {
        const name = `Backlog${size}`;
        await run(`CREATE TABLE dbo.${name} (Id INT PRIMARY KEY, Label NVARCHAR(40) NOT NULL, Amount DECIMAL(12, 2) NULL);
          ALTER TABLE dbo.${name} ENABLE CHANGE_TRACKING;`);
        const head = await source.pool
          .request()
          .query<{ v: string }>('SELECT CHANGE_TRACKING_CURRENT_VERSION() AS v');
        for (let from = 0; from < size; from += PER_STATEMENT)
          await run(
            `INSERT INTO dbo.${name} VALUES ${Array.from(
              { length: PER_STATEMENT },
              (_, i) => `(${from + i}, N'row ${from + i}', ${(i % 400) / 4})`,
            ).join(', ')}`,
          );
        const table = { schema: 'dbo', table: name };
        let checkpoint: Checkpoint = { [`dbo.${name}`]: String(head.recordset[0]?.v) };
        let read = 0;
        const start = performance.now();
        for (;;) {
          const batch = await source.readChanges([table], checkpoint, { maxRows: 10_000 });
          read += batch.changes.length;
          checkpoint = batch.checkpoint;
          if (batch.changes.length === 0) break;
        }
        const micros = ((performance.now() - start) * 1000) / read;
        if (read !== size) throw new Error(`expected ${size} changes, read ${read}`);
        perChange.set(size, micros);
        figures.push({
          name: `ct.catchUp${size}.perChange`,
          value: Math.round(micros * 10) / 10,
          unit: 'µs',
        });
      }
      const growth = (perChange.get(1_000_000) ?? 0) / (perChange.get(10_000) ?? 1);
      figures.push({ name: 'ct.catchUp.growth', value: Math.round(growth * 100) / 100, unit: 'ratio' });
      return figures;
    } finally {
      await source.close();
      await sandbox.close();
    }
  },
};
