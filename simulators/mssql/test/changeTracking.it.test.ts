// Change Tracking in the simulated SQL Server, through mssql, against Microsoft's documented rules.
import sql from 'mssql';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandboxSqlServer, type SandboxSqlServer } from '..';
import { DBA, sandboxPool } from '../../../test/helpers/sandbox';

let sandbox: SandboxSqlServer;
let pool: sql.ConnectionPool;
let clock = Date.UTC(2026, 10, 1);

beforeAll(async () => {
  sandbox = await startSandboxSqlServer({
    logins: [DBA],
    databases: ['Sales'],
    now: () => new Date(clock),
  });
  pool = await sandboxPool(sandbox, { max: 1 });
  await pool.request().batch(`
    ALTER DATABASE Sales SET CHANGE_TRACKING = ON (CHANGE_RETENTION = 2 DAYS, AUTO_CLEANUP = ON);
    CREATE TABLE dbo.Orders (Id INT NOT NULL PRIMARY KEY, Customer NVARCHAR(40) NOT NULL, Amount DECIMAL(10, 2) NULL);
    ALTER TABLE dbo.Orders ENABLE CHANGE_TRACKING WITH (TRACK_COLUMNS_UPDATED = ON);
    CREATE TABLE dbo.NoKey (Note NVARCHAR(10));`);
});
afterAll(async () => {
  await pool?.close();
  await sandbox?.close();
});

type SqlTypeArg = Parameters<sql.Request['input']>[1];
const q = async (text: string, inputs: Record<string, [SqlTypeArg, unknown]> = {}) => {
  const request = pool.request();
  for (const [name, [type, value]] of Object.entries(inputs)) request.input(name, type, value);
  return (await request.query(text)).recordset as Record<string, unknown>[];
};
const version = async () => Number((await q('SELECT CHANGE_TRACKING_CURRENT_VERSION() AS v'))[0]?.v);
const changes = async (since: number | null) =>
  (
    await q(
      'SELECT CT.Id, CT.SYS_CHANGE_OPERATION AS op, CT.SYS_CHANGE_VERSION AS v FROM CHANGETABLE(CHANGES dbo.Orders, @since) AS CT ORDER BY CT.Id',
      {
        since: [sql.BigInt, since],
      },
    )
  ).map((r) => [r.Id, r.op, Number(r.v)]);

describe('versions', () => {
  let start: number;
  beforeEach(async () => {
    start = await version();
  });

  it('moves on by one for each committed transaction with tracked changes, not for reads', async () => {
    await q("INSERT INTO dbo.Orders VALUES (1, N'Ada', 10)");
    expect(await version()).toBe(start + 1);
    const t = new sql.Transaction(pool);
    await t.begin();
    await new sql.Request(t).query("INSERT INTO dbo.Orders VALUES (2, N'Bo', 20)");
    await new sql.Request(t).query('UPDATE dbo.Orders SET Amount = 21 WHERE Id = 2');
    await t.commit();
    expect(await version()).toBe(start + 2);
    await q('SELECT * FROM dbo.Orders');
    expect(await version()).toBe(start + 2);
  });

  it('takes nothing from a rolled-back transaction', async () => {
    const t = new sql.Transaction(pool);
    await t.begin();
    await new sql.Request(t).query("INSERT INTO dbo.Orders VALUES (99, N'Never', 1)");
    await t.rollback();
    expect(await version()).toBe(start);
    expect(await changes(start)).toEqual([]);
  });
});

