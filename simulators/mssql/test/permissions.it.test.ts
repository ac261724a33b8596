// Limited logins and a case-sensitive collation in the simulated SQL Server, through mssql: the
// failures a DBA meets, with SQL Server's numbers and words.
import sql from 'mssql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxSqlServer, type SandboxSqlServer } from '..';

let sandbox: SandboxSqlServer;
const pools: sql.ConnectionPool[] = [];

async function connect(user: string, database = 'Sales'): Promise<sql.ConnectionPool> {
  const p = await new sql.ConnectionPool({
    server: '127.0.0.1',
    port: sandbox.port,
    user,
    password: 'Pa55-word',
    database,
    options: { encrypt: false },
    pool: { max: 1, min: 0 },
  }).connect();
  pools.push(p);
  return p;
}
const error = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as sql.RequestError,
  );

let admin: sql.ConnectionPool;
let limited: sql.ConnectionPool;

beforeAll(async () => {
  sandbox = await startSandboxSqlServer({
    logins: [
      { name: 'dba', password: 'Pa55-word' },
      {
        name: 'reader',
        password: 'Pa55-word',
        permissions: {
          viewCatalog: false,
          viewChangeTracking: false,
          createSchema: false,
          write: false,
          alter: false,
        },
      },
      { name: 'noserverstate', password: 'Pa55-word', permissions: { viewServerState: false } },
    ],
    databases: ['Sales', 'StrictCase'],
    caseSensitiveDatabases: ['StrictCase'],
  });
  admin = await connect('dba');
  await admin.request().batch(`
    ALTER DATABASE Sales SET CHANGE_TRACKING = ON (CHANGE_RETENTION = 2 DAYS);
    CREATE TABLE dbo.Orders (Id INT PRIMARY KEY, Note NVARCHAR(20));
    ALTER TABLE dbo.Orders ENABLE CHANGE_TRACKING;
    INSERT INTO dbo.Orders VALUES (1, N'one');`);
  limited = await connect('reader');
});
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
  await sandbox?.close();
});

describe('a login without catalog access', () => {
  it("cannot see SYS.SCHEMAS: the spec's 208, Invalid object name 'SYS.SCHEMAS'.", async () => {
    const e = await error(limited.request().query('SELECT name FROM SYS.SCHEMAS'));
    expect(e).toMatchObject({ number: 208, class: 16, message: "Invalid object name 'SYS.SCHEMAS'." });
  });

  it('still reads the tables it may read', async () => {
    expect((await limited.request().query('SELECT Note FROM dbo.Orders')).recordset).toEqual([
      { Note: 'one' },
    ]);
  });
});

describe('a case-sensitive collation', () => {
  it('refuses SYS.SCHEMAS in upper case with the same 208, and accepts sys.schemas', async () => {
    const strict = await connect('dba', 'StrictCase');
    const e = await error(strict.request().query('SELECT name FROM SYS.SCHEMAS'));
    expect(e).toMatchObject({ number: 208, message: "Invalid object name 'SYS.SCHEMAS'." });
    expect((await strict.request().query('SELECT name FROM sys.schemas')).recordset).toEqual([
      { name: 'dbo' },
    ]);
  });
});

describe('sys.dm_tran_commit_table without VIEW SERVER STATE', () => {
  // Microsoft: the view does not reflect real-time changes for such a login; it sees them after a CHECKPOINT.
  it('shows a commit only once a CHECKPOINT has written it out, and says why through HAS_PERMS_BY_NAME', async () => {
    const watcher = await connect('noserverstate');
    await admin.request().batch(`
      CREATE TABLE dbo.Ledger (Id INT PRIMARY KEY);
      ALTER TABLE dbo.Ledger ENABLE CHANGE_TRACKING;
      INSERT INTO dbo.Ledger VALUES (1);`);
    const v = Number(
      (await admin.request().query('SELECT CHANGE_TRACKING_CURRENT_VERSION() AS v')).recordset[0].v,
    );
    const commit = `SELECT commit_ts FROM sys.dm_tran_commit_table WHERE commit_ts = ${v}`;
    expect((await admin.request().query(commit)).recordset).toHaveLength(1);
    expect((await watcher.request().query(commit)).recordset).toEqual([]);
    await admin.request().query('CHECKPOINT');
    expect((await watcher.request().query(commit)).recordset).toEqual([{ commit_ts: String(v) }]);
    const ask =
      "SELECT HAS_PERMS_BY_NAME(NULL, NULL, 'VIEW SERVER STATE') AS state, HAS_PERMS_BY_NAME(NULL, NULL, 'VIEW SERVER PERFORMANCE STATE') AS perf";
    expect((await watcher.request().query(ask)).recordset[0]).toEqual({ state: 0, perf: 0 });
    expect((await admin.request().query(ask)).recordset[0]).toEqual({ state: 1, perf: 1 });
  });
});

