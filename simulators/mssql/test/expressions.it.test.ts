// Expressions in the simulated SQL Server with T-SQL's types and errors, through the real `mssql`
// driver ("CAST and CONVERT (Transact-SQL)", the Database Engine's error pages): each answer's type
// is the one SQL Server gives, and what SQL Server refuses is refused with its number.
import sql from 'mssql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxSqlServer, type SandboxSqlServer } from '..';
import { DBA, sandboxPool } from '../../../test/helpers/sandbox';
import { until } from '../../../test/helpers/until';

let sandbox: SandboxSqlServer;
let pool: sql.ConnectionPool;

beforeAll(async () => {
  sandbox = await startSandboxSqlServer({ logins: [DBA], databases: ['Sales'] });
  pool = await sandboxPool(sandbox, { max: 1 });
});
afterAll(async () => {
  await pool?.close();
  await sandbox?.close();
});

/** The one value of `SELECT <expr> AS v`, with the driver's type for it. */
async function value(expr: string): Promise<{ v: unknown; type: unknown; length?: number }> {
  const { recordset } = await pool.request().query<{ v: unknown }>(`SELECT ${expr} AS v`);
  const column = recordset.columns.v;
  return { v: recordset[0]?.v, type: column?.type, length: column?.length };
}
const refused = (expr: string) =>
  pool
    .request()
    .query(`SELECT ${expr} AS v`)
    .then(
      () => undefined,
      (e: unknown) => (e as sql.RequestError).number,
    );

describe('CAST and CONVERT', () => {
  it('answers with the target type and its value', async () => {
    expect(await value('CAST(8 AS bigint)')).toMatchObject({ v: '8', type: sql.BigInt });
    expect(await value("CAST('2011-12-04 10:04:23' AS datetime)")).toMatchObject({
      v: new Date('2011-12-04T10:04:23.000Z'),
      type: sql.DateTime,
    });
    expect(await value('0x1234')).toMatchObject({ v: Buffer.from([0x12, 0x34]), type: sql.VarBinary });
    expect(await value("CAST(N'häuser' AS varchar(max))")).toMatchObject({ v: 'häuser', type: sql.VarChar });
    expect(await value("CONVERT(int, '12') + 1")).toMatchObject({ v: 13, type: sql.Int });
    expect(await value('(1 + 2) * 3')).toMatchObject({ v: 9 });
    expect(await value('CAST(123456 AS varchar(3))')).toMatchObject({ v: '*' });
    expect(await value("CAST('abcdef' AS varchar(3))")).toMatchObject({ v: 'abc' });
    expect(await value("CAST('6f9619ff-8b86-d011-b42d-00c04fc964ff' AS uniqueidentifier)")).toMatchObject({
      v: '6F9619FF-8B86-D011-B42D-00C04FC964FF',
      type: sql.UniqueIdentifier,
    });
  });

  it('rounds to a decimal’s scale and keeps datetime to 1/300 s; CONVERT styles format dates', async () => {
    expect((await value("CAST(CAST('1.005' AS decimal(9,2)) AS varchar(20))")).v).toBe('1.01');
    expect((await value("CAST(CAST('-1.005' AS decimal(9,2)) AS varchar(20))")).v).toBe('-1.01');
    expect((await value("CONVERT(varchar(30), CAST('2011-12-04 10:04:23.002' AS datetime), 121)")).v).toBe(
      '2011-12-04 10:04:23.003',
    );
    expect(
      (await value("CONVERT(varchar(30), CAST('2011-12-04 10:04:23.1234567' AS datetime2(7)), 126)")).v,
    ).toBe('2011-12-04T10:04:23.1234567');
    expect((await value("CONVERT(varchar(10), CAST('2011-12-04' AS date), 112)")).v).toBe('20111204');
    expect((await value("CONVERT(varchar(30), CAST('2011-12-04 15:04:00' AS datetime))")).v).toBe(
      'Dec  4 2011  3:04PM',
    );
  });

  it('refuses with SQL Server’s numbers', async () => {
    expect(await refused('1/0')).toBe(8134);
    expect(await refused("CAST('x' AS int)")).toBe(245);
    expect(await refused('2147483647 + 1')).toBe(8115);
    expect(await refused('CAST(300 AS tinyint)')).toBe(220);
    expect(await refused("CAST('99999999999' AS int)")).toBe(248);
    expect(await refused("CAST('abc' AS decimal(5,2))")).toBe(8114);
    expect(await refused('CAST(999.995 AS decimal(5,2))')).toBe(8115);
    expect(await refused("CAST('2011-02-30' AS date)")).toBe(241);
    expect(await refused("CAST('1700-01-01' AS datetime)")).toBe(242);
    expect(await refused("CAST('nope' AS uniqueidentifier)")).toBe(8169);
    expect(await refused('CAST(1 AS nosuchtype)')).toBe(243);
    // The connection is still there after each refusal.
    expect((await value('1 + 1')).v).toBe(2);
  });
});