describe('net changes (CHANGETABLE CHANGES)', () => {
  it('insert then update is I; update of an older row is U; NULL gives every change kept', async () => {
    const since = await version();
    await q("INSERT INTO dbo.Orders VALUES (10, N'New', 1)");
    await q('UPDATE dbo.Orders SET Amount = 2 WHERE Id = 10');
    await q('UPDATE dbo.Orders SET Amount = 11 WHERE Id = 1');
    expect(await changes(since)).toEqual([
      [1, 'U', since + 3],
      [10, 'I', since + 2],
    ]);
    expect((await changes(null)).map(([id, op]) => [id, op])).toEqual([
      [1, 'I'],
      [2, 'I'],
      [10, 'I'],
    ]);
  });

  it('delete then re-insert of a row older than the sync version is U', async () => {
    const since = await version();
    await q('DELETE FROM dbo.Orders WHERE Id = 2');
    expect(await changes(since)).toEqual([[2, 'D', since + 1]]);
    await q("INSERT INTO dbo.Orders VALUES (2, N'Bo again', 22)");
    expect(await changes(since)).toEqual([[2, 'U', since + 2]]);
  });

  it('a key update is a delete of the old key and an insert of the new one', async () => {
    const since = await version();
    await q('UPDATE dbo.Orders SET Id = 20 WHERE Id = 10');
    expect(await changes(since)).toEqual([
      [10, 'D', since + 1],
      [20, 'I', since + 1],
    ]);
  });

  it('answers with SQL Server types and the changed columns in SYS_CHANGE_COLUMNS', async () => {
    const since = await version();
    await q('UPDATE dbo.Orders SET Amount = 12 WHERE Id = 1');
    const answer = await pool.request().input('since', sql.BigInt, since).query(`
      SELECT CT.SYS_CHANGE_VERSION, CT.SYS_CHANGE_OPERATION, CT.SYS_CHANGE_COLUMNS,
        CHANGE_TRACKING_IS_COLUMN_IN_MASK(COLUMNPROPERTY(OBJECT_ID('dbo.Orders'), 'Amount', 'ColumnId'), CT.SYS_CHANGE_COLUMNS) AS amount_changed,
        CHANGE_TRACKING_IS_COLUMN_IN_MASK(COLUMNPROPERTY(OBJECT_ID('dbo.Orders'), 'Customer', 'ColumnId'), CT.SYS_CHANGE_COLUMNS) AS customer_changed
      FROM CHANGETABLE(CHANGES dbo.Orders, @since) AS CT`);
    expect(answer.recordset.columns.SYS_CHANGE_VERSION?.type).toBe(sql.BigInt);
    expect(answer.recordset.columns.SYS_CHANGE_OPERATION?.type).toBe(sql.NChar);
    expect(answer.recordset.columns.SYS_CHANGE_COLUMNS?.type).toBe(sql.VarBinary);
    // CHANGE_TRACKING_IS_COLUMN_IN_MASK returns bit ("CHANGE_TRACKING_IS_COLUMN_IN_MASK (Transact-SQL)").
    expect(answer.recordset.columns.amount_changed?.type).toBe(sql.Bit);
    expect(answer.recordset[0]).toMatchObject({
      SYS_CHANGE_OPERATION: 'U',
      amount_changed: true,
      customer_changed: false,
    });
    expect(answer.recordset[0].SYS_CHANGE_VERSION).toBe(String(since + 1));
  });

  it('SYS_CHANGE_COLUMNS of a row updated several times holds every column updated after the version', async () => {
    await q("UPDATE dbo.Orders SET Customer = N'Before' WHERE Id = 2");
    const since = await version();
    await q('UPDATE dbo.Orders SET Amount = 40 WHERE Id = 2');
    await q('UPDATE dbo.Orders SET Amount = 41 WHERE Id = 2');
    await q('UPDATE dbo.Orders SET Amount = 42 WHERE Id = 1');
    const inMask = (column: string) =>
      `CHANGE_TRACKING_IS_COLUMN_IN_MASK(COLUMNPROPERTY(OBJECT_ID('dbo.Orders'), '${column}', 'ColumnId'), CT.SYS_CHANGE_COLUMNS)`;
    const rows = await q(
      `SELECT CT.Id, ${inMask('Amount')} AS amount, ${inMask('Customer')} AS customer
        FROM CHANGETABLE(CHANGES dbo.Orders, @since) AS CT ORDER BY CT.Id`,
      { since: [sql.BigInt, since] },
    );
    expect(rows).toEqual([
      { Id: 1, amount: true, customer: false },
      { Id: 2, amount: true, customer: false },
    ]);
    await q("UPDATE dbo.Orders SET Customer = N'After' WHERE Id = 2");
    const again = await q(
      `SELECT CT.Id, ${inMask('Amount')} AS amount, ${inMask('Customer')} AS customer
        FROM CHANGETABLE(CHANGES dbo.Orders, @since) AS CT WHERE CT.Id = 2`,
      { since: [sql.BigInt, since] },
    );
    expect(again).toEqual([{ Id: 2, amount: true, customer: true }]);
  });

  it('CHANGE_TRACKING_IS_COLUMN_IN_MASK takes two arguments and finds nothing in an insert’s missing mask', async () => {
    const since = await version();
    await q("INSERT INTO dbo.Orders VALUES (77, N'New', 1)");
    const rows = await q(
      `SELECT CT.Id, CT.SYS_CHANGE_COLUMNS AS mask,
          CHANGE_TRACKING_IS_COLUMN_IN_MASK(COLUMNPROPERTY(OBJECT_ID('dbo.Orders'), 'Amount', 'ColumnId'), CT.SYS_CHANGE_COLUMNS) AS amount
        FROM CHANGETABLE(CHANGES dbo.Orders, @since) AS CT`,
      { since: [sql.BigInt, since] },
    );
    expect(rows).toEqual([{ Id: 77, mask: null, amount: false }]);
    const error = await pool
      .request()
      .query('SELECT CHANGE_TRACKING_IS_COLUMN_IN_MASK(1) AS m')
      .catch((e: sql.RequestError) => e);
    expect((error as sql.RequestError).number).toBe(174);
  });

  it('joins to the current rows, as a reader does', async () => {
    const since = await version();
    await q("UPDATE dbo.Orders SET Customer = N'Ada L.' WHERE Id = 1");
    const rows = await q(
      `
      SELECT CT.SYS_CHANGE_OPERATION AS op, CT.Id, o.Customer FROM CHANGETABLE(CHANGES dbo.Orders, @since) AS CT
      LEFT JOIN dbo.Orders o ON o.Id = CT.Id ORDER BY CT.SYS_CHANGE_VERSION`,
      { since: [sql.BigInt, since] },
    );
    expect(rows).toEqual([{ op: 'U', Id: 1, Customer: 'Ada L.' }]);
  });

  it('refuses an expression as the version: a syntax error, as documented', async () => {
    const error = await pool
      .request()
      .query('SELECT * FROM CHANGETABLE(CHANGES dbo.Orders, 1 + 1) AS CT')
      .catch((e: sql.RequestError) => e);
    expect((error as sql.RequestError).number).toBe(102);
  });
});

