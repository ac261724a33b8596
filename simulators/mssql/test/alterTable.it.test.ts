// ALTER TABLE … ADD / DROP COLUMN and sp_rename in the simulated SQL Server, through the real `mssql`
// driver, with what Change Tracking records for each ("Work with change tracking"): no row change for
// the DDL itself, updates of an added column in SYS_CHANGE_COLUMNS, and tracking that follows a
// renamed table (same object id). Errors carry SQL Server's numbers.
import sql from 'mssql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxSqlServer, type SandboxSqlServer } from '..';
import { DBA, sandboxPool } from '../../../test/helpers/sandbox';

let sandbox: SandboxSqlServer;
let pool: sql.ConnectionPool;
const run = (text: string) => pool.request().batch(text);
const refused = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as sql.RequestError,
  );
const version = async () =>
  Number(
    (await pool.request().query<{ v: string }>('SELECT CHANGE_TRACKING_CURRENT_VERSION() AS v')).recordset[0]
      ?.v,
  );

beforeAll(async () => {
  sandbox = await startSandboxSqlServer({ logins: [DBA], databases: ['Sales'] });
  pool = await sandboxPool(sandbox, { max: 1 });
  await run(`ALTER DATABASE Sales SET CHANGE_TRACKING = ON (CHANGE_RETENTION = 2 DAYS);
    CREATE TABLE dbo.Items (Id INT PRIMARY KEY, Name NVARCHAR(20) NOT NULL);
    ALTER TABLE dbo.Items ENABLE CHANGE_TRACKING WITH (TRACK_COLUMNS_UPDATED = ON);
    INSERT INTO dbo.Items VALUES (1, N'one'), (2, N'two');`);
});
afterAll(async () => {
  await pool?.close();
  await sandbox?.close();
});

