// Exact numerics, money, rowversion and xml in the simulated SQL Server, through the real `mssql`
// driver: a decimal(38,10) keeps all 38 digits in storage and on the wire (read back as text with
// CONVERT, as a client that needs every digit does), money and smallmoney keep their ranges and four
// places, rowversion is eight bytes drawn anew by every insert and update, xml is text; the legacy
// types (smalldatetime to the minute, text, ntext, image) go over the wire as SQL Server sends them.
import sql from 'mssql';
import { describe, expect, it } from 'vitest';
import { refused, sandboxSession } from '../../../test/helpers/sandbox';

const session =
  sandboxSession(`CREATE TABLE dbo.Amounts (Id INT PRIMARY KEY, Big DECIMAL(38,10) NULL, Cash MONEY NULL,
      Petty SMALLMONEY NULL, Doc XML NULL, Stamp ROWVERSION);
    INSERT INTO dbo.Amounts (Id, Big, Cash, Petty, Doc) VALUES
      (1, 1234567890123456789012345678.1234567890, 922337203685477.5807, 214748.3647, N'<a x="1">é</a>'),
      (2, -9999999999999999999999999999.9999999999, -922337203685477.5808, -214748.3648, NULL),
      (3, 12.5, 0.0001, 1.25, N'<b/>');`);
const { run } = session;

describe('exact numerics', () => {
  it('decimal(38,10) keeps every digit, read as text; ordinary values stay numbers that compare', async () => {
    const r = await session.pool
      .request()
      .query<{ Id: number; Big: string }>(
        'SELECT Id, CONVERT(varchar(41), Big) AS Big FROM dbo.Amounts ORDER BY Id',
      );
    expect(r.recordset.map((x) => x.Big)).toEqual([
      '1234567890123456789012345678.1234567890',
      '-9999999999999999999999999999.9999999999',
      // SQL Server writes a decimal as text at its scale: 12.5 in a decimal(38,10) is 12.5000000000.
      '12.5000000000',
    ]);
    const small = await session.pool
      .request()
      .query<{ Id: number }>('SELECT Id FROM dbo.Amounts WHERE Big > 10 AND Big < 13');
    expect(small.recordset).toEqual([{ Id: 3 }]);
    // On the wire, as DECIMALN with precision 38 and scale 10 (tedious hands it on as a number).
    const typed = await session.pool.request().query('SELECT Big FROM dbo.Amounts WHERE Id = 3');
    expect(typed.recordset.columns.Big?.precision).toBe(38);
    expect(typed.recordset.columns.Big?.scale).toBe(10);
    expect(typed.recordset[0].Big).toBe(12.5);
  });

  it('a decimal parameter is stored exactly and compares as a number', async () => {
    await session.pool
      .request()
      .input('v', sql.Decimal(38, 10), 7.25)
      .query('INSERT INTO dbo.Amounts (Id, Big) VALUES (4, @v)');
    const r = await session.pool
      .request()
      .input('v', sql.Decimal(10, 2), 7.25)
      .query<{ Id: number }>('SELECT Id FROM dbo.Amounts WHERE Big = @v');
    expect(r.recordset).toEqual([{ Id: 4 }]);
  });

  it('text written into or compared with a decimal column converts to the column’s type, as SQL Server does', async () => {
    await session.pool
      .request()
      .input('v', sql.NVarChar(50), '12.50')
      .query('UPDATE dbo.Amounts SET Big = @v WHERE Id = 3');
    const r = await session.pool
      .request()
      .input('t', sql.NVarChar(50), '12.5000000000')
      .input('long', sql.NVarChar(50), '1234567890123456789012345678.12345678904')
      .query<{ Id: number }>('SELECT Id FROM dbo.Amounts WHERE Big = @t OR Big = @long ORDER BY Id');
    expect(r.recordset).toEqual([{ Id: 1 }, { Id: 3 }]);
  });

  it('a decimal past its precision is refused with 8115', async () => {
    const e = await refused(
      run('INSERT INTO dbo.Amounts (Id, Big) VALUES (5, 123456789012345678901234567890.1)'),
    );
    expect(e?.number).toBe(8115);
  });
});