describe('context, version of one row, and catalog', () => {
  it('records WITH CHANGE_TRACKING_CONTEXT with the change', async () => {
    const since = await version();
    await pool
      .request()
      .input('ctx', sql.VarBinary(128), Buffer.from('pipeline-7'))
      .query('WITH CHANGE_TRACKING_CONTEXT (@ctx) UPDATE dbo.Orders SET Amount = 13 WHERE Id = 1');
    await q('UPDATE dbo.Orders SET Amount = 30 WHERE Id = 2');
    const rows = await q(
      'SELECT CT.Id, CT.SYS_CHANGE_CONTEXT AS ctx FROM CHANGETABLE(CHANGES dbo.Orders, @since) AS CT ORDER BY CT.Id',
      { since: [sql.BigInt, since] },
    );
    expect(rows.map((r) => [r.Id, r.ctx === null ? null : (r.ctx as Buffer).toString()])).toEqual([
      [1, 'pipeline-7'],
      [2, null],
    ]);
  });

  it('CHANGETABLE(VERSION …) gives one row’s last change version', async () => {
    const now = await version();
    const rows = await q(
      'SELECT CT.SYS_CHANGE_VERSION AS v, CT.Id FROM CHANGETABLE(VERSION dbo.Orders, (Id), (@id)) AS CT',
      { id: [sql.Int, 2] },
    );
    // mssql answers bigint as a string, as it does from a real server.
    expect(rows).toEqual([{ v: String(now), Id: 2 }]);
    const none = await q(
      'SELECT CT.SYS_CHANGE_VERSION AS v FROM CHANGETABLE(VERSION dbo.Orders, (Id), (12345)) AS CT',
    );
    expect(none).toEqual([{ v: null }]);
  });

  it('lists tracked databases and tables in the catalog views', async () => {
    expect(
      await q(
        'SELECT retention_period, retention_period_units_desc, is_auto_cleanup_on FROM sys.change_tracking_databases',
      ),
    ).toEqual([{ retention_period: 2, retention_period_units_desc: 'DAYS', is_auto_cleanup_on: true }]);
    const tables = await q(
      'SELECT t.name, ct.is_track_columns_updated_on FROM sys.change_tracking_tables ct JOIN sys.tables t ON t.object_id = ct.object_id',
    );
    expect(tables).toEqual([{ name: 'Orders', is_track_columns_updated_on: true }]);
  });
});