describe('session and server functions', () => {
  it('answers @@SPID per connection, @@OPTIONS, HOST_NAME(), APP_NAME() and SERVERPROPERTY', async () => {
    const other = await sandboxPool(sandbox, { max: 1 });
    try {
      const spid = (p: sql.ConnectionPool) => p.request().query<{ s: number }>('SELECT @@SPID AS s');
      const [mine, theirs] = await Promise.all([spid(pool), spid(other)]);
      expect(mine.recordset[0]?.s).toBeGreaterThan(50);
      expect(theirs.recordset[0]?.s).not.toBe(mine.recordset[0]?.s);
      expect(mine.recordset.columns.s?.type).toBe(sql.SmallInt);
    } finally {
      await other.close();
    }
    const { recordset } = await pool.request().query<Record<string, unknown>>(
      `SELECT @@OPTIONS AS options, APP_NAME() AS app, SERVERPROPERTY('ProductVersion') AS version,
        SERVERPROPERTY('EngineEdition') AS engine, SERVERPROPERTY('NoSuchProperty') AS none`,
    );
    expect(recordset[0]).toEqual({
      options: 5496,
      app: 'node-mssql',
      version: '16.0.1000.6',
      engine: 3,
      none: null,
    });
  });
});

describe('sys.dm_exec_sessions and sys.dm_exec_connections', () => {
  it('list the open sessions, each once, with its login, program and database; a closed one leaves', async () => {
    const other = await sandboxPool(sandbox, { max: 1 });
    const otherSpid =
      (await other.request().query<{ s: number }>('SELECT @@SPID AS s')).recordset[0]?.s ?? -1;
    const mine = await pool.request().query<Record<string, unknown>>(
      `SELECT s.session_id, s.login_name, s.program_name, s.database_id, c.net_transport
        FROM sys.dm_exec_sessions s JOIN sys.dm_exec_connections c ON c.session_id = s.session_id
        WHERE s.session_id = @@SPID`,
    );
    expect(mine.recordset).toEqual([
      {
        session_id: expect.any(Number),
        login_name: DBA.name,
        program_name: 'node-mssql',
        database_id: 1,
        net_transport: 'TCP',
      },
    ]);
    const listed = async () =>
      (
        await pool.request().query<{ session_id: number }>('SELECT session_id FROM sys.dm_exec_sessions')
      ).recordset.map((r) => r.session_id);
    expect(await listed()).toContain(otherSpid);
    await other.close();
    // The server sees the socket close a moment after the client does.
    await until('the closed session to leave', async () => !(await listed()).includes(otherSpid));
  });
});

describe('variables and OUTPUT parameters (sp_executesql)', () => {
  it('gives back what SET and SELECT assign to OUTPUT parameters, in their declared types', async () => {
    const set = await pool.request().input('a', sql.Int, 2).output('x', sql.Int).query('SET @x = @a * 21');
    expect(set.output).toEqual({ x: 42 });
    const selected = await pool
      .request()
      .output('x', sql.NVarChar(50))
      .output('y', sql.BigInt)
      .query("SELECT @x = N'grüße', @y = CAST(8 AS bigint)");
    expect(selected.output).toEqual({ x: 'grüße', y: '8' });
  });

  it('declares variables in a batch, with a first value converted to their type, usable in table statements', async () => {
    const { recordset } = await pool.request().query(`DECLARE @x int = 5, @y nvarchar(10);
      SET @y = N'hi';
      SELECT @x * 2 AS d, @y AS y;`);
    expect(recordset).toEqual([{ d: 10, y: 'hi' }]);
    const number = (text: string) =>
      pool
        .request()
        .query(text)
        .then(
          () => undefined,
          (e: unknown) => (e as sql.RequestError).number,
        );
    expect(await number('DECLARE @x int; DECLARE @x bigint;')).toBe(134);
    expect(await number("DECLARE @x int = 'abc'")).toBe(245);
  });

  it('refuses an assignment mixed with a result (141) and a value the variable’s type cannot hold (245)', async () => {
    const number = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: unknown) => (e as sql.RequestError).number,
      );
    expect(await number(pool.request().output('x', sql.Int).query('SELECT @x = 1, 2 AS b'))).toBe(141);
    expect(await number(pool.request().output('x', sql.Int).query("SET @x = 'abc'"))).toBe(245);
    expect(await number(pool.request().query('SET @nowhere = 1'))).toBe(137);
  });
});

