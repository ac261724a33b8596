// sql_variant in the simulated SQL Server, through the real `mssql` driver: each value keeps the base
// type it was written with (a literal's own type, a parameter's declared type, a CAST's target), sent
// as SQL Server sends a variant (the driver decodes it by that base type), told by
// SQL_VARIANT_PROPERTY and converted back by CAST/CONVERT.
import sql from 'mssql';
import { beforeAll, describe, expect, it } from 'vitest';
import { sandboxSession } from '../../../test/helpers/sandbox';

const session = sandboxSession(`CREATE TABLE dbo.Settings (Id INT PRIMARY KEY, V SQL_VARIANT NULL);
    INSERT INTO dbo.Settings VALUES (1, 12.50), (2, N'abc'), (3, 'abc'),
      (4, CAST('2026-11-24 10:00:00.1234567' AS datetime2(7))), (5, 5), (6, 0x00FF), (7, CAST(1.5 AS float)),
      (8, CAST(922337203685477.5807 AS money)), (9, NULL), (10, 12345678901234567890.123456789);`);
beforeAll(async () => {
  await session.pool
    .request()
    .input('big', sql.BigInt, '9007199254740993')
    .query('INSERT INTO dbo.Settings VALUES (11, @big)');
});

describe('sql_variant', () => {
  it('keeps each value with its base type, precision, scale and length', async () => {
    const r = await session.pool
      .request()
      .query<{ Id: number; T: string | null; P: number; S: number; L: number }>(
        `SELECT Id, CONVERT(sysname, SQL_VARIANT_PROPERTY(V, 'BaseType')) AS T,
          CONVERT(int, SQL_VARIANT_PROPERTY(V, 'Precision')) AS P, CONVERT(int, SQL_VARIANT_PROPERTY(V, 'Scale')) AS S,
          CONVERT(int, SQL_VARIANT_PROPERTY(V, 'MaxLength')) AS L
        FROM dbo.Settings ORDER BY Id`,
      );
    expect(r.recordset.map((x) => [x.Id, x.T, x.P, x.S])).toEqual([
      [1, 'numeric', 4, 2],
      [2, 'nvarchar', 0, 0],
      [3, 'varchar', 0, 0],
      [4, 'datetime2', 27, 7],
      [5, 'int', 10, 0],
      [6, 'varbinary', 0, 0],
      [7, 'float', 53, 0],
      [8, 'money', 19, 4],
      [9, null, null, null],
      [10, 'numeric', 29, 9],
      [11, 'bigint', 19, 0],
    ]);
    expect(r.recordset.find((x) => x.Id === 2)?.L).toBe(6);
  });

  it('goes out as a variant the driver decodes by its base type', async () => {
    const r = await session.pool
      .request()
      .query<{ Id: number; V: unknown }>('SELECT Id, V FROM dbo.Settings ORDER BY Id');
    const v = (id: number) => r.recordset.find((x) => x.Id === id)?.V;
    expect(v(1)).toBe(12.5);
    expect(v(2)).toBe('abc');
    expect(v(5)).toBe(5);
    expect(v(6)).toEqual(Buffer.from([0, 255]));
    expect(v(7)).toBe(1.5);
    expect(v(9)).toBeNull();
    expect((v(4) as Date).toISOString()).toBe('2026-11-24T10:00:00.123Z');
  });

  it('CAST and CONVERT read the value as its base type: every digit of a numeric, money at four places', async () => {
    const r = await session.pool
      .request()
      .query<{ Id: number; Text: string }>(
        `SELECT Id, CONVERT(nvarchar(4000), V) AS Text FROM dbo.Settings WHERE Id IN (1, 4, 10, 11) ORDER BY Id`,
      );
    expect(r.recordset.map((x) => x.Text)).toEqual([
      '12.50',
      '2026-11-24 10:00:00.1234567',
      '12345678901234567890.123456789',
      '9007199254740993',
    ]);
    const money = await session.pool
      .request()
      .query<{ M: string }>(
        'SELECT CONVERT(varchar(30), CONVERT(money, V), 2) AS M FROM dbo.Settings WHERE Id = 8',
      );
    expect(money.recordset[0]?.M).toBe('922337203685477.5807');
  });
});