describe('money and smallmoney', () => {
  it('keep their extremes to the ten-thousandth, on the wire and as text (style 2)', async () => {
    const r = await session.pool
      .request()
      .query<{ Cash: string; Petty: string }>(
        'SELECT CONVERT(varchar(30), Cash, 2) AS Cash, CONVERT(varchar(30), Petty, 2) AS Petty FROM dbo.Amounts WHERE Id IN (1, 2) ORDER BY Id',
      );
    expect(r.recordset).toEqual([
      { Cash: '922337203685477.5807', Petty: '214748.3647' },
      { Cash: '-922337203685477.5808', Petty: '-214748.3648' },
    ]);
    const wire = await session.pool.request().query('SELECT Cash, Petty FROM dbo.Amounts WHERE Id = 3');
    expect(wire.recordset[0]).toEqual({ Cash: 0.0001, Petty: 1.25 });
    expect(wire.recordset.columns.Cash?.type).toBe(sql.Money);
    expect(wire.recordset.columns.Petty?.type).toBe(sql.SmallMoney);
  });

  it('a value past money’s range is refused with 8115; money parameters are taken', async () => {
    const e = await refused(run('INSERT INTO dbo.Amounts (Id, Cash) VALUES (6, 922337203685477.5808)'));
    expect(e?.number).toBe(8115);
    await session.pool
      .request()
      .input('m', sql.Money, 1234.5678)
      .query('INSERT INTO dbo.Amounts (Id, Cash) VALUES (7, @m)');
    const r = await session.pool
      .request()
      .query<{ c: string }>('SELECT CONVERT(varchar(30), Cash, 2) AS c FROM dbo.Amounts WHERE Id = 7');
    expect(r.recordset[0]?.c).toBe('1234.5678');
  });

  it('CAST to money rounds to four places; style 0 shows two, style 1 commas', async () => {
    const r = await session.pool
      .request()
      .query<{ a: number; b: string; c: string }>(
        "SELECT CAST('1234567.123456' AS money) AS a, CONVERT(varchar(30), CAST(1234567.125 AS money)) AS b, CONVERT(varchar(30), CAST(1234567.125 AS money), 1) AS c",
      );
    expect(r.recordset[0]).toEqual({ a: 1234567.1235, b: '1234567.13', c: '1,234,567.13' });
  });
});

describe('rowversion', () => {
  it('is eight bytes, NOT NULL, shown as timestamp in sys.types; every insert and update takes a new, larger value', async () => {
    const stamps = async () =>
      (
        await session.pool
          .request()
          .query<{ Id: number; Stamp: Buffer }>('SELECT Id, Stamp FROM dbo.Amounts ORDER BY Id')
      ).recordset;
    const before = await stamps();
    expect(before.every((r) => Buffer.isBuffer(r.Stamp) && r.Stamp.length === 8)).toBe(true);
    expect(new Set(before.map((r) => r.Stamp.toString('hex'))).size).toBe(before.length);
    await run('UPDATE dbo.Amounts SET Petty = 2 WHERE Id = 3');
    const after = await stamps();
    const stampOf = (rows: typeof before, id: number) =>
      rows.find((r) => r.Id === id)?.Stamp ?? Buffer.alloc(8);
    expect(Buffer.compare(stampOf(after, 3), Buffer.concat(before.map((r) => r.Stamp)).subarray(-8))).toBe(1);
    expect(stampOf(after, 1)).toEqual(stampOf(before, 1));
    const col = await session.pool.request().query<{ t: string; n: boolean; l: number }>(
      `SELECT ty.name AS t, c.is_nullable AS n, c.max_length AS l FROM sys.columns c
         JOIN sys.types ty ON ty.user_type_id = c.user_type_id
        WHERE c.object_id = OBJECT_ID('dbo.Amounts') AND c.name = 'Stamp'`,
    );
    expect(col.recordset[0]).toEqual({ t: 'timestamp', n: false, l: 8 });
  });
});