describe('in statements that read tables', () => {
  it('takes 0x… as binary (not SQLite’s hex integer), and CAST/CONVERT with T-SQL’s rules and styles', async () => {
    await pool.request()
      .batch(`CREATE TABLE dbo.Stamps (Id INT PRIMARY KEY, At DATETIMEOFFSET(7) NULL, Bytes VARBINARY(8) NULL, Code VARCHAR(5) NULL);
      INSERT INTO dbo.Stamps VALUES (1, '2026-11-24 10:00:00.1234567 +05:30', 0x00FF10, '42'), (2, '2026-11-24 10:00:00.0000000 +00:00', 0x, 'x');`);
    const { recordset } = await pool
      .request()
      .query(
        'SELECT Id, Bytes, CONVERT(nvarchar(34), At, 127) AS iso, CAST(Id AS varchar(5)) AS text FROM dbo.Stamps ORDER BY Id',
      );
    expect(recordset).toEqual([
      { Id: 1, Bytes: Buffer.from([0x00, 0xff, 0x10]), iso: '2026-11-24T10:00:00.1234567+05:30', text: '1' },
      { Id: 2, Bytes: Buffer.alloc(0), iso: '2026-11-24T10:00:00.0000000Z', text: '2' },
    ]);
    const refusal = await pool
      .request()
      .query('SELECT CAST(Code AS int) AS n FROM dbo.Stamps')
      .then(
        () => undefined,
        (e: unknown) => (e as sql.RequestError).number,
      );
    expect(refusal).toBe(245);
  });

  it('types a converted column by its target type, as SQL Server does, not by its values', async () => {
    await pool.request().batch(`CREATE TABLE dbo.Flags (Id INT PRIMARY KEY, Amount DECIMAL(12, 2) NOT NULL);
      INSERT INTO dbo.Flags VALUES (1, 12.50), (0, 3.00);`);
    const { recordset } = await pool.request().query(
      `SELECT TOP (5) CAST(Id AS bit) AS flag, CONVERT(bit, Id) other, CONVERT(varchar(41), Amount) AS digits,
          CAST(Id AS smallint) AS small, CAST(Id AS int) + 1 AS next, Id * 2 AS twice
        FROM dbo.Flags ORDER BY Id`,
    );
    const types = Object.fromEntries(Object.entries(recordset.columns).map(([name, c]) => [name, c.type]));
    expect(types).toEqual({
      flag: sql.Bit,
      other: sql.Bit,
      digits: sql.VarChar,
      small: sql.SmallInt,
      next: sql.Int,
      twice: sql.Int,
    });
    expect(recordset.columns.digits?.length).toBe(41);
    expect(recordset).toEqual([
      { flag: false, other: false, digits: '3.00', small: 0, next: 1, twice: 0 },
      { flag: true, other: true, digits: '12.50', small: 1, next: 2, twice: 2 },
    ]);
    // SELECT * and a UNION are typed as before: by their columns, and by their values.
    const star = await pool.request().query('SELECT * FROM dbo.Flags WHERE Id = 1');
    expect(star.recordset.columns.Amount?.type).toBe(sql.Decimal);
    const union = await pool
      .request()
      .query('SELECT CAST(Id AS bit) AS b FROM dbo.Flags UNION ALL SELECT CAST(0 AS bit) FROM dbo.Flags');
    expect(union.recordset).toHaveLength(4);
  });
});

describe('request limits', () => {
  it('refuses more than 2,100 parameters in one request with 8003, and the connection stays', async () => {
    const request = pool.request();
    for (let i = 0; i < 2_101; i++) request.input(`p${i}`, sql.Int, i);
    const refusal = await request.query('SELECT @p0 AS v').then(
      () => undefined,
      (e: unknown) => (e as sql.RequestError).number,
    );
    expect(refusal).toBe(8003);
    // sp_executesql's own @stmt and @params count: 2,098 of the caller's fit.
    const atLimit = pool.request();
    for (let i = 0; i < 2_098; i++) atLimit.input(`p${i}`, sql.Int, i);
    expect((await atLimit.query<{ v: number }>('SELECT @p2097 AS v')).recordset[0]?.v).toBe(2097);
  });
});

