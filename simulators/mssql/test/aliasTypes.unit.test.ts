// Alias data types (CREATE TYPE … FROM) in the simulated SQL Server, through the real `mssql` driver,
// and the change-tracking agent's description of their columns: an alias column stores and travels as
// its base type, sys.columns names the alias by user_type_id, and the agent sees the base type.
import { describe, expect, it } from 'vitest';
import { describeTables, unsupportedColumns } from '../../../main/agents/drivers/mssql/shape';
import { refused, sandboxSession } from '../../../test/helpers/sandbox';

const session = sandboxSession(`CREATE TYPE dbo.Name FROM nvarchar(50) NULL;
    CREATE TYPE dbo.Flag FROM bit NOT NULL;
    CREATE TYPE Amount FROM decimal(19,4);
    CREATE TABLE dbo.Accounts (Id INT PRIMARY KEY, Holder dbo.Name, Active Flag, Balance [dbo].[Amount] NULL, Note SYSNAME NULL);
    INSERT INTO dbo.Accounts VALUES (1, N'Zoë 東京', 1, 12.5, N'n');`);
const { run } = session;

describe('alias types', () => {
  it('sys.types lists them from user type 257, sys.columns names them, values travel as the base type', async () => {
    const types = await session.pool.request().query<{
      name: string;
      system_type_id: number;
      user_type_id: number;
      is_user_defined: boolean;
      is_nullable: boolean;
    }>('SELECT name, system_type_id, user_type_id, is_user_defined, is_nullable FROM sys.types WHERE is_user_defined = 1 ORDER BY user_type_id');
    expect(types.recordset).toEqual([
      { name: 'Name', system_type_id: 231, user_type_id: 257, is_user_defined: true, is_nullable: true },
      { name: 'Flag', system_type_id: 104, user_type_id: 258, is_user_defined: true, is_nullable: false },
      { name: 'Amount', system_type_id: 106, user_type_id: 259, is_user_defined: true, is_nullable: true },
    ]);
    const columns = await session.pool
      .request()
      .query<{ name: string; type: string; base: string; is_nullable: boolean }>(
        `SELECT c.name, ty.name AS type, TYPE_NAME(c.system_type_id) AS base, c.is_nullable FROM sys.columns c
        JOIN sys.types ty ON ty.user_type_id = c.user_type_id WHERE c.object_id = OBJECT_ID('dbo.Accounts') ORDER BY c.column_id`,
      );
    expect(columns.recordset.slice(1, 4)).toEqual([
      { name: 'Holder', type: 'Name', base: 'nvarchar', is_nullable: true },
      { name: 'Active', type: 'Flag', base: 'bit', is_nullable: false },
      { name: 'Balance', type: 'Amount', base: 'decimal', is_nullable: true },
    ]);
    const row = await session.pool.request().query('SELECT Holder, Active, Balance FROM dbo.Accounts');
    expect(row.recordset[0]).toEqual({ Holder: 'Zoë 東京', Active: true, Balance: 12.5 });
    // The alias's NOT NULL holds where the column did not say.
    expect((await refused(run('INSERT INTO dbo.Accounts (Id, Active) VALUES (2, NULL)')))?.number).toBe(515);
  });

  it('the agent describes alias columns by their base types, so they replicate as those', async () => {
    const [shape] = await describeTables(session.pool, [{ schema: 'dbo', table: 'Accounts' }]);
    expect(shape?.columns.map((c) => [c.name, c.sourceType, c.nullable])).toEqual([
      ['Id', 'int', false],
      ['Holder', 'nvarchar(50)', true],
      ['Active', 'bit', false],
      ['Balance', 'decimal(19,4)', true],
      ['Note', 'nvarchar(128)', true],
    ]);
    // Not mistaken for CLR user types: nothing to refuse.
    expect(unsupportedColumns(shape as NonNullable<typeof shape>)).toEqual([]);
  });

  it('CREATE TYPE and DROP TYPE answer as SQL Server: 219 taken, 243 no such base, 3732 in use, 218 missing', async () => {
    expect((await refused(run('CREATE TYPE dbo.Name FROM int')))?.number).toBe(219);
    expect((await refused(run('CREATE TYPE dbo.Odd FROM nosuch(3)')))?.number).toBe(243);
    const inUse = await refused(run('DROP TYPE dbo.Name'));
    expect(inUse?.number).toBe(3732);
    expect(inUse?.message).toContain("referenced by object 'Accounts'");
    expect((await refused(run('DROP TYPE dbo.Nothing')))?.number).toBe(218);
    await run('CREATE TYPE dbo.Spare FROM varchar(10); DROP TYPE dbo.Spare; DROP TYPE IF EXISTS dbo.Spare;');
  });
});