describe('ALTER TABLE and sp_rename', () => {
  it('ADD records no change; the rows there are null unless WITH VALUES; an update of the new column is in the mask', async () => {
    const before = await version();
    await run(`ALTER TABLE dbo.Items ADD Note NVARCHAR(10) NULL DEFAULT N'n/a';
      ALTER TABLE dbo.Items ADD Qty INT NOT NULL DEFAULT 5;
      ALTER TABLE dbo.Items ADD Tag CHAR(2) NULL DEFAULT 'T' WITH VALUES;`);
    expect(await version()).toBe(before);
    const { recordset } = await pool.request().query('SELECT Id, Note, Qty, Tag FROM dbo.Items ORDER BY Id');
    expect(recordset).toEqual([
      { Id: 1, Note: null, Qty: 5, Tag: 'T ' },
      { Id: 2, Note: null, Qty: 5, Tag: 'T ' },
    ]);
    await run("UPDATE dbo.Items SET Note = N'set' WHERE Id = 1");
    const changed = await pool
      .request()
      .input('v', sql.BigInt, before)
      .query<{ note: number; name: number }>(
        `SELECT CHANGE_TRACKING_IS_COLUMN_IN_MASK(COLUMNPROPERTY(OBJECT_ID('dbo.Items'), 'Note', 'ColumnId'), SYS_CHANGE_COLUMNS) AS note,
          CHANGE_TRACKING_IS_COLUMN_IN_MASK(COLUMNPROPERTY(OBJECT_ID('dbo.Items'), 'Name', 'ColumnId'), SYS_CHANGE_COLUMNS) AS name
        FROM CHANGETABLE(CHANGES dbo.Items, @v) AS ct`,
      );
    expect(changed.recordset).toEqual([{ note: true, name: false }]);
  });

  it('DROP COLUMN keeps the other columns’ ids and never gives the dropped id again; modify_date moves', async () => {
    const modified = async () =>
      (
        await pool
          .request()
          .query<{ m: Date }>("SELECT modify_date AS m FROM sys.tables WHERE name = 'Items'")
      ).recordset[0]?.m;
    const was = await modified();
    await new Promise((r) => setTimeout(r, 5));
    await run('ALTER TABLE dbo.Items DROP COLUMN Tag; ALTER TABLE dbo.Items ADD Later INT NULL;');
    expect((await modified())?.getTime()).toBeGreaterThan(was?.getTime() ?? 0);
    const { recordset } = await pool
      .request()
      .query<{ name: string; column_id: number }>(
        "SELECT name, column_id FROM sys.columns WHERE object_id = OBJECT_ID('dbo.Items') ORDER BY column_id",
      );
    expect(recordset).toEqual([
      { name: 'Id', column_id: 1 },
      { name: 'Name', column_id: 2 },
      { name: 'Note', column_id: 3 },
      { name: 'Qty', column_id: 4 },
      { name: 'Later', column_id: 6 },
    ]);
  });

  it('ALTER COLUMN converts every value as CAST would, keeps tracking, and refuses what would lose data', async () => {
    await run(`CREATE TABLE dbo.Codes (Id INT PRIMARY KEY, Code VARCHAR(10) NULL, Label NVARCHAR(5) NOT NULL);
      ALTER TABLE dbo.Codes ENABLE CHANGE_TRACKING;
      INSERT INTO dbo.Codes VALUES (1, '12', N'abc'), (2, 'x', N'defgh');`);
    const before = await version();
    await run('ALTER TABLE dbo.Codes ALTER COLUMN Label NVARCHAR(50) NOT NULL');
    expect(await version()).toBe(before);
    const columns = await pool
      .request()
      .query<{ name: string; max_length: number }>(
        "SELECT name, max_length FROM sys.columns WHERE object_id = OBJECT_ID('dbo.Codes') AND name = 'Label'",
      );
    expect(columns.recordset).toEqual([{ name: 'Label', max_length: 100 }]);
    expect((await refused(run('ALTER TABLE dbo.Codes ALTER COLUMN Code INT NULL')))?.number).toBe(245);
    expect(
      (await refused(run('ALTER TABLE dbo.Codes ALTER COLUMN Label NVARCHAR(3) NOT NULL')))?.number,
    ).toBe(2628);
    expect((await refused(run('ALTER TABLE dbo.Codes ALTER COLUMN Id BIGINT NOT NULL')))?.number).toBe(4922);
    expect((await refused(run('ALTER TABLE dbo.Codes ALTER COLUMN Nope INT')))?.number).toBe(4924);
    await run(
      "UPDATE dbo.Codes SET Code = '7' WHERE Id = 2; ALTER TABLE dbo.Codes ALTER COLUMN Code BIGINT NULL;",
    );
    const { recordset } = await pool.request().query('SELECT Id, Code, Label FROM dbo.Codes ORDER BY Id');
    expect(recordset).toEqual([
      { Id: 1, Code: '12', Label: 'abc' },
      { Id: 2, Code: '7', Label: 'defgh' },
    ]);
    await run("UPDATE dbo.Codes SET Label = N'after' WHERE Id = 1");
    const changed = await pool
      .request()
      .input('v', sql.BigInt, before)
      .query<{ Id: number }>('SELECT Id FROM CHANGETABLE(CHANGES dbo.Codes, @v) AS ct ORDER BY Id');
    expect(changed.recordset).toEqual([{ Id: 1 }, { Id: 2 }]);
  });

  it('refuses what SQL Server refuses, with its numbers', async () => {
    expect((await refused(run('ALTER TABLE dbo.Items ADD Name INT NULL')))?.number).toBe(2705);
    expect((await refused(run('ALTER TABLE dbo.Items ADD Must INT NOT NULL')))?.number).toBe(4901);
    expect((await refused(run('ALTER TABLE dbo.Items DROP COLUMN Nope')))?.number).toBe(4924);
    expect((await refused(run('ALTER TABLE dbo.Items DROP COLUMN Id')))?.number).toBe(4922);
    expect((await refused(run("EXEC sp_rename 'dbo.Items.Nope', 'X', 'COLUMN'")))?.number).toBe(15248);
    expect((await refused(run("EXEC sp_rename 'dbo.Nothing', 'X'")))?.number).toBe(15225);
    expect((await refused(run("EXEC sp_rename 'dbo.Items.Note', 'Qty', 'COLUMN'")))?.number).toBe(15335);
    expect((await refused(run("EXEC sp_no_such_procedure 'x'")))?.number).toBe(2812);
  });

  it('sp_rename renames a column and a table, by batch and by RPC, with its caution; tracking goes on', async () => {
    const before = await version();
    const infos: string[] = [];
    const request = pool.request();
    request.on('info', (m: { message: string }) => infos.push(m.message));
    await request.batch("EXEC sp_rename 'dbo.Items.Note', 'Remark', 'COLUMN'");
    expect(infos).toEqual([
      'Caution: Changing any part of an object name could break scripts and stored procedures.',
    ]);
    const objectId = (await pool.request().query<{ id: number }>("SELECT OBJECT_ID('dbo.Items') AS id"))
      .recordset[0]?.id;
    const rpc = await pool
      .request()
      .input('objname', 'dbo.Items')
      .input('newname', 'Goods')
      .execute('sp_rename');
    expect(rpc.returnValue).toBe(0);
    const { recordset } = await pool
      .request()
      .query<{ id: number; gone: number | null }>(
        "SELECT OBJECT_ID('dbo.Goods') AS id, OBJECT_ID('dbo.Items') AS gone",
      );
    expect(recordset[0]).toEqual({ id: objectId, gone: null });
    await run("UPDATE dbo.Goods SET Remark = N'after' WHERE Id = 2");
    const changes = await pool
      .request()
      .input('v', sql.BigInt, before)
      .query<{ Id: number }>('SELECT Id FROM CHANGETABLE(CHANGES dbo.Goods, @v) AS ct');
    expect(changes.recordset).toEqual([{ Id: 2 }]);
  });
});

