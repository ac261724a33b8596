// Expressions in the simulated SQL Server with T-SQL's types and errors, through the real `mssql`
// driver ("CAST and CONVERT (Transact-SQL)", the Database Engine's error pages): each answer's type
// is the one SQL Server gives, and what SQL Server refuses is refused with its number.
import sql from 'mssql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../main/sandbox/mssql';
import { DBA, sandboxPool } from '../helpers/sandbox';

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
