// The simulated SQL Server, driven only through the real `mssql` package, as an agent would drive it.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sql from 'mssql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandboxCertificates } from '../certificate';
import { startSandboxSqlServer, type SandboxSqlServer } from '..';

let sandbox: SandboxSqlServer;
const LOGIN = { name: 'cdc_reader', password: 'Rd-Pa55word!' };

beforeAll(async () => {
  sandbox = await startSandboxSqlServer({ tls: true, logins: [LOGIN], databases: ['master', 'Sales'] });
});
afterAll(() => sandbox.close());

function config(overrides: Partial<sql.config> & { encrypt?: boolean; ca?: string } = {}): sql.config {
  const { encrypt = false, ca, ...rest } = overrides;
  return {
    server: encrypt ? 'localhost' : '127.0.0.1',
    port: sandbox.port,
    user: LOGIN.name,
    password: LOGIN.password,
    database: 'Sales',
    pool: { max: 2, min: 0 },
    connectionTimeout: 5000,
    requestTimeout: 10000,
    options: { encrypt, trustServerCertificate: false, ...(ca && { cryptoCredentialsDetails: { ca } }) },
    ...rest,
  };
}

async function withPool<T>(cfg: sql.config, use: (pool: sql.ConnectionPool) => Promise<T>): Promise<T> {
  const pool = new sql.ConnectionPool(cfg);
  await pool.connect();
  try {
    return await use(pool);
  } finally {
    await pool.close();
  }
}

describe('connecting', () => {
  it('logs in without TLS and reports the session as SQL Server would', async () => {
    const row = await withPool(
      config(),
      async (pool) =>
        (await pool.request().query('SELECT DB_NAME() AS db, SUSER_SNAME() AS who, @@VERSION AS v'))
          .recordset[0],
    );
    expect(row).toMatchObject({ db: 'Sales', who: 'cdc_reader' });
    expect(row.v).toMatch(/^Microsoft SQL Server 2022/);
  });

  it('logs in over TLS when the server certificate chains to the given CA file', async () => {
    const ca = readFileSync(sandbox.caFile ?? '', 'utf8');
    const row = await withPool(
      config({ encrypt: true, ca }),
      async (pool) => (await pool.request().query('SELECT DB_NAME() AS db')).recordset[0],
    );
    expect(row).toEqual({ db: 'Sales' });
  });

  it('refuses TLS against a CA that did not sign the server certificate', async () => {
    const other = await makeSandboxCertificates();
    const error = await withPool(config({ encrypt: true, ca: other.caCert }), async () => 'connected').catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(sql.ConnectionError);
    expect(String((error as Error).message)).toMatch(/certificate|self.signed|unable to (get|verify)/i);
  });

  it('speaks TDS 8.0 strict encryption (TLS before PRELOGIN) when the driver asks for it', async () => {
    const ca = readFileSync(sandbox.caFile ?? '', 'utf8');
    // mssql's types know only booleans here; tedious takes 'strict'.
    const strict = config({ encrypt: true, ca });
    strict.options = { ...strict.options, encrypt: 'strict' as unknown as boolean };
    const row = await withPool(
      strict,
      async (pool) => (await pool.request().query('SELECT DB_NAME() AS db')).recordset[0],
    );
    expect(row).toEqual({ db: 'Sales' });
    const other = await makeSandboxCertificates();
    const wrong = config({ encrypt: true, ca: other.caCert });
    wrong.options = { ...wrong.options, encrypt: 'strict' as unknown as boolean };
    const error = await withPool(wrong, async () => 'connected').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(sql.ConnectionError);
  });

  it('refuses a wrong password with error 18456, and says no more', async () => {
    const error = (await withPool(config({ password: 'wrong' }), async () => 'connected').catch(
      (e: unknown) => e,
    )) as sql.ConnectionError;
    expect(error).toBeInstanceOf(sql.ConnectionError);
    expect(error.message).toBe("Login failed for user 'cdc_reader'.");
    expect(error.code).toBe('ELOGIN');
  });

  it('refuses an unknown login with the same words as a wrong password', async () => {
    const error = (await withPool(config({ user: 'nobody' }), async () => 'connected').catch(
      (e: unknown) => e,
    )) as Error;
    expect(error.message).toBe("Login failed for user 'nobody'.");
  });

  it('refuses a database that does not exist with error 4060', async () => {
    const error = (await withPool(config({ database: 'Nope' }), async () => 'connected').catch(
      (e: unknown) => e,
    )) as Error;
    expect(error.message).toBe('Cannot open database "Nope" requested by the login. The login failed.');
  });
});

