// Tables in the simulated SQL Server, through the real `mssql` package: T-SQL DDL and DML, column
// types as SQL Server describes them, identity, and errors with SQL Server's numbers.
import sql from 'mssql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxSqlServer, type SandboxSqlServer } from '..';
import { DBA, sandboxPool } from '../../../test/helpers/sandbox';

let sandbox: SandboxSqlServer;
let pool: sql.ConnectionPool;

beforeAll(async () => {
  sandbox = await startSandboxSqlServer({
    logins: [DBA],
    databases: ['Sales'],
  });
  pool = await sandboxPool(sandbox, { max: 2 });
  await pool.request().batch(`
    CREATE SCHEMA [sales];
    CREATE TABLE [sales].[Orders] (
      [OrderId] INT IDENTITY(100, 10) NOT NULL,
      [Customer] NVARCHAR(60) NOT NULL,
      [Amount] DECIMAL(38, 10) NULL,
      [PlacedAt] DATETIME2(7) NOT NULL,
      [Paid] BIT NOT NULL DEFAULT 0,
      [Ref] UNIQUEIDENTIFIER NULL,
      CONSTRAINT [PK_Orders] PRIMARY KEY CLUSTERED ([OrderId])
    );
    CREATE TABLE dbo.Notes (Id INT PRIMARY KEY, Body VARCHAR(MAX), Blob VARBINARY(MAX));
  `);
});
afterAll(async () => {
  await pool?.close();
  await sandbox?.close();
});

const error = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as sql.RequestError,
  );

