// Catalog views of the simulated SQL Server, queried as a DBA tool queries them, through mssql.
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
  pool = await sandboxPool(sandbox, { max: 1 });
  await pool.request().batch(`
    CREATE SCHEMA sales;
    CREATE TABLE sales.Orders (OrderId INT NOT NULL PRIMARY KEY, Customer NVARCHAR(60) NOT NULL, Amount DECIMAL(12, 2) NULL, PlacedAt DATETIME2(3) NOT NULL);
    CREATE TABLE dbo.Events (Id BIGINT IDENTITY(1,1) NOT NULL, Payload VARCHAR(MAX) NULL, CONSTRAINT UQ_Events UNIQUE (Id));
    CREATE TABLE dbo.Heap (Note NCHAR(10));`);
});
afterAll(async () => {
  await pool?.close();
  await sandbox?.close();
});

const rows = async (query: string) =>
  (await pool.request().query(query)).recordset as Record<string, unknown>[];

describe('catalog views', () => {
  it('sys.schemas numbers schemas as SQL Server does', async () => {
    expect(await rows('SELECT name, schema_id FROM sys.schemas ORDER BY schema_id')).toEqual([
      { name: 'dbo', schema_id: 1 },
      { name: 'sales', schema_id: 5 },
    ]);
  });

  it('sys.tables joined to sys.schemas lists the tables with their schema, typed as sysname', async () => {
    const answer = await pool
      .request()
      .query(
        'SELECT s.name AS schema_name, t.name AS table_name, t.type, t.type_desc FROM sys.tables t JOIN sys.schemas s ON s.schema_id = t.schema_id ORDER BY s.name, t.name',
      );
    expect(answer.recordset).toEqual([
      { schema_name: 'dbo', table_name: 'Events', type: 'U ', type_desc: 'USER_TABLE' },
      { schema_name: 'dbo', table_name: 'Heap', type: 'U ', type_desc: 'USER_TABLE' },
      { schema_name: 'sales', table_name: 'Orders', type: 'U ', type_desc: 'USER_TABLE' },
    ]);
    expect(answer.recordset.columns.table_name?.type).toBe(sql.NVarChar);
    expect(answer.recordset.columns.table_name?.length).toBe(256);
  });

  it('sys.columns gives type ids, lengths, precision, scale and nullability', async () => {
    const cols = await rows(`
      SELECT c.name, c.column_id, c.system_type_id, c.max_length, c.precision, c.scale, c.is_nullable, c.is_identity
      FROM sys.columns c JOIN sys.tables t ON t.object_id = c.object_id WHERE t.name = 'Orders' ORDER BY c.column_id`);
    expect(cols).toEqual([
      {
        name: 'OrderId',
        column_id: 1,
        system_type_id: 56,
        max_length: 4,
        precision: 10,
        scale: 0,
        is_nullable: false,
        is_identity: false,
      },
      {
        name: 'Customer',
        column_id: 2,
        system_type_id: 231,
        max_length: 120,
        precision: 0,
        scale: 0,
        is_nullable: false,
        is_identity: false,
      },
      {
        name: 'Amount',
        column_id: 3,
        system_type_id: 106,
        max_length: 9,
        precision: 12,
        scale: 2,
        is_nullable: true,
        is_identity: false,
      },
      {
        name: 'PlacedAt',
        column_id: 4,
        system_type_id: 42,
        max_length: 7,
        precision: 23,
        scale: 3,
        is_nullable: false,
        is_identity: false,
      },
    ]);
  });

  it('names each column type through sys.types', async () => {
    const types = await rows(`
      SELECT c.name, ty.name AS type_name FROM sys.columns c JOIN sys.types ty ON ty.user_type_id = c.user_type_id
      WHERE c.object_id = (SELECT object_id FROM sys.tables WHERE name = 'Events') ORDER BY c.column_id`);
    expect(types).toEqual([
      { name: 'Id', type_name: 'bigint' },
      { name: 'Payload', type_name: 'varchar' },
    ]);
  });

  it('finds the tables without a primary key, as a change-tracking check does', async () => {
    const found = await rows(`
      SELECT s.name AS schema_name, t.name AS table_name FROM sys.tables t JOIN sys.schemas s ON s.schema_id = t.schema_id
      WHERE NOT EXISTS (SELECT 1 FROM sys.key_constraints k WHERE k.parent_object_id = t.object_id AND k.type = 'PK')
      ORDER BY t.name`);
    expect(found).toEqual([
      { schema_name: 'dbo', table_name: 'Events' },
      { schema_name: 'dbo', table_name: 'Heap' },
    ]);
  });

  it('sys.indexes has the clustered primary key, unique constraints and heaps; sys.index_columns their columns', async () => {
    const indexes = await rows(`
      SELECT t.name AS table_name, i.name, i.index_id, i.type_desc, i.is_primary_key, i.is_unique_constraint
      FROM sys.indexes i JOIN sys.tables t ON t.object_id = i.object_id ORDER BY t.name, i.index_id`);
    expect(indexes).toEqual([
      {
        table_name: 'Events',
        name: null,
        index_id: 0,
        type_desc: 'HEAP',
        is_primary_key: false,
        is_unique_constraint: false,
      },
      {
        table_name: 'Events',
        name: 'UQ_Events',
        index_id: 2,
        type_desc: 'NONCLUSTERED',
        is_primary_key: false,
        is_unique_constraint: true,
      },
      {
        table_name: 'Heap',
        name: null,
        index_id: 0,
        type_desc: 'HEAP',
        is_primary_key: false,
        is_unique_constraint: false,
      },
      {
        table_name: 'Orders',
        name: 'PK_Orders',
        index_id: 1,
        type_desc: 'CLUSTERED',
        is_primary_key: true,
        is_unique_constraint: false,
      },
    ]);
    const keyColumns = await rows(`
      SELECT c.name FROM sys.index_columns ic JOIN sys.columns c ON c.object_id = ic.object_id AND c.column_id = ic.column_id
      JOIN sys.indexes i ON i.object_id = ic.object_id AND i.index_id = ic.index_id WHERE i.is_primary_key = 1`);
    expect(keyColumns).toEqual([{ name: 'OrderId' }]);
  });

  it('INFORMATION_SCHEMA.TABLES and COLUMNS answer in their own terms', async () => {
    expect(
      await rows(
        "SELECT TABLE_CATALOG, TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME = 'Orders'",
      ),
    ).toEqual([
      { TABLE_CATALOG: 'Sales', TABLE_SCHEMA: 'sales', TABLE_NAME: 'Orders', TABLE_TYPE: 'BASE TABLE' },
    ]);
    expect(
      await rows(
        "SELECT COLUMN_NAME, DATA_TYPE, CHARACTER_MAXIMUM_LENGTH, IS_NULLABLE FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_NAME = 'Events' ORDER BY ORDINAL_POSITION",
      ),
    ).toEqual([
      { COLUMN_NAME: 'Id', DATA_TYPE: 'bigint', CHARACTER_MAXIMUM_LENGTH: null, IS_NULLABLE: 'NO' },
      { COLUMN_NAME: 'Payload', DATA_TYPE: 'varchar', CHARACTER_MAXIMUM_LENGTH: -1, IS_NULLABLE: 'YES' },
    ]);
  });

  it('accepts any case for catalog names under the default case-insensitive collation', async () => {
    expect((await rows('SELECT COUNT(*) AS n FROM SYS.SCHEMAS'))[0]?.n).toBe(2);
  });
});

describe('sys.databases', () => {
  it('lists the server’s databases with their snapshot isolation state', async () => {
    const before = await rows(
      "SELECT name, snapshot_isolation_state, snapshot_isolation_state_desc, is_read_committed_snapshot_on FROM sys.databases WHERE name = 'Sales'",
    );
    expect(before).toEqual([
      {
        name: 'Sales',
        snapshot_isolation_state: 0,
        snapshot_isolation_state_desc: 'OFF',
        is_read_committed_snapshot_on: false,
      },
    ]);
    await pool.request().query('ALTER DATABASE Sales SET ALLOW_SNAPSHOT_ISOLATION ON');
    const after = await rows(
      'SELECT snapshot_isolation_state_desc FROM sys.databases WHERE name = DB_NAME()',
    );
    expect(after).toEqual([{ snapshot_isolation_state_desc: 'ON' }]);
  });
});