describe('DATALENGTH', () => {
  it('counts bytes as each column type stores them, NULL for NULL', async () => {
    await pool.request().batch(`
      CREATE TABLE dbo.Lengths (Id INT PRIMARY KEY, N NVARCHAR(MAX) NULL, V VARCHAR(MAX) NULL,
        F NCHAR(10) NULL, C CHAR(4) NULL, B VARBINARY(MAX) NULL, X XML NULL);
      INSERT INTO dbo.Lengths VALUES (1, N'häuser😀', 'häuser', N'ab', 'ab', 0x010203, N'<a>ü</a>');
      INSERT INTO dbo.Lengths (Id) VALUES (2);`);
    const { recordset } = await pool
      .request()
      .query(
        'SELECT Id, DATALENGTH(N) AS n, DATALENGTH([V]) AS v, DATALENGTH(F) AS f, DATALENGTH(C) AS c, DATALENGTH(t.B) AS b, DATALENGTH(X) AS x FROM dbo.Lengths t ORDER BY Id',
      );
    // nvarchar: two bytes per UTF-16 unit (the emoji is two); varchar: one per character (code page
    // 1252); nchar(10) and char(4): their full width; varbinary: its bytes.
    expect(recordset[0]).toMatchObject({ n: 16, v: 6, f: 20, c: 4, b: 3, x: 16 });
    expect(recordset[1]).toMatchObject({ n: null, v: null, f: null, c: null, b: null, x: null });
    const { recordset: most } = await pool.request().query('SELECT MAX(DATALENGTH(N)) AS n FROM dbo.Lengths');
    expect(most[0]?.n).toBe(16);
  });
});

describe('exact comparisons', () => {
  it('counts the bytes of a CAST as its type stores them, a padded nchar at its width', async () => {
    const { recordset } = await pool
      .request()
      .input('p', sql.NVarChar, 'ab ')
      .query(
        `SELECT DATALENGTH(CAST(@p AS nvarchar(max))) AS n, DATALENGTH(CAST(@p AS nchar(5))) AS f,
           DATALENGTH(CAST(0x0100 AS varbinary(max))) AS b, DATALENGTH(CAST(NULL AS nvarchar(4))) AS z
         FROM dbo.Lengths WHERE Id = 1`,
      );
    expect(recordset[0]).toEqual({ n: 6, f: 10, b: 2, z: null });
  });

  it('compares under a binary COLLATE clause, and refuses a collation that does not exist (448)', async () => {
    const { recordset } = await pool
      .request()
      .query<{ same: number }>(
        `SELECT Id AS same FROM dbo.Lengths WHERE CAST(F AS nvarchar(max)) COLLATE Latin1_General_100_BIN2 = N'ab        '`,
      );
    expect(recordset.map((r) => r.same)).toEqual([1]);
    const wrong = await pool
      .request()
      .query(`SELECT Id FROM dbo.Lengths WHERE N COLLATE No_Such_Collation = N'x'`)
      .then(
        () => undefined,
        (e: unknown) => e as sql.RequestError,
      );
    expect(wrong?.number).toBe(448);
    expect(wrong?.message).toBe("Invalid collation 'No_Such_Collation'.");
  });

  it('takes a time alone as a time, and a uniqueidentifier in any spelling as one value', async () => {
    await pool
      .request()
      .batch(`CREATE TABLE dbo.Spellings (Id INT PRIMARY KEY, G UNIQUEIDENTIFIER NULL, T TIME(6) NULL)`);
    const g = '6f9619ff-8b86-d011-b42d-00c04fc964ff';
    await pool
      .request()
      .input('g', sql.NVarChar, g)
      .input('t', sql.NVarChar, '23:59:59.654321')
      .query(`INSERT INTO dbo.Spellings (Id, G, T) SELECT 1, @g, CAST(@t AS time(6))`);
    const { recordset } = await pool
      .request()
      .input('upper', sql.NVarChar, `{${g.toUpperCase()}}`)
      .input('t', sql.NVarChar, '23:59:59.654321')
      .query<{ Id: number }>(
        'SELECT Id FROM dbo.Spellings WHERE G = CAST(@upper AS uniqueidentifier) AND T = CAST(@t AS time(6))',
      );
    expect(recordset.map((r) => r.Id)).toEqual([1]);
  });
});
