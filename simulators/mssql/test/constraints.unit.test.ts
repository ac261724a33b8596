// Constraints in the simulated SQL Server, through the real `mssql` driver: column and table CHECK,
// column UNIQUE, and ALTER TABLE … ADD/DROP CONSTRAINT for CHECK, UNIQUE and PRIMARY KEY, with SQL
// Server's errors (547, 2627, 1505, 1779, 8111, 3728); and the words of unknown functions (195) and
// procedures (2812).
import { describe, expect, it } from 'vitest';
import { refused, sandboxSession } from '../../../test/helpers/sandbox';

const count = async (table: string) =>
  (await session.pool.request().query<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`)).recordset[0]?.n;

const session = sandboxSession(`ALTER DATABASE Sales SET CHANGE_TRACKING = ON (CHANGE_RETENTION = 2 DAYS);
    CREATE TABLE dbo.Items (Id INT PRIMARY KEY, Code NVARCHAR(10) NOT NULL UNIQUE,
      Qty INT NULL CONSTRAINT CK_Items_Qty CHECK (Qty >= 0), Price DECIMAL(9,2) NULL CHECK ([Price] > 0),
      CONSTRAINT CK_Items_Code CHECK (LEN(Code) > 1));
    INSERT INTO dbo.Items VALUES (1, N'ab', 1, 2.50);`);
const { run } = session;

describe('constraints written with the table', () => {
  it('a CHECK refuses a row with 547 naming the constraint, and nothing is written', async () => {
    const e = await refused(run("INSERT INTO dbo.Items VALUES (2, N'cd', -1, 1)"));
    expect(e?.number).toBe(547);
    expect(e?.message).toContain('The INSERT statement conflicted with the CHECK constraint "CK_Items_Qty"');
    expect((await refused(run("INSERT INTO dbo.Items VALUES (3, N'x', 1, 1)")))?.message).toContain(
      'CK_Items_Code',
    );
    const unnamed = await refused(run('UPDATE dbo.Items SET Price = 0 WHERE Id = 1'));
    expect(unnamed?.number).toBe(547);
    expect(unnamed?.message).toMatch(
      /^The UPDATE statement conflicted with the CHECK constraint "CK__Items__Price__[0-9A-F]{8}"/,
    );
    expect(await count('dbo.Items')).toBe(1);
  });

  it('a column UNIQUE refuses a duplicate with 2627 and is a unique constraint in sys.key_constraints', async () => {
    expect((await refused(run("INSERT INTO dbo.Items VALUES (4, N'ab', 1, 1)")))?.number).toBe(2627);
    const keys = await session.pool
      .request()
      .query<{ type: string }>(
        "SELECT type FROM sys.key_constraints WHERE parent_object_id = OBJECT_ID('dbo.Items') ORDER BY type",
      );
    expect(keys.recordset.map((k) => k.type)).toEqual(['PK', 'UQ']);
  });
});

describe('ALTER TABLE … ADD / DROP CONSTRAINT', () => {
  it('ADD CHECK checks the rows there (547) and then every write; DROP CONSTRAINT lets them in again', async () => {
    const e = await refused(run('ALTER TABLE dbo.Items ADD CONSTRAINT CK_Items_Big CHECK (Qty > 5)'));
    expect(e?.number).toBe(547);
    expect(e?.message).toContain(
      'The ALTER TABLE statement conflicted with the CHECK constraint "CK_Items_Big"',
    );
    await run('ALTER TABLE dbo.Items ADD CONSTRAINT CK_Items_Small CHECK (Qty < 100)');
    expect((await refused(run("INSERT INTO dbo.Items VALUES (5, N'ef', 100, 1)")))?.number).toBe(547);
    await run('ALTER TABLE dbo.Items DROP CONSTRAINT CK_Items_Small');
    await run("INSERT INTO dbo.Items VALUES (5, N'ef', 100, 1)");
    expect(await count('dbo.Items')).toBe(2);
    expect((await refused(run('ALTER TABLE dbo.Items DROP CONSTRAINT CK_Nope')))?.number).toBe(3728);
    await run('ALTER TABLE dbo.Items DROP CONSTRAINT IF EXISTS CK_Nope');
  });

  it('ADD PRIMARY KEY to a heap: 8111 on a nullable column, 1505 on duplicates, then change tracking can be enabled', async () => {
    await run(`CREATE TABLE dbo.Heap (Id INT NOT NULL, Note NVARCHAR(10) NULL);
      INSERT INTO dbo.Heap VALUES (1, N'a'), (1, N'b');`);
    expect((await refused(run('ALTER TABLE dbo.Heap ENABLE CHANGE_TRACKING')))?.number).toBe(4997);
    expect(
      (await refused(run('ALTER TABLE dbo.Heap ADD CONSTRAINT PK_Heap PRIMARY KEY (Note)')))?.number,
    ).toBe(8111);
    expect((await refused(run('ALTER TABLE dbo.Heap ADD CONSTRAINT PK_Heap PRIMARY KEY (Id)')))?.number).toBe(
      1505,
    );
    await run("UPDATE dbo.Heap SET Id = 2 WHERE Note = N'b'");
    await run('ALTER TABLE dbo.Heap ADD CONSTRAINT PK_Heap PRIMARY KEY (Id)');
    expect((await refused(run('ALTER TABLE dbo.Heap ADD CONSTRAINT PK_Two PRIMARY KEY (Id)')))?.number).toBe(
      1779,
    );
    expect((await refused(run("INSERT INTO dbo.Heap VALUES (2, N'c')")))?.number).toBe(2627);
    await run('ALTER TABLE dbo.Heap ENABLE CHANGE_TRACKING');
    // Change Tracking needs the key: it cannot be dropped while the table is tracked.
    expect((await refused(run('ALTER TABLE dbo.Heap DROP CONSTRAINT PK_Heap')))?.message).toContain(
      'change tracking',
    );
    await run('ALTER TABLE dbo.Heap DISABLE CHANGE_TRACKING; ALTER TABLE dbo.Heap DROP CONSTRAINT PK_Heap;');
    await run("INSERT INTO dbo.Heap VALUES (2, N'c')");
    expect(await count('dbo.Heap')).toBe(3);
  });

  it('DROP CONSTRAINT of a key written with the table, then ADD UNIQUE again', async () => {
    const uq = await session.pool
      .request()
      .query<{ name: string }>(
        "SELECT name FROM sys.key_constraints WHERE parent_object_id = OBJECT_ID('dbo.Items') AND type = 'UQ'",
      );
    const name = uq.recordset[0]?.name ?? '';
    await run(`ALTER TABLE dbo.Items DROP CONSTRAINT [${name}]`);
    await run("INSERT INTO dbo.Items VALUES (6, N'ab', 1, 1)");
    expect(
      (await refused(run('ALTER TABLE dbo.Items ADD CONSTRAINT UQ_Items_Code UNIQUE (Code)')))?.number,
    ).toBe(1505);
    await run(
      'DELETE FROM dbo.Items WHERE Id = 6; ALTER TABLE dbo.Items ADD CONSTRAINT UQ_Items_Code UNIQUE (Code);',
    );
    expect((await refused(run("INSERT INTO dbo.Items VALUES (6, N'ab', 1, 1)")))?.number).toBe(2627);
    // The CHECKs written with the table survived the table being made again.
    expect((await refused(run("INSERT INTO dbo.Items VALUES (7, N'gh', -5, 1)")))?.number).toBe(547);
  });
});

describe('unknown names, in SQL Server’s words', () => {
  it('an unknown function is 195, an unknown procedure 2812 named as written', async () => {
    expect(
      await refused(session.pool.request().query('SELECT NO_SUCH_FN(Qty) FROM dbo.Items')),
    ).toMatchObject({
      number: 195,
      message: "'NO_SUCH_FN' is not a recognized built-in function name.",
    });
    expect(await refused(run('EXEC dbo.no_such_proc'))).toMatchObject({
      number: 2812,
      message: "Could not find stored procedure 'dbo.no_such_proc'.",
    });
  });
});

describe('arithmetic in table statements', () => {
  it('integers divide as integers, a float as a float, and a zero divisor fails with 8134 as SQL Server does', async () => {
    await run("INSERT INTO dbo.Items VALUES (40, N'ar', 7, 3.50)");
    const r = await session.pool
      .request()
      .query<{ Half: number; Rest: number; Mixed: number; Scaled: number }>(
        'SELECT Qty / 2 AS Half, Qty % 4 AS Rest, Qty / 2.0 AS Mixed, Qty * 10 / 4 AS Scaled FROM dbo.Items WHERE Id = 40',
      );
    expect(r.recordset[0]).toEqual({ Half: 3, Rest: 3, Mixed: 3.5, Scaled: 17 });
    const zero = await refused(run('SELECT Qty / (Qty - 7) FROM dbo.Items WHERE Id = 40'));
    expect(zero?.number).toBe(8134);
    expect(zero?.message).toBe('Divide by zero error encountered.');
    expect((await refused(run('UPDATE dbo.Items SET Qty = Qty % 0 WHERE Id = 40')))?.number).toBe(8134);
    expect(await count('dbo.Items WHERE Id = 40 AND Qty = 7')).toBe(1);
  });
});

describe('DEFAULT constraints by name, as SSMS scripts them', () => {
  it('ADD CONSTRAINT … DEFAULT … FOR fills later inserts; DROP CONSTRAINT removes it; the rows stay', async () => {
    await run(`CREATE TABLE dbo.Flags (Id INT NOT NULL, Active BIT NOT NULL, Label NVARCHAR(20) NULL CONSTRAINT DF_Flags_Label DEFAULT (N'none'),
        CONSTRAINT PK_Flags PRIMARY KEY CLUSTERED ([Id] ASC));
      INSERT INTO dbo.Flags (Id, Active) VALUES (1, 1);
      ALTER TABLE [dbo].[Flags] ADD CONSTRAINT [DF_Flags_Active] DEFAULT ((0)) FOR [Active];
      INSERT INTO dbo.Flags (Id) VALUES (2);`);
    const rows = await session.pool
      .request()
      .query<{ Id: number; Active: boolean; Label: string }>(
        'SELECT Id, Active, Label FROM dbo.Flags ORDER BY Id',
      );
    expect(rows.recordset).toEqual([
      { Id: 1, Active: true, Label: 'none' },
      { Id: 2, Active: false, Label: 'none' },
    ]);
    const again = await refused(run('ALTER TABLE dbo.Flags ADD CONSTRAINT DF_Other DEFAULT 1 FOR Active'));
    expect(again?.number).toBe(1781);
    expect((await refused(run('ALTER TABLE dbo.Flags ADD DEFAULT 1 FOR Nothing')))?.number).toBe(1752);
    expect(
      (await refused(run('ALTER TABLE dbo.Flags ADD CONSTRAINT DF_Flags_Label DEFAULT 1 FOR Id')))?.number,
    ).toBe(2714);
    await run(
      'ALTER TABLE dbo.Flags DROP CONSTRAINT DF_Flags_Active; ALTER TABLE dbo.Flags DROP CONSTRAINT DF_Flags_Label;',
    );
    const noDefault = await refused(run('INSERT INTO dbo.Flags (Id) VALUES (3)'));
    expect(noDefault?.number).toBe(515);
    await run('INSERT INTO dbo.Flags (Id, Active) VALUES (3, 1)');
    expect(await count('dbo.Flags WHERE Label IS NULL')).toBe(1);
    expect(await count('dbo.Flags')).toBe(3);
    // A default named in ALTER TABLE … ADD column keeps its name too.
    await run("ALTER TABLE dbo.Flags ADD Region CHAR(2) NOT NULL CONSTRAINT DF_Flags_Region DEFAULT 'CH'");
    expect(await count("dbo.Flags WHERE Region = 'CH'")).toBe(3);
    await run('ALTER TABLE dbo.Flags DROP CONSTRAINT DF_Flags_Region');
    expect((await refused(run('INSERT INTO dbo.Flags (Id, Active) VALUES (4, 1)')))?.number).toBe(515);
  });
});
