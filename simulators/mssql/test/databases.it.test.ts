// CREATE DATABASE in the simulated SQL Server, through the real `mssql` driver: the new database is
// listed in sys.databases, can be logged in to and used, a taken name is 1801, a transaction refuses
// it with 226, and a login without the permission gets 262.
import type sql from 'mssql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxSqlServer, type SandboxSqlServer } from '..';
import { DBA, sandboxPool } from '../../../test/helpers/sandbox';

let sandbox: SandboxSqlServer;
let pool: sql.ConnectionPool;
const refused = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as sql.RequestError,
  );

beforeAll(async () => {
  sandbox = await startSandboxSqlServer({
    logins: [DBA, { name: 'reader', password: 'Reader-Passw0rd', permissions: { write: false } }],
    databases: ['Sales'],
  });
  pool = await sandboxPool(sandbox, { max: 1 });
});
afterAll(async () => {
  await pool?.close();
  await sandbox?.close();
});

describe('CREATE DATABASE', () => {
  it('makes a database that is listed, logged in to and written', async () => {
    await pool.request().batch('CREATE DATABASE Replica');
    const names = await pool
      .request()
      .query<{ name: string }>('SELECT name FROM sys.databases ORDER BY name');
    expect(names.recordset.map((r) => r.name)).toContain('Replica');
    const replica = await sandboxPool(sandbox, { database: 'Replica', max: 1 });
    try {
      await replica.request().batch('CREATE TABLE dbo.T (Id INT PRIMARY KEY); INSERT INTO dbo.T VALUES (1);');
      const r = await replica.request().query<{ n: number }>('SELECT COUNT(*) AS n FROM dbo.T');
      expect(r.recordset[0]?.n).toBe(1);
    } finally {
      await replica.close();
    }
    // The first database's tables are its own.
    expect(await refused(pool.request().query('SELECT * FROM dbo.T'))).toMatchObject({ number: 208 });
  });

  it('refuses a taken name (1801), inside a transaction (226), and without the permission (262)', async () => {
    expect(await refused(pool.request().batch('CREATE DATABASE [Sales]'))).toMatchObject({
      number: 1801,
      message: "Database 'Sales' already exists. Choose a different database name.",
    });
    expect(await refused(pool.request().batch('BEGIN TRAN; CREATE DATABASE Other;'))).toMatchObject({
      number: 226,
    });
    await pool.request().batch('ROLLBACK');
    const reader = await sandboxPool(sandbox, { user: 'reader', password: 'Reader-Passw0rd', max: 1 });
    try {
      expect(await refused(reader.request().batch('CREATE DATABASE Mine'))).toMatchObject({ number: 262 });
    } finally {
      await reader.close();
    }
  });
});
