// The change-tracking agent on the simulated SQL Server: snapshot rows/s, and changed rows/s read
// through CHANGETABLE joined to the rows (10,000 updated rows in one batch).
import { startSandboxSqlServer } from '../simulators/mssql';
import { BENCH_LOGIN, openBenchSource } from './sandboxSource';
import type { Benchmark } from './harness';

const ROWS = 20_000;
const CHANGED = 10_000;

export const changeTrackingBenchmark: Benchmark = {
  name: 'change-tracking agent',
  run: async () => {
    const sandbox = await startSandboxSqlServer({ logins: [BENCH_LOGIN], databases: ['Sales'] });
    const source = await openBenchSource(sandbox);
    try {
      const run = (text: string) => source.pool.request().batch(text);
      await run(`ALTER DATABASE Sales SET CHANGE_TRACKING = ON (CHANGE_RETENTION = 5 DAYS);
        ALTER DATABASE Sales SET ALLOW_SNAPSHOT_ISOLATION ON;
        CREATE TABLE dbo.Big (Id INT PRIMARY KEY, Name NVARCHAR(50) NOT NULL, Amount DECIMAL(12, 2) NULL);
        ALTER TABLE dbo.Big ENABLE CHANGE_TRACKING WITH (TRACK_COLUMNS_UPDATED = ON);`);
      for (let from = 0; from < ROWS; from += 1000) {
        const values = Array.from(
          { length: 1000 },
          (_, i) => `(${from + i}, N'customer ${from + i}', ${(i % 100) / 4})`,
        );
        await run(`INSERT INTO dbo.Big VALUES ${values.join(', ')}`);
      }
      const table = { schema: 'dbo', table: 'Big' };
      let start = performance.now();
      const { position, rows } = await source.snapshot(table, async () => undefined);
      const snapshotRate = Math.round(rows / ((performance.now() - start) / 1000));
      await run(`UPDATE dbo.Big SET Amount = Amount + 1 WHERE Id < ${CHANGED}`);
      start = performance.now();
      const batch = await source.readChanges([table], { 'dbo.Big': position }, { maxRows: CHANGED });
      const changeRate = Math.round(batch.changes.length / ((performance.now() - start) / 1000));
      if (batch.changes.length !== CHANGED)
        throw new Error(`expected ${CHANGED} changes, got ${batch.changes.length}`);
      return [
        { name: 'ct.snapshot20k', value: snapshotRate, unit: 'rows/s' },
        { name: 'ct.changes10k', value: changeRate, unit: 'rows/s' },
      ];
    } finally {
      await source.close();
      await sandbox.close();
    }
  },
};
