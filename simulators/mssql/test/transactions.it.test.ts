// Transactions in the simulated SQL Server through mssql: the driver's own Transaction API (TDS
// transaction manager requests), T-SQL BEGIN/COMMIT/ROLLBACK, @@TRANCOUNT, and snapshot isolation.
import sql from 'mssql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxSqlServer, type SandboxSqlServer } from '..';
import { DBA, sandboxPool } from '../../../test/helpers/sandbox';
import { until } from '../../../test/helpers/until';

let sandbox: SandboxSqlServer;
const open: sql.ConnectionPool[] = [];

async function pool(database = 'Sales', max = 1): Promise<sql.ConnectionPool> {
  const p = await sandboxPool(sandbox, { database, max });
  open.push(p);
  return p;
}
const count = async (p: sql.ConnectionPool | sql.Transaction, table = 'dbo.Ledger') =>
  (await new sql.Request(p as sql.ConnectionPool).query(`SELECT COUNT(*) AS n FROM ${table}`)).recordset[0]
    .n as number;
const error = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as sql.RequestError,
  );

beforeAll(async () => {
  sandbox = await startSandboxSqlServer({
    logins: [DBA],
    databases: ['Sales', 'Snap'],
  });
  const p = await pool();
  await p.request().batch('CREATE TABLE dbo.Ledger (Id INT PRIMARY KEY, Note NVARCHAR(40))');
  const s = await pool('Snap');
  await s.request().batch('CREATE TABLE dbo.Ledger (Id INT PRIMARY KEY, Note NVARCHAR(40))');
});
afterAll(async () => {
  await Promise.all(open.map((p) => p.close()));
  await sandbox?.close();
});

describe('the driver’s transactions', () => {
  it('rolls back and commits through transaction manager requests', async () => {
    const p = await pool();
    const rolledBack = new sql.Transaction(p);
    await rolledBack.begin();
    await new sql.Request(rolledBack).query("INSERT INTO dbo.Ledger VALUES (1, N'gone')");
    expect(await count(rolledBack)).toBe(1);
    await rolledBack.rollback();
    expect(await count(p)).toBe(0);

    const committed = new sql.Transaction(p);
    await committed.begin(sql.ISOLATION_LEVEL.READ_COMMITTED);
    await new sql.Request(committed).query("INSERT INTO dbo.Ledger VALUES (2, N'kept')");
    await committed.commit();
    expect(await count(p)).toBe(1);
  });

  it('begins and commits a named transaction (the name’s length counts bytes), the connection usable after', async () => {
    const p = await pool();
    const before = await count(p);
    const named = new sql.Transaction(p);
    (named as unknown as { name: string }).name = 'nightly_load';
    await named.begin(sql.ISOLATION_LEVEL.READ_COMMITTED);
    await new sql.Request(named).query("INSERT INTO dbo.Ledger VALUES (50, N'named')");
    await named.commit();
    expect(await count(p)).toBe(before + 1);
    await p.request().query('DELETE FROM dbo.Ledger WHERE Id = 50');
  });

  it('counts nesting in @@TRANCOUNT: only the outermost COMMIT commits', async () => {
    const p = await pool();
    const answer = await p.request().query(`
      BEGIN TRAN; BEGIN TRANSACTION;
      INSERT INTO dbo.Ledger VALUES (3, N'nested');
      SELECT @@TRANCOUNT AS inner_count;
      COMMIT;
      SELECT @@TRANCOUNT AS outer_count;
      ROLLBACK;
      SELECT @@TRANCOUNT AS after_count`);
    const sets = answer.recordsets as sql.IRecordSet<Record<string, unknown>>[];
    expect(sets.map((r) => Object.values(r[0] ?? {})[0])).toEqual([2, 1, 0]);
    expect(await count(p)).toBe(1);
  });

  it('rolls back to a savepoint and keeps the transaction and the work before it', async () => {
    const p = await pool();
    const answer = await p.request().query(`
      BEGIN TRAN outer_work;
      INSERT INTO dbo.Ledger VALUES (10, N'kept');
      SAVE TRANSACTION before_second;
      INSERT INTO dbo.Ledger VALUES (11, N'undone');
      ROLLBACK TRANSACTION before_second;
      SELECT @@TRANCOUNT AS open_count;
      COMMIT;
      SELECT Id FROM dbo.Ledger WHERE Id IN (10, 11)`);
    const sets = answer.recordsets as sql.IRecordSet<Record<string, unknown>>[];
    expect(sets[0]?.[0]).toEqual({ open_count: 1 });
    expect(sets[1]).toEqual([{ Id: 10 }]);
  });

  it('refuses SAVE TRANSACTION outside a transaction (628) and an unknown savepoint (6401)', async () => {
    const p = await pool();
    expect((await error(p.request().query('SAVE TRAN nowhere')))?.number).toBe(628);
    const e = await error(p.request().batch('BEGIN TRAN; ROLLBACK TRAN no_such_point'));
    expect(e).toMatchObject({
      number: 6401,
      message: 'Cannot roll back no_such_point. No transaction or savepoint of that name was found.',
    });
    await p.request().batch('ROLLBACK');
  });

  it('refuses COMMIT and ROLLBACK without a transaction (3902, 3903)', async () => {
    const p = await pool();
    expect((await error(p.request().query('COMMIT')))?.number).toBe(3902);
    expect((await error(p.request().query('ROLLBACK TRANSACTION')))?.number).toBe(3903);
  });

  it('answers 266 when a parameterized request leaves @@TRANCOUNT changed, and keeps the transaction', async () => {
    // mssql's query() is an RPC (sp_executesql): SQL Server checks the count on its way out.
    const p = await pool();
    const opened = await error(p.request().input('id', sql.Int, 5).query('BEGIN TRAN; SELECT @id AS id'));
    expect(opened).toMatchObject({
      number: 266,
      message:
        'Transaction count after EXECUTE indicates a mismatching number of BEGIN and COMMIT statements. Previous count = 0, current count = 1.',
    });
    // The transaction is still open: the session's own count says so, and a batch ends it.
    const open = await p.request().batch('SELECT @@TRANCOUNT AS n');
    expect(open.recordset[0]).toEqual({ n: 1 });
    const ended = await error(p.request().query('ROLLBACK'));
    expect(ended?.message).toContain('Previous count = 1, current count = 0.');
    expect((await p.request().batch('SELECT @@TRANCOUNT AS n')).recordset[0]).toEqual({ n: 0 });
    // Balanced, or rolled back by XACT_ABORT on an error, the count is the same: no 266.
    await p.request().input('id', sql.Int, 6).query('BEGIN TRAN; SELECT @id AS id; COMMIT');
    const aborted = await error(
      p
        .request()
        .query("SET XACT_ABORT ON; BEGIN TRAN; INSERT INTO dbo.Ledger VALUES (60, N'a'), (60, N'b'); COMMIT"),
    );
    expect(aborted?.number).toBe(2627);
    expect((await p.request().batch('SELECT @@TRANCOUNT AS n')).recordset[0]).toEqual({ n: 0 });
  });

  it('rolls back what a dropped connection left open', async () => {
    const p = await pool();
    await p.request().batch("BEGIN TRAN; INSERT INTO dbo.Ledger VALUES (4, N'orphan')");
    await p.close();
    open.splice(open.indexOf(p), 1);
    // The server rolls back when it sees the connection gone: wait for that, not for a while.
    const q = await pool();
    const orphans = async () =>
      (await q.request().query('SELECT COUNT(*) AS n FROM dbo.Ledger WHERE Id = 4')).recordset[0].n as number;
    await until('the dropped connection rolled back', async () => (await orphans()) === 0, 5_000);
    expect(await orphans()).toBe(0);
  });
});