describe('parameters of every listed type round-trip exactly', () => {
  const cases: [string, sql.ISqlType | (() => sql.ISqlType), unknown, unknown?][] = [
    ['bit', sql.Bit, true],
    ['tinyint', sql.TinyInt, 255],
    ['smallint', sql.SmallInt, -32768],
    ['int', sql.Int, -2147483648],
    ['bigint', sql.BigInt, '9007199254740993'],
    ['decimal(38,10)', sql.Decimal(38, 10), 1234.5678901234, 1234.5678901234],
    ['numeric(10,2)', sql.Numeric(10, 2), -42.1, -42.1],
    ['float', sql.Float, 1.7976931348623157e308],
    ['real', sql.Real, 3.5],
    ['char(5)', sql.Char(5), 'abcde'],
    ['varchar(20)', sql.VarChar(20), 'caf\u00e9 Latin-1'],
    ['varchar(max)', sql.VarChar(sql.MAX), 'x'.repeat(20000)],
    ['nchar(3)', sql.NChar(3), '\u65e5\u672c\u8a9e'],
    ['nvarchar(50)', sql.NVarChar(50), 'Gr\u00fc\u00dfe \u2014 \ud83d\ude00'],
    ['nvarchar(max)', sql.NVarChar(sql.MAX), '\u00e9'.repeat(30000)],
    ['datetime2(7)', sql.DateTime2(7), new Date(Date.UTC(2026, 10, 22, 13, 14, 15, 678))],
    ['datetime', sql.DateTime, new Date(Date.UTC(1999, 11, 31, 23, 59, 59, 997))],
    ['date', sql.Date, new Date(Date.UTC(1, 0, 1))],
    ['time(7)', sql.Time(7), new Date(Date.UTC(1970, 0, 1, 23, 59, 59, 999))],
    ['datetimeoffset(7)', sql.DateTimeOffset(7), new Date(Date.UTC(2026, 0, 1, 0, 0, 0, 1))],
    ['uniqueidentifier', sql.UniqueIdentifier, '6F9619FF-8B86-D011-B42D-00C04FC964FF'],
    ['varbinary(16)', sql.VarBinary(16), Buffer.from([0, 1, 2, 253, 254, 255])],
    ['varbinary(max)', sql.VarBinary(sql.MAX), Buffer.alloc(70000, 7)],
  ];

  let pool: sql.ConnectionPool;
  beforeAll(async () => {
    pool = await new sql.ConnectionPool(config()).connect();
  });
  afterAll(() => pool.close());

  it.each(cases)('%s', async (_name, type, value, expected = value) => {
    const answer = await pool.request().input('p', type, value).query('SELECT @p AS v');
    const got: unknown = answer.recordset[0].v;
    if (expected instanceof Date) expect((got as Date).toISOString()).toBe(expected.toISOString());
    else if (Buffer.isBuffer(expected)) expect(Buffer.compare(got as Buffer, expected)).toBe(0);
    else expect(got).toEqual(expected);
  });

  it('nulls of every type come back as null', async () => {
    const request = pool.request();
    cases.forEach(([, type], i) => request.input(`p${i}`, type, null));
    const answer = await request.query(`SELECT ${cases.map((_c, i) => `@p${i} AS c${i}`).join(', ')}`);
    expect(Object.values(answer.recordset[0] as object)).toEqual(cases.map(() => null));
  });

  it('describes the column types as SQL Server does', async () => {
    const answer = await pool
      .request()
      .input('d', sql.Decimal(12, 3), 1.5)
      .input('s', sql.NVarChar(40), 'x')
      .query('SELECT @d AS d, @s AS s');
    const columns = answer.recordset.columns;
    expect(columns.d).toMatchObject({ precision: 12, scale: 3, nullable: true });
    expect(columns.d?.type).toBe(sql.Decimal);
    // TYPE_INFO gives nvarchar lengths in bytes (MS-TDS 2.2.5.4.3), and mssql reports them as they come.
    expect(columns.s).toMatchObject({ length: 80 });
    expect(columns.s?.type).toBe(sql.NVarChar);
  });

  it('runs prepared statements (sp_prepare, sp_execute, sp_unprepare)', async () => {
    const ps = new sql.PreparedStatement(pool);
    ps.input('n', sql.Int);
    await ps.prepare('SELECT @n AS n');
    const first = await ps.execute({ n: 1 });
    const second = await ps.execute({ n: 2 });
    await ps.unprepare();
    expect([first.recordset[0].n, second.recordset[0].n]).toEqual([1, 2]);
  });
});

