// CREATE INDEX and DROP INDEX in the simulated SQL Server, through the real `mssql` package, as
// "CREATE INDEX (Transact-SQL)" describes them: listed in sys.indexes, enforced when UNIQUE, refused
// with SQL Server's error numbers; and a session's temporary table indexed and found in tempdb.
import sql from 'mssql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxSqlServer, type SandboxSqlServer } from '..';
import { DBA, sandboxPool } from '../../../test/helpers/sandbox';

let sandbox: SandboxSqlServer;
let pool: sql.ConnectionPool;

beforeAll(async () => {
  sandbox = await startSandboxSqlServer({ logins: [DBA], databases: ['Sales'] });
  pool = await sandboxPool(sandbox, { max: 1 });
  await pool.request().batch(`
    CREATE TABLE dbo.Customers (Id INT NOT NULL, Email NVARCHAR(100) NOT NULL, City NVARCHAR(40) NULL,
      CONSTRAINT PK_Customers PRIMARY KEY CLUSTERED (Id));
    INSERT INTO dbo.Customers VALUES (1, N'a@x', N'Oslo'), (2, N'b@x', N'Oslo');`);
});
afterAll(async () => {
  await pool?.close();
  await sandbox?.close();
});

const refused = (text: string) =>
  pool
    .request()
    .batch(text)
    .then(
      () => undefined,
      (e: unknown) => e as sql.RequestError,
    );