describe('tables', () => {
  it('inserts with parameters, fills the identity from its seed and step, and reads back exact values', async () => {
    const insert = (customer: string, amount: string | null, placed: Date) =>
      pool
        .request()
        .input('c', sql.NVarChar(60), customer)
        .input('a', sql.Decimal(38, 10), amount)
        .input('t', sql.DateTime2(7), placed)
        .query('INSERT INTO sales.Orders (Customer, Amount, PlacedAt) VALUES (@c, @a, @t)');
    const first = await insert('Müller GmbH', '1234.5000000001', new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6)));
    expect(first.rowsAffected).toEqual([1]);
    await insert('Ødegaard AS', null, new Date(Date.UTC(2026, 0, 3)));
    const rows = (
      await pool
        .request()
        .query('SELECT OrderId, Customer, Amount, PlacedAt, Paid FROM [sales].[Orders] ORDER BY OrderId')
    ).recordset;
    expect(rows.map((r) => r.OrderId)).toEqual([100, 110]);
    expect(rows[0]).toMatchObject({ Customer: 'Müller GmbH', Paid: false });
    expect(rows[0].PlacedAt.toISOString()).toBe('2026-01-02T03:04:05.006Z');
    expect(rows[1].Amount).toBeNull();
  });

  it('describes each column with its declared T-SQL type', async () => {
    const answer = await pool.request().query('SELECT TOP 1 * FROM sales.Orders');
    const c = answer.recordset.columns;
    expect(c.OrderId?.type).toBe(sql.Int);
    expect(c.Customer?.type).toBe(sql.NVarChar);
    expect(c.Amount).toMatchObject({ precision: 38, scale: 10 });
    expect(c.Amount?.type).toBe(sql.Decimal);
    expect(c.PlacedAt).toMatchObject({ scale: 7 });
    expect(c.PlacedAt?.type).toBe(sql.DateTime2);
    expect(c.Paid?.type).toBe(sql.Bit);
    expect(c.Ref?.type).toBe(sql.UniqueIdentifier);
  });

  it('compares and sorts decimals as numbers, and answers them at their scale', async () => {
    await pool
      .request()
      .query(
        "INSERT INTO sales.Orders (Customer, Amount, PlacedAt) VALUES (N'Nine', 9, '2026-01-05'), (N'Ten', 10.25, '2026-01-06')",
      );
    const answer = await pool
      .request()
      .query('SELECT Customer, Amount FROM sales.Orders WHERE Amount > 9 ORDER BY Amount DESC');
    expect(answer.recordset.map((r) => [r.Customer, r.Amount])).toEqual([
      ['Müller GmbH', 1234.5000000001],
      ['Ten', 10.25],
    ]);
    await pool.request().query("DELETE FROM sales.Orders WHERE Customer IN (N'Nine', N'Ten')");
  });

  it('answers a malformed RPC stream with error 8016 and keeps the connection', async () => {
    // tedious turns a decimal parameter into a double: 20 integer digits overflow its 64-bit write.
    const e = await error(
      pool.request().input('a', sql.Decimal(38, 10), '12345678901234567890.5').query('SELECT @a AS a'),
    );
    expect(e?.number).toBe(8016);
    expect((await pool.request().query('SELECT 1 AS one')).recordset[0].one).toBe(1);
  });

  it('counts rows that UPDATE and DELETE touch, and TOP limits a SELECT', async () => {
    const updated = await pool
      .request()
      .input('cust', sql.NVarChar(60), 'Ødegaard AS')
      .query('UPDATE sales.Orders SET Paid = 1 WHERE Customer = @cust');
    expect(updated.rowsAffected).toEqual([1]);
    await pool.request().query("INSERT INTO dbo.Notes (Id, Body) VALUES (1, 'a'), (2, 'b'), (3, 'c')");
    expect(
      (await pool.request().query('SELECT TOP (2) Id FROM Notes ORDER BY Id DESC')).recordset.map(
        (r) => r.Id,
      ),
    ).toEqual([3, 2]);
    const deleted = await pool.request().query('DELETE FROM dbo.Notes WHERE Id > 1');
    expect(deleted.rowsAffected).toEqual([2]);
  });

  it('inserts from a SELECT, giving each row the next identity', async () => {
    await pool
      .request()
      .query("INSERT INTO sales.Orders (Customer, PlacedAt) SELECT Body, '2026-02-01' FROM dbo.Notes");
    const ids = (
      await pool.request().query('SELECT OrderId FROM sales.Orders ORDER BY OrderId')
    ).recordset.map((r) => r.OrderId);
    // 120 and 130 went to the rows the decimal test deleted: identity values are never reused.
    expect(ids).toEqual([100, 110, 140]);
  });

  it('copies rows by INSERT … SELECT as they were, plain columns and converted ones (decimal, bit) alike', async () => {
    const { recordsets } = await pool.request().query(`
      CREATE TABLE #src (Id INT NOT NULL PRIMARY KEY, Name NVARCHAR(20) NULL, Bytes VARBINARY(8) NULL,
        At DATETIME2(3) NULL, Big BIGINT NULL, Amount DECIMAL(9, 2) NULL, Flag BIT NULL);
      INSERT INTO #src VALUES (1, N'Zoë', 0x00FF, '2026-02-01 10:00:00.123', 9007199254740993, 12.50, 1),
        (2, NULL, NULL, NULL, NULL, NULL, NULL), (3, N'', 0x, '0001-01-01', -1, -0.01, 0);
      CREATE TABLE #plain (Id INT NOT NULL, Name NVARCHAR(20) NULL, Bytes VARBINARY(8) NULL,
        At DATETIME2(3) NULL, Big BIGINT NULL);
      INSERT INTO #plain (Id, Name, Bytes, At, Big) SELECT Id, Name, Bytes, At, Big FROM #src;
      CREATE TABLE #all (Id INT NOT NULL, Name NVARCHAR(20) NULL, Bytes VARBINARY(8) NULL,
        At DATETIME2(3) NULL, Big BIGINT NULL, Amount DECIMAL(9, 2) NULL, Flag BIT NULL);
      INSERT INTO #all SELECT * FROM #src;
      SELECT * FROM #src ORDER BY Id; SELECT * FROM #plain ORDER BY Id; SELECT * FROM #all ORDER BY Id;`);
    const [source, plain, all] = recordsets as unknown as Record<string, unknown>[][];
    expect(all).toEqual(source);
    expect(plain).toEqual(source?.map(({ Id, Name, Bytes, At, Big }) => ({ Id, Name, Bytes, At, Big })));
    expect(source?.[0]).toMatchObject({ Name: 'Zoë', Big: '9007199254740993', Amount: 12.5, Flag: true });
  });

  it('reads an INSERT whose SELECT, or a UNION whose next SELECT, starts on a line of its own as one statement', async () => {
    // One batch: a temporary table is its session's, and the pool may hand out another connection.
    const { recordset } = await pool.request().query<{ Id: number; Label: string }>(`
      CREATE TABLE #lines (Id INT NOT NULL, Label NVARCHAR(10) NOT NULL);
      INSERT INTO #lines (Id, Label)
        SELECT 1, N'one'
        UNION ALL
        SELECT 2, N'two';
      INSERT INTO #lines
      VALUES (3, N'three');
      SELECT Id, Label FROM #lines ORDER BY Id;
      DROP TABLE #lines`);
    expect(recordset).toEqual([
      { Id: 1, Label: 'one' },
      { Id: 2, Label: 'two' },
      { Id: 3, Label: 'three' },
    ]);
  });

  it('hands out object ids that stay ints, distinct, however many tables there are', async () => {
    await pool
      .request()
      .batch(
        Array.from({ length: 150 }, (_, i) => `CREATE TABLE dbo.Many${i} (Id INT PRIMARY KEY);`).join('\n'),
      );
    const { recordset } = await pool
      .request()
      .query<{ object_id: number }>("SELECT object_id FROM sys.objects WHERE name LIKE 'Many%'");
    expect(recordset).toHaveLength(150);
    expect(new Set(recordset.map((r) => r.object_id)).size).toBe(150);
    expect(recordset.every((r) => r.object_id > 0 && r.object_id <= 2_147_483_647)).toBe(true);
  });

  it('round-trips (max) text and binary through a table', async () => {
    const body = 'x'.repeat(50_000);
    const blob = Buffer.alloc(40_000, 9);
    await pool
      .request()
      .input('b', sql.VarChar(sql.MAX), body)
      .input('y', sql.VarBinary(sql.MAX), blob)
      .query('INSERT INTO dbo.Notes (Id, Body, Blob) VALUES (9, @b, @y)');
    const row = (await pool.request().query('SELECT Body, Blob FROM dbo.Notes WHERE Id = 9')).recordset[0];
    expect(row.Body).toBe(body);
    expect(Buffer.compare(row.Blob, blob)).toBe(0);
  });
});