describe('permissions', () => {
  it('denies CHANGETABLE without VIEW CHANGE TRACKING (229) and answers NULL for the minimum valid version', async () => {
    const e = await error(limited.request().query('SELECT * FROM CHANGETABLE(CHANGES dbo.Orders, 0) AS CT'));
    expect(e).toMatchObject({
      number: 229,
      class: 14,
      message:
        "The VIEW CHANGE TRACKING permission was denied on the object 'Orders', database 'Sales', schema 'dbo'.",
    });
    const asked = "SELECT CHANGE_TRACKING_MIN_VALID_VERSION(OBJECT_ID('dbo.Orders')) AS v";
    expect((await limited.request().query(asked)).recordset[0].v).toBeNull();
    expect((await admin.request().query(asked)).recordset[0].v).not.toBeNull();
  });

  it('denies CREATE SCHEMA (262) and writes (229)', async () => {
    expect(await error(limited.request().query('CREATE SCHEMA sync'))).toMatchObject({
      number: 262,
      message: "CREATE SCHEMA permission denied in database 'Sales'.",
    });
    expect(await error(limited.request().query("INSERT INTO dbo.Orders VALUES (2, N'two')"))).toMatchObject({
      number: 229,
      message: "The INSERT permission was denied on the object 'Orders', database 'Sales', schema 'dbo'.",
    });
    expect((await error(limited.request().query("UPDATE dbo.Orders SET Note = N'x'")))?.number).toBe(229);
    expect((await error(limited.request().query('DELETE FROM dbo.Orders')))?.number).toBe(229);
  });

  it('refuses to turn Change Tracking on or off without ALTER (4902, as for a table not there)', async () => {
    await admin.request().batch('CREATE TABLE dbo.Beats (Id INT PRIMARY KEY)');
    for (const statement of [
      'ALTER TABLE dbo.Beats ENABLE CHANGE_TRACKING',
      'ALTER TABLE dbo.Orders DISABLE CHANGE_TRACKING',
    ])
      expect(await error(limited.request().query(statement))).toMatchObject({
        number: 4902,
        message: expect.stringContaining('because it does not exist or you do not have permissions'),
      });
    const asked =
      "SELECT HAS_PERMS_BY_NAME('dbo', 'SCHEMA', 'ALTER') AS s, HAS_PERMS_BY_NAME('dbo.Orders', 'OBJECT', 'ALTER') AS o, HAS_PERMS_BY_NAME('nowhere', 'SCHEMA', 'ALTER') AS n";
    expect((await limited.request().query(asked)).recordset[0]).toEqual({ s: 0, o: 0, n: null });
    expect((await admin.request().query(asked)).recordset[0]).toEqual({ s: 1, o: 1, n: null });
    await admin.request().batch('ALTER TABLE dbo.Beats ENABLE CHANGE_TRACKING; DROP TABLE dbo.Beats;');
  });

  it('answers HAS_PERMS_BY_NAME from the same grants, NULL for what does not exist', async () => {
    const ask = `SELECT HAS_PERMS_BY_NAME(NULL, 'DATABASE', 'CREATE SCHEMA') AS create_schema,
      HAS_PERMS_BY_NAME('dbo.Orders', 'OBJECT', 'VIEW CHANGE TRACKING') AS view_ct,
      HAS_PERMS_BY_NAME('dbo.Orders', 'OBJECT', 'INSERT') AS can_insert,
      HAS_PERMS_BY_NAME('dbo.Orders', 'OBJECT', 'SELECT') AS can_select,
      HAS_PERMS_BY_NAME('dbo.Nope', 'OBJECT', 'SELECT') AS missing`;
    expect((await admin.request().query(ask)).recordset[0]).toEqual({
      create_schema: 1,
      view_ct: 1,
      can_insert: 1,
      can_select: 1,
      missing: null,
    });
    expect((await limited.request().query(ask)).recordset[0]).toEqual({
      create_schema: 0,
      view_ct: 0,
      can_insert: 0,
      can_select: 1,
      missing: null,
    });
  });
});