describe('errors and cancel', () => {
  it('delivers errors with their number, state and class', async () => {
    await withPool(config(), async (pool) => {
      const raised = (await pool
        .request()
        .query("RAISERROR('Checkpoint table missing', 16, 3)")
        .catch((e: unknown) => e)) as sql.RequestError;
      expect(raised).toBeInstanceOf(sql.RequestError);
      expect(raised).toMatchObject({
        number: 50000,
        state: 3,
        class: 16,
        message: 'Checkpoint table missing',
      });
      const undeclared = (await pool
        .request()
        .query('SELECT @nope AS x')
        .catch((e: unknown) => e)) as sql.RequestError;
      expect(undeclared).toMatchObject({
        number: 137,
        class: 15,
        state: 2,
        message: 'Must declare the scalar variable "@nope".',
      });
      const missing = (await pool
        .request()
        .execute('dbo.no_such_proc')
        .catch((e: unknown) => e)) as sql.RequestError;
      expect(missing).toMatchObject({
        number: 2812,
        message: "Could not find stored procedure 'dbo.no_such_proc'.",
      });
      // The connection stays usable after each error.
      expect((await pool.request().query('SELECT 1 AS one')).recordset[0].one).toBe(1);
    });
  });

  it('passes informational messages without failing the request', async () => {
    await withPool(config(), async (pool) => {
      const infos: string[] = [];
      const request = pool.request();
      request.on('info', (m: { message: string }) => infos.push(m.message));
      await request.query("PRINT N'checking'; SELECT 1 AS one");
      expect(infos).toContain('checking');
    });
  });

  it('stops a running query when it is cancelled (ATTENTION)', async () => {
    await withPool(config(), async (pool) => {
      const request = pool.request();
      const started = Date.now();
      const running = request.query("WAITFOR DELAY '00:00:05'").catch((e: unknown) => e);
      setTimeout(() => request.cancel(), 50);
      const error = (await running) as sql.RequestError;
      expect(error.code).toBe('ECANCEL');
      expect(Date.now() - started).toBeLessThan(3000);
      expect((await pool.request().query('SELECT 2 AS two')).recordset[0].two).toBe(2);
    });
  });

  it('switches databases with USE and refuses an unknown one with 911', async () => {
    await withPool(config({ pool: { max: 1, min: 0 } }), async (pool) => {
      const moved = await pool.request().query('USE master; SELECT DB_NAME() AS db');
      expect(moved.recordset[0].db).toBe('master');
      const error = (await pool
        .request()
        .query('USE Nowhere')
        .catch((e: unknown) => e)) as sql.RequestError;
      expect(error).toMatchObject({
        number: 911,
        message: "Database 'Nowhere' does not exist. Make sure that the name is entered correctly.",
      });
    });
  });

  it('names what it does not support instead of pretending', async () => {
    await withPool(config(), async (pool) => {
      const error = (await pool
        .request()
        .query('SELECT * FROM sys.server_principals')
        .catch((e: unknown) => e)) as sql.RequestError;
      expect(error.message).toBe('The sandbox does not support the catalog view sys.server_principals yet.');
    });
  });
});

describe('certificate files', () => {
  it('a CA file written by the sandbox is a PEM certificate', () => {
    const pem = readFileSync(sandbox.caFile ?? '', 'utf8');
    expect(pem).toMatch(/^-----BEGIN CERTIFICATE-----/);
    const dir = mkdtempSync(join(tmpdir(), 'cdc-ca-'));
    writeFileSync(join(dir, 'copy.pem'), pem);
  });
});