describe('xml', () => {
  it('is text with its non-Latin characters, typed xml on the wire and in sys.types', async () => {
    const r = await session.pool.request().query('SELECT Doc FROM dbo.Amounts WHERE Id = 1');
    expect(r.recordset[0].Doc).toBe('<a x="1">é</a>');
    expect(r.recordset.columns.Doc?.type).toBe(sql.Xml);
    const t = await session.pool
      .request()
      .query<{ t: string }>(
        "SELECT ty.name AS t FROM sys.columns c JOIN sys.types ty ON ty.user_type_id = c.user_type_id WHERE c.object_id = OBJECT_ID('dbo.Amounts') AND c.name = 'Doc'",
      );
    expect(t.recordset[0]?.t).toBe('xml');
  });
});

describe('smalldatetime, text, ntext and image', () => {
  it('round-trip through the driver; smalldatetime rounds to the minute at 29.999 seconds (29.998 rounds down)', async () => {
    await run(`CREATE TABLE dbo.Legacy (Id INT PRIMARY KEY, At SMALLDATETIME NULL, Note TEXT NULL,
        Said NTEXT NULL, Picture IMAGE NULL);
      INSERT INTO dbo.Legacy VALUES (1, '2026-11-24 10:00:29.999', 'plain text', N'Ελληνικά 東京 🚀', 0x89504E47),
        (2, '2026-11-24 10:00:29.998', NULL, NULL, NULL);`);
    const r = await session.pool
      .request()
      .query<{ Id: number; At: Date; Note: string | null; Said: string | null; Picture: Buffer | null }>(
        'SELECT Id, At, Note, Said, Picture FROM dbo.Legacy ORDER BY Id',
      );
    expect(r.recordset.map((x) => x.At.toISOString())).toEqual([
      '2026-11-24T10:01:00.000Z',
      '2026-11-24T10:00:00.000Z',
    ]);
    expect(r.recordset[0]).toMatchObject({ Note: 'plain text', Said: 'Ελληνικά 東京 🚀' });
    expect(r.recordset[0]?.Picture).toEqual(Buffer.from('89504e47', 'hex'));
    expect(r.recordset[1]).toMatchObject({ Note: null, Said: null, Picture: null });
    expect(r.recordset.columns.At?.type).toBe(sql.SmallDateTime);
    expect(r.recordset.columns.Note?.type).toBe(sql.Text);
    expect(r.recordset.columns.Said?.type).toBe(sql.NText);
    expect(r.recordset.columns.Picture?.type).toBe(sql.Image);
    const types = await session.pool.request().query<{ c: string; t: string; l: number }>(
      `SELECT c.name AS c, ty.name AS t, c.max_length AS l FROM sys.columns c
         JOIN sys.types ty ON ty.user_type_id = c.user_type_id
        WHERE c.object_id = OBJECT_ID('dbo.Legacy') AND c.name <> 'Id' ORDER BY c.column_id`,
    );
    expect(types.recordset).toEqual([
      { c: 'At', t: 'smalldatetime', l: 4 },
      { c: 'Note', t: 'text', l: 16 },
      { c: 'Said', t: 'ntext', l: 16 },
      { c: 'Picture', t: 'image', l: 16 },
    ]);
  });

  it('a smalldatetime out of its range is refused with 242', async () => {
    const e = await refused(session.pool.request().query("SELECT CAST('2079-06-07' AS smalldatetime) AS x"));
    expect(e?.number).toBe(242);
  });
});

describe('sql_variant', () => {
  it('goes over the wire as SSVARIANT with the base type of the value written', async () => {
    await run(`CREATE TABLE dbo.Settings (Id INT PRIMARY KEY, Value SQL_VARIANT NULL);
      INSERT INTO dbo.Settings VALUES (1, 3), (2, N'東京'), (3, 0x0102), (4, NULL), (5, 9000000000);`);
    const r = await session.pool
      .request()
      .query<{ Value: unknown }>('SELECT Value FROM dbo.Settings ORDER BY Id');
    // 9000000000 is past int: SQL Server types the literal numeric(10,0), which the driver reads as a number.
    expect(r.recordset.map((x) => x.Value)).toEqual([3, '東京', Buffer.from([1, 2]), null, 9000000000]);
    expect(r.recordset.columns.Value?.type).toBe(sql.Variant);
  });
});