describe('declared types on write', () => {
  it('refuses a value its column cannot hold (2628, 220, 8115), stores nothing, and keeps the connection', async () => {
    await run(`CREATE TABLE dbo.Narrow (Id INT PRIMARY KEY, Code VARCHAR(3) NULL, Small TINYINT NULL,
      Amount DECIMAL(5,2) NULL, Raw VARBINARY(2) NULL, Wide NVARCHAR(2) NULL);`);
    const failure = async (statement: string, bind?: (r: sql.Request) => void) => {
      const request = pool.request();
      bind?.(request);
      return request.query(statement).then(
        () => undefined,
        (e: unknown) => e as sql.RequestError,
      );
    };
    const long = await failure("INSERT INTO dbo.Narrow (Id, Code) VALUES (1, 'ABCDEF')");
    expect(long?.number).toBe(2628);
    expect(long?.message).toBe(
      "String or binary data would be truncated in table 'Sales.dbo.Narrow', column 'Code'. Truncated value: 'ABC'.",
    );
    expect((await failure('INSERT INTO dbo.Narrow (Id, Small) VALUES (2, 300)'))?.number).toBe(220);
    expect((await failure('INSERT INTO dbo.Narrow (Id, Amount) VALUES (3, 12345.6)'))?.number).toBe(8115);
    expect(
      (
        await failure('INSERT INTO dbo.Narrow (Id, Raw) VALUES (4, @b)', (r) =>
          r.input('b', sql.VarBinary, Buffer.from([1, 2, 3])),
        )
      )?.number,
    ).toBe(2628);
    // Lengths count UTF-16 units, as SQL Server's nvarchar does: one emoji is two, 'é' one.
    expect((await failure("INSERT INTO dbo.Narrow (Id, Wide) VALUES (6, N'😀😀')"))?.number).toBe(2628);
    await run("INSERT INTO dbo.Narrow (Id, Code, Wide) VALUES (7, 'ééé', N'😀')");
    await run('DELETE FROM dbo.Narrow WHERE Id = 7');
    // The same in a session's temporary table, whose check tests plain values in SQLite first.
    await run('CREATE TABLE #Wide (W NVARCHAR(2) NULL, N INT NULL)');
    expect((await failure("INSERT INTO #Wide (W) VALUES (N'😀😀')"))?.number).toBe(2628);
    expect((await failure('INSERT INTO #Wide (N) VALUES (2147483648)'))?.number).toBe(8115);
    await run("INSERT INTO #Wide VALUES (N'😀', 2147483647)");
    await run("INSERT INTO dbo.Narrow VALUES (5, 'ABC', 255, 999.99, 0x0102, NULL)");
    expect((await failure('UPDATE dbo.Narrow SET Small = Small + 1 WHERE Id = 5'))?.number).toBe(220);
    const { recordset } = await pool.request().query('SELECT Id, Code, Small FROM dbo.Narrow');
    expect(recordset).toEqual([{ Id: 5, Code: 'ABC', Small: 255 }]);
    // After ALTER COLUMN the new length is the rule.
    await run('ALTER TABLE dbo.Narrow ALTER COLUMN Code VARCHAR(10) NULL');
    await run("UPDATE dbo.Narrow SET Code = 'ABCDEFGHIJ' WHERE Id = 5");
    expect((await failure("UPDATE dbo.Narrow SET Code = 'ABCDEFGHIJK' WHERE Id = 5"))?.number).toBe(2628);
  });
});