describe('DENY SELECT on one table', () => {
  it('refuses that login the table and its changes (229), others and other tables read on; GRANT gives it back', async () => {
    await admin.request().batch(`CREATE TABLE dbo.Shelf (Id INT PRIMARY KEY, Note NVARCHAR(20));
      ALTER TABLE dbo.Shelf ENABLE CHANGE_TRACKING;
      INSERT INTO dbo.Shelf VALUES (1, N'one');
      DENY SELECT ON OBJECT::dbo.Shelf TO reader;`);
    const said = "The SELECT permission was denied on the object 'Shelf', database 'Sales', schema 'dbo'.";
    expect(await error(limited.request().query('SELECT Note FROM dbo.Shelf'))).toMatchObject({
      number: 229,
      class: 14,
      message: said,
    });
    expect(
      await error(limited.request().query('SELECT o.Id FROM dbo.Orders o JOIN dbo.Shelf s ON s.Id = o.Id')),
    ).toMatchObject({ number: 229, message: said });
    const canSelect = "SELECT HAS_PERMS_BY_NAME('dbo.Shelf', 'OBJECT', 'SELECT') AS v";
    expect((await limited.request().query(canSelect)).recordset[0].v).toBe(0);
    expect((await admin.request().query(canSelect)).recordset[0].v).toBe(1);
    expect((await limited.request().query('SELECT Note FROM dbo.Orders')).recordset).toHaveLength(1);
    expect((await admin.request().query('SELECT Note FROM dbo.Shelf')).recordset).toEqual([{ Note: 'one' }]);

    await admin.request().batch('DENY SELECT ON dbo.Shelf TO dba; GRANT SELECT ON dbo.Shelf TO reader;');
    expect(
      await error(admin.request().query('SELECT * FROM CHANGETABLE(CHANGES dbo.Shelf, 0) AS CT')),
    ).toMatchObject({
      number: 229,
      message: said,
    });
    expect((await limited.request().query('SELECT Note FROM dbo.Shelf')).recordset).toEqual([
      { Note: 'one' },
    ]);
    await admin.request().batch('REVOKE SELECT ON dbo.Shelf FROM dba');
    expect(
      (await admin.request().query('SELECT * FROM CHANGETABLE(CHANGES dbo.Shelf, 0) AS CT')).recordset,
    ).toHaveLength(1);
  });

  it('names a table or a login that does not exist (15151)', async () => {
    expect(await error(admin.request().query('DENY SELECT ON dbo.Nope TO reader'))).toMatchObject({
      number: 15151,
      message: "Cannot find the object 'dbo.Nope', because it does not exist or you do not have permission.",
    });
    expect(await error(admin.request().query('DENY SELECT ON dbo.Orders TO nobody'))).toMatchObject({
      number: 15151,
      message: "Cannot find the user 'nobody', because it does not exist or you do not have permission.",
    });
  });
});

describe('fn_my_permissions', () => {
  const objectPermissions = async (p: sql.ConnectionPool) =>
    (
      await p
        .request()
        .query(
          "SELECT permission_name FROM fn_my_permissions('dbo.Orders', 'OBJECT') WHERE subentity_name = '' ORDER BY permission_name",
        )
    ).recordset.map((r: { permission_name: string }) => r.permission_name);

  it('lists what each login may do on a table, column by column too', async () => {
    expect(await objectPermissions(admin)).toEqual([
      'DELETE',
      'INSERT',
      'REFERENCES',
      'SELECT',
      'UPDATE',
      'VIEW CHANGE TRACKING',
      'VIEW DEFINITION',
    ]);
    expect(await objectPermissions(limited)).toEqual(['REFERENCES', 'SELECT']);
    const columns = await admin
      .request()
      .query(
        "SELECT DISTINCT entity_name, subentity_name FROM sys.fn_my_permissions('dbo.Orders', 'OBJECT') p WHERE subentity_name <> '' ORDER BY subentity_name",
      );
    expect(columns.recordset).toEqual([
      { entity_name: 'dbo.Orders', subentity_name: 'Id' },
      { entity_name: 'dbo.Orders', subentity_name: 'Note' },
    ]);
  });

  it('lists database permissions, and nothing for a table that does not exist', async () => {
    const database = async (p: sql.ConnectionPool) =>
      (
        await p.request().query("SELECT permission_name FROM fn_my_permissions(NULL, 'DATABASE')")
      ).recordset.map((r: { permission_name: string }) => r.permission_name);
    expect(await database(admin)).toContain('CREATE SCHEMA');
    expect(await database(limited)).not.toContain('CREATE SCHEMA');
    expect(await database(limited)).toContain('CONNECT');
    const missing = await admin.request().query("SELECT * FROM fn_my_permissions('dbo.Nope', 'OBJECT')");
    expect(missing.recordset).toEqual([]);
  });
});

describe('sys.database_principals', () => {
  it('lists dbo, the logins as SQL users and the fixed roles; a login without catalog access gets 208', async () => {
    const rows = (
      await admin
        .request()
        .query(
          "SELECT name, principal_id, type, type_desc, is_fixed_role FROM sys.database_principals WHERE type = 'S' OR name = 'db_owner' ORDER BY principal_id",
        )
    ).recordset;
    expect(rows).toEqual([
      { name: 'dbo', principal_id: 1, type: 'S', type_desc: 'SQL_USER', is_fixed_role: false },
      { name: 'guest', principal_id: 2, type: 'S', type_desc: 'SQL_USER', is_fixed_role: false },
      { name: 'INFORMATION_SCHEMA', principal_id: 3, type: 'S', type_desc: 'SQL_USER', is_fixed_role: false },
      { name: 'sys', principal_id: 4, type: 'S', type_desc: 'SQL_USER', is_fixed_role: false },
      { name: 'dba', principal_id: 5, type: 'S', type_desc: 'SQL_USER', is_fixed_role: false },
      { name: 'reader', principal_id: 6, type: 'S', type_desc: 'SQL_USER', is_fixed_role: false },
      { name: 'noserverstate', principal_id: 7, type: 'S', type_desc: 'SQL_USER', is_fixed_role: false },
      { name: 'db_owner', principal_id: 16384, type: 'R', type_desc: 'DATABASE_ROLE', is_fixed_role: true },
    ]);
    const e = await error(limited.request().query('SELECT name FROM sys.database_principals'));
    expect(e).toMatchObject({ number: 208, message: "Invalid object name 'sys.database_principals'." });
  });
});