describe('errors with SQL Server numbers', () => {
  it.each([
    ['SELECT * FROM dbo.Nope', 208, "Invalid object name 'dbo.Nope'."],
    ['SELECT Nope FROM dbo.Notes', 207, "Invalid column name 'Nope'."],
    [
      "INSERT INTO sales.Orders (OrderId, Customer, PlacedAt) VALUES (1, N'x', '2026-01-01')",
      544,
      "Cannot insert explicit value for identity column in table 'Orders' when IDENTITY_INSERT is set to OFF.",
    ],
    ["INSERT INTO dbo.Notes (Id, Body) VALUES (1, 'dup')", 2627, undefined],
    ["INSERT INTO sales.Orders (Customer) VALUES (N'no date')", 515, undefined],
    ['CREATE TABLE dbo.Notes (Id INT)', 2714, "There is already an object named 'Notes' in the database."],
    [
      'CREATE TABLE dbo.T (Id MONEYBAGS)',
      2715,
      'Column, parameter, or variable #1: Cannot find data type MONEYBAGS.',
    ],
    [
      'CREATE TABLE nowhere.T (Id INT)',
      2760,
      'The specified schema name "nowhere" either does not exist or you do not have permission to use it.',
    ],
    ["SELECT 'unclosed", 105, undefined],
  ] as const)('%s → %i', async (statement, number, message) => {
    const e = await error(pool.request().query(statement));
    expect(e?.number).toBe(number);
    if (message) expect(e?.message).toBe(message);
  });

  it('names the column in a NOT NULL violation and the table in a key violation', async () => {
    const nulls = await error(
      pool.request().query("INSERT INTO sales.Orders (Customer) VALUES (N'no date')"),
    );
    expect(nulls?.message).toBe(
      "Cannot insert the value NULL into column 'PlacedAt', table 'Sales.sales.Orders'; column does not allow nulls. INSERT fails.",
    );
    const dup = await error(pool.request().query("INSERT INTO dbo.Notes (Id, Body) VALUES (1, 'dup')"));
    expect(dup?.message).toContain("Cannot insert duplicate key in object 'dbo.Notes'.");
  });
});