describe('retention and validity', () => {
  it('moves the minimum valid version past changes older than the retention period', async () => {
    const minValid = async () =>
      Number((await q("SELECT CHANGE_TRACKING_MIN_VALID_VERSION(OBJECT_ID('dbo.Orders')) AS v"))[0]?.v);
    const before = await minValid();
    const last = await version();
    clock += 3 * 86_400_000;
    await q("INSERT INTO dbo.Orders VALUES (50, N'After', 5)");
    const after = await minValid();
    expect(after).toBeGreaterThan(before);
    expect(after).toBe(last);
    // Only the change made inside the retention period is still there.
    expect(await changes(null)).toEqual([[50, 'I', last + 1]]);
  });

  it('TRUNCATE makes every earlier version invalid, and records no row changes', async () => {
    const before = await version();
    await q('TRUNCATE TABLE dbo.Orders');
    const [row] = await q(
      "SELECT CHANGE_TRACKING_MIN_VALID_VERSION(OBJECT_ID('dbo.Orders')) AS min_valid, CHANGE_TRACKING_CURRENT_VERSION() AS cur",
    );
    // The truncation commits at a version of its own: a client caught up at `before` is now below the
    // minimum valid version and must reinitialise.
    expect(row?.min_valid).toBe(row?.cur);
    expect(Number(row?.cur)).toBe(before + 1);
    expect(await q('SELECT * FROM CHANGETABLE(CHANGES dbo.Orders, 0) AS CT')).toEqual([]);
  });

  it('answers NULL for the minimum valid version of a table that is not tracked', async () => {
    expect(await q("SELECT CHANGE_TRACKING_MIN_VALID_VERSION(OBJECT_ID('dbo.NoKey')) AS v")).toEqual([
      { v: null },
    ]);
  });
});

describe('errors', () => {
  it.each([
    [
      'ALTER TABLE dbo.NoKey ENABLE CHANGE_TRACKING',
      4997,
      "Cannot enable change tracking on table 'NoKey'. Change tracking requires a primary key on the table. Create a primary key on the table before enabling change tracking.",
    ],
    [
      'SELECT * FROM CHANGETABLE(CHANGES dbo.NoKey, 0) AS CT',
      22105,
      "Change tracking is not enabled on table 'NoKey'.",
    ],
    [
      'ALTER TABLE dbo.Orders ENABLE CHANGE_TRACKING',
      4998,
      "Change tracking is already enabled for table 'Orders'.",
    ],
    ['ALTER DATABASE Sales SET CHANGE_TRACKING = OFF', 22115, undefined],
  ] as const)('%s → %i', async (statement, number, message) => {
    const error = (await pool
      .request()
      .query(statement)
      .catch((e: unknown) => e)) as sql.RequestError;
    expect(error.number).toBe(number);
    if (message) expect(error.message).toBe(message);
  });

  it('needs change tracking on the database before a table (4996)', async () => {
    const other = await startSandboxSqlServer({
      logins: [DBA],
      databases: ['Plain'],
    });
    const p = await new sql.ConnectionPool({
      server: '127.0.0.1',
      port: other.port,
      user: 'dba',
      password: 'Dba-Pa55',
      database: 'Plain',
      options: { encrypt: false },
    }).connect();
    try {
      await p.request().query('CREATE TABLE dbo.T (Id INT PRIMARY KEY)');
      const error = (await p
        .request()
        .query('ALTER TABLE dbo.T ENABLE CHANGE_TRACKING')
        .catch((e: unknown) => e)) as sql.RequestError;
      expect(error.number).toBe(4996);
      expect(
        (await p.request().query('SELECT CHANGE_TRACKING_CURRENT_VERSION() AS v')).recordset[0].v,
      ).toBeNull();
    } finally {
      await p.close();
      await other.close();
    }
  });
});

describe('key columns named like the sandbox internals', () => {
  it('tracks a table whose primary key has columns named Seq and Operation', async () => {
    await q(`CREATE TABLE dbo.Steps (Seq INT NOT NULL, Operation NVARCHAR(10) NOT NULL, Note NVARCHAR(10),
      CONSTRAINT PK_Steps PRIMARY KEY (Seq, Operation))`);
    await q('ALTER TABLE dbo.Steps ENABLE CHANGE_TRACKING');
    const from = await version();
    await q("INSERT INTO dbo.Steps VALUES (1, N'run', N'a')");
    const rows = await q(
      `SELECT ct.Seq, ct.Operation, ct.SYS_CHANGE_OPERATION AS op FROM CHANGETABLE(CHANGES dbo.Steps, ${from}) AS ct`,
    );
    expect(rows).toEqual([{ Seq: 1, Operation: 'run', op: 'I' }]);
  });
});

describe('sys.dm_tran_commit_table', () => {
  it('answers each change-tracking version with the time its transaction committed', async () => {
    await q("INSERT INTO dbo.Orders VALUES (900, N'Commit time', 1)");
    const v = await version();
    const [row] = await q(
      `SELECT commit_ts, commit_time FROM sys.dm_tran_commit_table WHERE commit_ts = ${v}`,
    );
    expect(row?.commit_ts).toBe(String(v));
    expect((row?.commit_time as Date).getTime()).toBe(clock);
  });
});
