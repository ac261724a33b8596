// The simulated SQL Server through the real mssql driver: rows per second of a 100,000-row SELECT.
// The rows are seeded straight into the sandbox's SQLite, so only the SELECT is measured.
import sql from 'mssql';
import { startSandboxSqlServer } from '../simulators/mssql';
import { tableSql } from '../simulators/mssql/tsql/basics';
import type { Benchmark } from './harness';

const ROWS = 100_000;

export const sandboxMssqlBenchmark: Benchmark = {
  name: 'sandbox sql server',
  run: async () => {
    const sandbox = await startSandboxSqlServer({
      logins: [{ name: 'bench', password: 'Bench-Pa55' }],
      databases: ['Sales'],
    });
    const db = sandbox.sql.database('Sales').open();
    db.createTable(
      'dbo',
      'Big',
      [
        { name: 'Id', type: { name: 'int' }, nullable: false },
        { name: 'Name', type: { name: 'nvarchar', length: 50 }, nullable: false },
        { name: 'Amount', type: { name: 'decimal', precision: 12, scale: 2 }, nullable: true },
        { name: 'At', type: { name: 'datetime2', scale: 7 }, nullable: false },
      ],
      [{ name: 'PK_Big', kind: 'PK', clustered: true, columns: ['Id'] }],
    );
    const insert = db.db.prepare(`INSERT INTO ${tableSql('dbo', 'Big')} VALUES (?, ?, ?, ?)`);
    db.db.transaction(() => {
      for (let i = 0; i < ROWS; i++)
        insert.run(
          i,
          `customer ${i}`,
          (i % 10_000) / 100,
          `2026-01-01 00:00:${String(i % 60).padStart(2, '0')}.0000000`,
        );
    })();
    db.close();
    const pool = await new sql.ConnectionPool({
      server: '127.0.0.1',
      port: sandbox.port,
      user: 'bench',
      password: 'Bench-Pa55',
      database: 'Sales',
      options: { encrypt: false },
    }).connect();
    try {
      await pool.request().query('SELECT TOP 1000 * FROM dbo.Big');
      const start = performance.now();
      const answer = await pool.request().query('SELECT Id, Name, Amount, At FROM dbo.Big');
      const seconds = (performance.now() - start) / 1000;
      if (answer.recordset.length !== ROWS)
        throw new Error(`expected ${ROWS} rows, got ${answer.recordset.length}`);
      return [{ name: 'sandbox.mssql.select100k', value: Math.round(ROWS / seconds), unit: 'rows/s' }];
    } finally {
      await pool.close();
      await sandbox.close();
    }
  },
};