describe('local temporary tables (#name)', () => {
  async function session(): Promise<sql.ConnectionPool> {
    return sandboxPool(sandbox, { max: 1 });
  }

  it('belong to their session: two sessions use the same name without colliding, and keep column types', async () => {
    const [a, b] = await Promise.all([session(), session()]);
    try {
      await a.request().batch('CREATE TABLE #cdc_keys (Id INT NOT NULL PRIMARY KEY, Ver BIGINT NOT NULL)');
      await b.request().batch('CREATE TABLE #cdc_keys (Id INT NOT NULL PRIMARY KEY, Ver BIGINT NOT NULL)');
      await a.request().query('INSERT INTO #cdc_keys (Id, Ver) VALUES (1, 10), (2, 11)');
      await b.request().query('INSERT INTO #cdc_keys (Id, Ver) VALUES (7, 70)');
      const fromA = await a.request().query('SELECT k.Id, k.Ver FROM #cdc_keys k ORDER BY k.Id');
      expect(fromA.recordset).toEqual([
        { Id: 1, Ver: '10' },
        { Id: 2, Ver: '11' },
      ]);
      expect(fromA.recordset.columns.Ver?.type).toBe(sql.BigInt);
      expect((await b.request().query('SELECT Id FROM #cdc_keys')).recordset).toEqual([{ Id: 7 }]);
      // Temporary tables live in tempdb, not in this database's catalog.
      expect(
        (await a.request().query("SELECT COUNT(*) AS n FROM sys.tables WHERE name = '#cdc_keys'"))
          .recordset[0].n,
      ).toBe(0);
      await a.request().query('DROP TABLE #cdc_keys');
      const gone = (await a
        .request()
        .query('SELECT * FROM #cdc_keys')
        .catch((e: unknown) => e)) as sql.RequestError;
      expect(gone.number).toBe(208);
      expect((await b.request().query('SELECT COUNT(*) AS n FROM #cdc_keys')).recordset[0].n).toBe(1);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('join to real tables, as a reader joins a batch of changed keys to the rows', async () => {
    const p = await session();
    try {
      await p
        .request()
        .batch('CREATE TABLE #ids (Id INT NOT NULL PRIMARY KEY); INSERT INTO #ids VALUES (100), (110);');
      const rows = await p
        .request()
        .query(
          'SELECT o.OrderId, o.Customer FROM #ids i JOIN sales.Orders o ON o.OrderId = i.Id ORDER BY o.OrderId',
        );
      expect(rows.recordset.map((r) => r.OrderId)).toEqual([100, 110]);
    } finally {
      await p.close();
    }
  });
});

describe('SELECT … INTO', () => {
  it('creates a table with the selected columns and their types, holding the rows', async () => {
    await pool.request().batch(`
      CREATE TABLE dbo.Prices (Sku VARCHAR(12) NOT NULL PRIMARY KEY, Price DECIMAL(9, 2) NOT NULL, Seen DATE NULL);
      INSERT INTO dbo.Prices VALUES ('A-1', 9.99, '2026-01-02'), ('B-2', 120.50, NULL), ('C-3', 7.00, '2026-03-04');`);
    const made = await pool
      .request()
      .query('SELECT Sku, Price AS Amount, Seen INTO dbo.PricesCopy FROM dbo.Prices WHERE Price < 100');
    expect(made.rowsAffected).toEqual([2]);
    const copy = await pool.request().query('SELECT Sku, Amount, Seen FROM dbo.PricesCopy ORDER BY Sku');
    expect(copy.recordset.map((r) => [r.Sku, r.Amount])).toEqual([
      ['A-1', 9.99],
      ['C-3', 7],
    ]);
    expect(copy.recordset.columns.Amount?.type).toBe(sql.Decimal);
    expect(copy.recordset.columns.Seen?.type).toBe(sql.Date);
    const described = await pool
      .request()
      .query(
        "SELECT c.name, c.is_nullable FROM sys.columns c WHERE c.object_id = OBJECT_ID('dbo.PricesCopy') ORDER BY c.column_id",
      );
    expect(described.recordset).toEqual([
      { name: 'Sku', is_nullable: true },
      { name: 'Amount', is_nullable: true },
      { name: 'Seen', is_nullable: true },
    ]);
  });

  it('into a #temp table of the session; a name already taken gives 2714', async () => {
    const p = await sandboxPool(sandbox, { max: 1 });
    try {
      await p.request().query('SELECT Sku INTO #skus FROM dbo.Prices');
      expect((await p.request().query('SELECT COUNT(*) AS n FROM #skus')).recordset[0].n).toBe(3);
      const taken = await error(p.request().query('SELECT Sku INTO dbo.Prices FROM dbo.Prices'));
      expect(taken).toMatchObject({
        number: 2714,
        message: "There is already an object named 'Prices' in the database.",
      });
    } finally {
      await p.close();
    }
  });
});
