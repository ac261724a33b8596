// The simulated SQL Server remembers the tables a connection looked up from one statement to the next,
// for as long as no row of the database changed. What another connection creates, renames or drops,
// and what a rollback undoes, is seen at the very next statement, as SQL Server shows it.
import type sql from 'mssql';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSandboxSqlServer, type SandboxSqlServer } from '..';
import { DBA, refused, sandboxPool } from '../../../test/helpers/sandbox';

let sandbox: SandboxSqlServer;
let reader: sql.ConnectionPool;
let other: sql.ConnectionPool;

beforeAll(async () => {
  sandbox = await startSandboxSqlServer({ logins: [DBA], databases: ['Sales'] });
  reader = await sandboxPool(sandbox, { max: 1 });
  other = await sandboxPool(sandbox, { max: 1 });
});
afterAll(async () => {
  await reader?.close();
  await other?.close();
  await sandbox?.close();
});

const objectId = async (name: string) =>
  (await reader.request().query<{ id: number | null }>(`SELECT OBJECT_ID(N'${name}') AS id`)).recordset[0]
    ?.id;

it("sees another connection's new, renamed and dropped tables at its next statement", async () => {
  expect(await objectId('dbo.Later')).toBeNull();
  await other.request().batch('CREATE TABLE dbo.Later (Id INT PRIMARY KEY, Note NVARCHAR(10))');
  expect(await objectId('dbo.Later')).toEqual(expect.any(Number));
  await other.request().batch("INSERT INTO dbo.Later VALUES (1, N'one')");
  expect((await reader.request().query('SELECT Note FROM dbo.Later')).recordset).toEqual([{ Note: 'one' }]);

  await other.request().batch("EXEC sp_rename 'dbo.Later', 'Renamed'");
  expect(await objectId('dbo.Later')).toBeNull();
  expect((await reader.request().query('SELECT Note FROM dbo.Renamed')).recordset).toEqual([{ Note: 'one' }]);

  await other.request().batch('ALTER TABLE dbo.Renamed ADD Extra INT NULL');
  expect(Object.keys((await reader.request().query('SELECT * FROM dbo.Renamed')).recordset[0] ?? {})).toEqual(
    ['Id', 'Note', 'Extra'],
  );

  await other.request().batch('DROP TABLE dbo.Renamed');
  expect(await objectId('dbo.Renamed')).toBeNull();
  expect((await refused(reader.request().query('SELECT Note FROM dbo.Renamed')))?.number).toBe(208);
});

it('forgets a table a rollback undid', async () => {
  const tx = await reader.request().batch(`BEGIN TRANSACTION;
    CREATE TABLE dbo.Undone (Id INT PRIMARY KEY);
    SELECT OBJECT_ID(N'dbo.Undone') AS inside;
    ROLLBACK;
    SELECT OBJECT_ID(N'dbo.Undone') AS after;`);
  const sets = tx.recordsets as unknown as { inside?: number | null; after?: number | null }[][];
  expect(sets[0]?.[0]?.inside).toEqual(expect.any(Number));
  expect(sets[1]?.[0]?.after).toBeNull();
  expect(await objectId('dbo.Undone')).toBeNull();
});
