// The simulated SQL Server keeps names apart as SQL Server does: `[a.b].[c]` and `[a].[b.c]` are two
// tables, and a database with a case-sensitive collation holds dbo.T_A beside dbo.t_a, while the
// default collation takes them for one (2714).
import type sql from 'mssql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxSqlServer, type SandboxSqlServer } from '..';
import { DBA, sandboxPool } from '../../../test/helpers/sandbox';

let sandbox: SandboxSqlServer;
let pool: sql.ConnectionPool;
let strict: sql.ConnectionPool;

beforeAll(async () => {
  sandbox = await startSandboxSqlServer({
    logins: [DBA],
    databases: ['Sales', 'Strict'],
    caseSensitiveDatabases: ['Strict'],
  });
  pool = await sandboxPool(sandbox, { max: 1 });
  strict = await sandboxPool(sandbox, { database: 'Strict', max: 1 });
});
afterAll(async () => {
  await pool?.close();
  await strict?.close();
  await sandbox?.close();
});

const rows = async (p: sql.ConnectionPool, table: string) =>
  (await p.request().query<{ v: string }>(`SELECT v FROM ${table}`)).recordset.map((r) => r.v);

describe('names with dots', () => {
  it('[a.b].[c] and [a].[b.c] are two tables', async () => {
    await pool.request().batch(`CREATE SCHEMA [a.b]; CREATE SCHEMA [a];
      CREATE TABLE [a.b].[c] (v NVARCHAR(10)); CREATE TABLE [a].[b.c] (v NVARCHAR(10));
      INSERT INTO [a.b].[c] VALUES (N'first'); INSERT INTO [a].[b.c] VALUES (N'second');`);
    expect(await rows(pool, '[a.b].[c]')).toEqual(['first']);
    expect(await rows(pool, '[a].[b.c]')).toEqual(['second']);
    const ids = await pool
      .request()
      .query<{ x: number; y: number }>("SELECT OBJECT_ID('[a.b].[c]') AS x, OBJECT_ID('[a].[b.c]') AS y");
    expect(ids.recordset[0]?.x).not.toBe(ids.recordset[0]?.y);
  });
});

describe('names that differ only in case', () => {
  it('are one table under the default collation', async () => {
    await pool.request().batch('CREATE TABLE dbo.T_A (v NVARCHAR(10))');
    const refused = await pool
      .request()
      .batch('CREATE TABLE dbo.t_a (v NVARCHAR(10))')
      .then(
        () => undefined,
        (e: unknown) => e as sql.RequestError,
      );
    expect(refused?.number).toBe(2714);
  });

  it('are two tables under a case-sensitive collation, each with its own rows', async () => {
    await strict.request()
      .batch(`CREATE TABLE dbo.T_A (v NVARCHAR(10)); CREATE TABLE dbo.t_a (v NVARCHAR(10));
      INSERT INTO dbo.T_A VALUES (N'upper'); INSERT INTO dbo.t_a VALUES (N'lower');`);
    expect(await rows(strict, 'dbo.T_A')).toEqual(['upper']);
    expect(await rows(strict, 'dbo.t_a')).toEqual(['lower']);
    const names = await strict
      .request()
      .query<{ name: string }>("SELECT name FROM sys.tables WHERE name IN ('T_A', 't_a') ORDER BY name");
    expect(names.recordset).toHaveLength(2);
  });
});