describe('snapshot isolation', () => {
  it('is refused with 3952 until the database allows it', async () => {
    const p = await pool('Snap');
    const t = new sql.Transaction(p);
    await t.begin(sql.ISOLATION_LEVEL.SNAPSHOT);
    const e = await error(new sql.Request(t).query('SELECT COUNT(*) AS n FROM dbo.Ledger'));
    expect(e?.number).toBe(3952);
    expect(e?.message).toBe(
      "Snapshot isolation transaction failed accessing database 'Snap' because snapshot isolation is not allowed in this database. Use ALTER DATABASE to allow snapshot isolation.",
    );
    await t.rollback();
  });

  it('reads one snapshot while another session commits, and sees the new rows afterwards', async () => {
    const reader = await pool('Snap');
    const writer = await pool('Snap');
    await writer.request().query('ALTER DATABASE Snap SET ALLOW_SNAPSHOT_ISOLATION ON');
    await writer.request().query("INSERT INTO dbo.Ledger VALUES (1, N'before')");
    const t = new sql.Transaction(reader);
    await t.begin(sql.ISOLATION_LEVEL.SNAPSHOT);
    expect(await count(t)).toBe(1);
    await writer.request().query("INSERT INTO dbo.Ledger VALUES (2, N'during')");
    expect(await count(writer)).toBe(2);
    expect(await count(t)).toBe(1);
    await t.commit();
    expect(await count(reader)).toBe(2);
  });

  it('aborts a snapshot writer whose rows changed under it with 3960', async () => {
    const a = await pool('Snap');
    const b = await pool('Snap');
    const t = new sql.Transaction(a);
    await t.begin(sql.ISOLATION_LEVEL.SNAPSHOT);
    expect(await count(t)).toBe(2);
    await b.request().query("UPDATE dbo.Ledger SET Note = N'changed' WHERE Id = 1");
    const e = await error(new sql.Request(t).query("UPDATE dbo.Ledger SET Note = N'mine' WHERE Id = 1"));
    expect(e?.number).toBe(3960);
    await t.rollback();
  });

  it('makes a second writer wait no longer than the lock timeout (1222)', async () => {
    const a = await pool('Snap');
    const b = await pool('Snap');
    await a.request().batch("BEGIN TRAN; UPDATE dbo.Ledger SET Note = N'a' WHERE Id = 2");
    const e = await error(b.request().query("UPDATE dbo.Ledger SET Note = N'b' WHERE Id = 2"));
    expect(e?.number).toBe(1222);
    await a.request().batch('ROLLBACK');
  });
});