describe('indexes', () => {
  it('lists a new index in sys.indexes and sys.index_columns, and enforces UNIQUE', async () => {
    await pool.request().batch(`CREATE UNIQUE NONCLUSTERED INDEX IX_Email ON dbo.Customers (Email);
      CREATE INDEX IX_City ON dbo.Customers (City DESC, Id)`);
    const { recordset } = await pool.request().query<{
      name: string;
      index_id: number;
      type_desc: string;
      is_unique: boolean;
      columns: number;
    }>(`SELECT i.name, i.index_id, i.type_desc, i.is_unique,
          (SELECT COUNT(*) FROM sys.index_columns c WHERE c.object_id = i.object_id AND c.index_id = i.index_id) AS columns
        FROM sys.indexes i WHERE i.object_id = OBJECT_ID('dbo.Customers') ORDER BY i.index_id`);
    expect(recordset).toEqual([
      { name: 'PK_Customers', index_id: 1, type_desc: 'CLUSTERED', is_unique: true, columns: 1 },
      { name: 'IX_Email', index_id: 2, type_desc: 'NONCLUSTERED', is_unique: true, columns: 1 },
      { name: 'IX_City', index_id: 3, type_desc: 'NONCLUSTERED', is_unique: false, columns: 2 },
    ]);
    const duplicate = await refused(`INSERT INTO dbo.Customers VALUES (3, N'a@x', NULL)`);
    expect(duplicate?.number).toBe(2601);
  });

  it('refuses what SQL Server refuses, with its numbers', async () => {
    expect((await refused('CREATE INDEX IX_Email ON dbo.Customers (City)'))?.number).toBe(1913);
    expect((await refused('CREATE CLUSTERED INDEX CX ON dbo.Customers (City)'))?.number).toBe(1902);
    expect((await refused('CREATE INDEX IX_Nope ON dbo.Customers (Nope)'))?.number).toBe(1911);
    expect((await refused('CREATE INDEX IX_T ON dbo.NoSuchTable (Id)'))?.number).toBe(1088);
    expect((await refused('CREATE UNIQUE INDEX IX_City2 ON dbo.Customers (City)'))?.number).toBe(1505);
    expect((await refused('DROP INDEX PK_Customers ON dbo.Customers'))?.number).toBe(3723);
    expect((await refused('DROP INDEX IX_Gone ON dbo.Customers'))?.number).toBe(3701);
    await pool
      .request()
      .batch('DROP INDEX IF EXISTS IX_Gone ON dbo.Customers; DROP INDEX IX_City ON dbo.Customers');
    const { recordset } = await pool
      .request()
      .query<{ n: number }>(`SELECT COUNT(*) AS n FROM sys.indexes WHERE name = 'IX_City'`);
    expect(recordset[0]?.n).toBe(0);
  });

  it('keeps a filtered index unique among the rows its WHERE takes, and shows its definition', async () => {
    await pool.request()
      .batch(`CREATE TABLE dbo.Versions (Id INT NOT NULL, Name NVARCHAR(20) NULL, EndedAt DATETIME2(3) NULL);
      CREATE UNIQUE INDEX IX_Current ON dbo.Versions (Id) WHERE EndedAt IS NULL;
      INSERT INTO dbo.Versions VALUES (1, N'a', '2026-01-01'), (1, N'b', '2026-01-02'), (1, N'c', NULL)`);
    const duplicate = await refused(`INSERT INTO dbo.Versions VALUES (1, N'd', NULL)`);
    expect(duplicate?.number).toBe(2601);
    await pool.request().batch(`INSERT INTO dbo.Versions VALUES (1, N'd', '2026-01-03'), (2, N'e', NULL)`);
    const { recordset } = await pool
      .request()
      .query<{ has_filter: boolean; filter_definition: string }>(
        `SELECT has_filter, filter_definition FROM sys.indexes WHERE object_id = OBJECT_ID('dbo.Versions') AND name = 'IX_Current'`,
      );
    expect(recordset).toEqual([{ has_filter: true, filter_definition: '([EndedAt] IS NULL)' }]);
    await pool
      .request()
      .batch(
        `CREATE INDEX IX_Some ON dbo.Versions (Name) WHERE (Id IN (1, 2) AND Name <> N'x' AND Id !< -1)`,
      );
    // Only simple comparisons of a column with constants, joined by AND (10735 otherwise).
    for (const where of ['EndedAt IS NULL OR Id > 1', 'Id = Id', 'LEN(Name) > 1', 'NOT Id = 1'])
      expect((await refused(`CREATE INDEX IX_Bad ON dbo.Versions (Id) WHERE ${where}`))?.number, where).toBe(
        10735,
      );
  });

  it('refuses CREATE INDEX, DROP INDEX and ALTER TABLE inside a snapshot transaction (3964), allows CREATE TABLE', async () => {
    await pool.request().batch('ALTER DATABASE Sales SET ALLOW_SNAPSHOT_ISOLATION ON');
    const inSnapshot = async (statement: string) => {
      const tx = new sql.Transaction(pool);
      await tx.begin(sql.ISOLATION_LEVEL.SNAPSHOT);
      try {
        await new sql.Request(tx).batch(statement);
        return undefined;
      } catch (e) {
        return e as sql.RequestError;
      } finally {
        await tx.rollback();
      }
    };
    expect((await inSnapshot('CREATE INDEX IX_Snap ON dbo.Customers (City)'))?.number).toBe(3964);
    expect((await inSnapshot('DROP INDEX IX_Email ON dbo.Customers'))?.number).toBe(3964);
    expect((await inSnapshot('ALTER TABLE dbo.Customers ADD Note INT NULL'))?.number).toBe(3964);
    expect(
      await inSnapshot('CREATE TABLE #snap (Id INT NOT NULL, V BIGINT NOT NULL, PRIMARY KEY (V, Id))'),
    ).toBeUndefined();
  });

  it("indexes a session's temporary table and finds it in tempdb by OBJECT_ID", async () => {
    await pool.request().batch(`CREATE TABLE #keys (Id INT NOT NULL, __ver BIGINT NOT NULL);
      CREATE CLUSTERED INDEX CX_keys ON #keys (__ver);
      INSERT INTO #keys VALUES (1, 5), (2, 3);`);
    const { recordset } = await pool
      .request()
      .query<{ t: number | null; gone: number | null; first: number }>(
        `SELECT OBJECT_ID('tempdb..#keys') AS t, OBJECT_ID('tempdb..#nothing') AS gone,
        (SELECT TOP (1) Id FROM #keys ORDER BY __ver) AS first`,
      );
    expect(recordset[0]?.t).toBeLessThan(0);
    expect(recordset[0]?.gone).toBeNull();
    expect(recordset[0]?.first).toBe(2);
    expect((await refused('CREATE CLUSTERED INDEX CX_keys ON #keys (Id)'))?.number).toBe(1913);
  });
});
