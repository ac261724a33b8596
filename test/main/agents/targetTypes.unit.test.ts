// The column types an IBM i file's columns get at each target (docs/runner.md, "Type mapping (from
// IBM i)"): the table a DBA reads is the table the targets create.
import { describe, expect, it } from 'vitest';
import { typeText } from '../../../main/agents/drivers/mssql/shape';
import { mssqlType } from '../../../main/agents/changeTracking/target';
import { postgresType } from '../../../main/agents/postgresql/columnTypes';
import { sqliteType } from '../../../main/agents/sqlite/target';
import type { ColumnShape } from '../../../main/agents/source';

const column = (sourceType: string): ColumnShape => ({ name: 'C', sourceType, nullable: true });

describe('IBM i column types at the targets', () => {
  const cases: [string, string, string, string][] = [
    ['CHAR(20)', 'TEXT', 'varchar(20)', 'nchar(20)'],
    ['VARCHAR(8000)', 'TEXT', 'varchar(8000)', 'nvarchar(max)'],
    ['GRAPHIC(12)', 'TEXT', 'varchar(12)', 'nchar(12)'],
    ['VARGRAPHIC(30)', 'TEXT', 'varchar(30)', 'nvarchar(30)'],
    ['DECIMAL(31,2)', 'TEXT', 'numeric(31,2)', 'DECIMAL(31,2)'],
    ['NUMERIC(63,10)', 'TEXT', 'numeric(63,10)', 'decimal(38,10)'],
    ['DECIMAL(9,2)', 'TEXT', 'numeric(9,2)', 'DECIMAL(9,2)'],
    ['VARBINARY(8)', 'BLOB', 'bytea', 'VARBINARY(8)'],
    ['BINARY(4)', 'BLOB', 'bytea', 'BINARY(4)'],
    ['TIMESTAMP(0)', 'TEXT', 'timestamp(0)', 'datetime2(0)'],
    ['TIMESTAMP(12)', 'TEXT', 'timestamp(6)', 'datetime2(7)'],
    ['DOUBLE', 'REAL', 'double precision', 'float'],
    ['INTEGER', 'INTEGER', 'integer', 'int'],
    ['DECFLOAT(34)', 'TEXT', 'numeric', 'varchar(50)'],
    ['CLOB(2147483647)', 'TEXT', 'text', 'nvarchar(max)'],
    ['DBCLOB(1048576)', 'TEXT', 'text', 'nvarchar(max)'],
    ['XML', 'TEXT', 'text', 'nvarchar(max)'],
    ['BLOB(1048576)', 'BLOB', 'bytea', 'varbinary(max)'],
    ['BOOLEAN', 'INTEGER', 'boolean', 'bit'],
    ['ROWID', 'BLOB', 'bytea', 'varbinary(40)'],
  ];
  it.each(cases)('%s: SQLite %s, PostgreSQL %s, SQL Server %s', (source, sqlite, pg, mssql) => {
    expect(sqliteType(column(source))).toBe(sqlite);
    expect(postgresType(column(source))).toBe(pg);
    expect(mssqlType(column(source))).toBe(mssql);
  });

  it('SQL Server’s own types pass through to a SQL Server target, text as Unicode', () => {
    expect(mssqlType(column('datetime2(7)'))).toBe('datetime2(7)');
    expect(mssqlType(column('uniqueidentifier'))).toBe('uniqueidentifier');
    expect(mssqlType(column('nvarchar(max)'))).toBe('nvarchar(max)');
    expect(mssqlType(column('varchar(max)'))).toBe('nvarchar(max)');
  });

  it('SQL Server’s rowversion (sys.types: timestamp) is eight bytes at every target, never a date', () => {
    expect(typeText({ type_name: 'timestamp', max_length: 8, precision: 0, scale: 0 })).toBe('rowversion');
    expect(sqliteType(column('rowversion'))).toBe('BLOB');
    expect(postgresType(column('rowversion'))).toBe('bytea');
    expect(mssqlType(column('rowversion'))).toBe('binary(8)');
  });
});
