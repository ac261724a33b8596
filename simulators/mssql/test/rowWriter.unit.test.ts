// The simulated SQL Server writes rows in place with a writer per common type. A client reads those
// bytes as SQL Server's, so each writer must give exactly what writeValue gives (the reference, which
// every other type and unusual value still goes through), and the exact-decimal shortcut exactly what
// the bigint way gives.
import { describe, expect, it } from 'vitest';
import { ByteSink, valueWriter } from '../tds/rowWriter';
import { TokenWriter, TOKEN, type Column } from '../tds/tokens';
import { type SqlType, type SqlValue } from '../tds/dataTypes/sqlTypes';
import { decimalToUnscaled, exactText, smallUnscaled, unscaledToDecimal } from '../tds/dataTypes/decimalText';
import { writeValue } from '../tds/dataTypes/values';
import { exactDigits } from '../tsql/exactDecimals';

const written = (t: SqlType, v: SqlValue) => {
  const sink = new ByteSink();
  valueWriter(t)(sink, v);
  return sink.take();
};

const datetimes = [
  '2026-01-01 10:00:00',
  '2026-01-01 10:00:00.123',
  '0001-01-01 00:00:00.0000000',
  '9999-12-31 23:59:59.9999999',
  '2024-02-29 12:34:56.5',
  '2026-01-01 23:59:59.9996',
  '2026-01-01T10:00:00',
  '2026-01-01',
];
const decimals: SqlValue[] = [
  '0.00',
  '-0.00',
  '-0.001',
  '12.5',
  '12.345',
  '12.344',
  '-12.345',
  '999999999.99',
  '5.',
  '.5',
  '+7',
  ' 12.5',
  '12345678901234567890.12',
  '90071992547409.93',
  12.5,
  -3,
  0.1,
  1e-7,
  2 ** 60,
];

const cases: [SqlType, SqlValue[]][] = [
  [{ name: 'bit' }, [true, false, 1, 0, 1n, 0n]],
  [{ name: 'int' }, [0, -1, 2147483647, -2147483648, 7n, '12']],
  [{ name: 'bigint' }, [0n, -1n, 9223372036854775807n, -9223372036854775808n, 5, '6']],
  [{ name: 'nvarchar', length: 50 }, ['', 'customer 1', 'é€😀', 12]],
  [{ name: 'varchar', length: 41 }, ['12.50', 'ÿ', '€ and 😀', 3n]],
  [{ name: 'nchar', length: 1 }, ['I', 'U', '']],
  [{ name: 'nchar', length: 5 }, ['ab', 'abcdef']],
  [{ name: 'char', length: 4 }, ['x', 'wxyz']],
  [{ name: 'nvarchar', length: 'max' }, ['long', '']],
  ...[0, 1, 3, 5, 7].map((scale): [SqlType, SqlValue[]] => [{ name: 'datetime2', scale }, datetimes]),
  [{ name: 'decimal', precision: 12, scale: 2 }, decimals],
  [{ name: 'decimal', precision: 5, scale: 0 }, ['12', '-12.5', '12.49', 99999]],
  [{ name: 'numeric', precision: 38, scale: 10 }, decimals],
  [{ name: 'decimal', precision: 28, scale: 4 }, decimals],
];

describe('the simulated SQL Server’s row writers', () => {
  it.each(cases)('writes %j exactly as writeValue does', (type, values) => {
    for (const v of values)
      expect([v, written(type, v).toString('hex')]).toEqual([v, writeValue(type, v).toString('hex')]);
  });

  it('refuses what writeValue refuses, with its error', () => {
    expect(() => written({ name: 'datetime2', scale: 3 }, 'not a date')).toThrow(/is not a datetime2/);
    expect(() => written({ name: 'decimal', precision: 9, scale: 2 }, 'abc')).toThrow(/is not a number/);
  });

  it('writes a row with nulls as NBCROW, its bitmap and only the values present', () => {
    const columns: Column[] = [
      { name: 'a', type: { name: 'int' }, nullable: true },
      { name: 'b', type: { name: 'nvarchar', length: 10 }, nullable: true },
      ...Array.from({ length: 8 }, (_, i): Column => ({
        name: `m${i}`,
        type: { name: 'bit' },
        nullable: true,
      })),
    ];
    const w = new TokenWriter();
    w.row(columns, [5, null, null, null, null, null, null, null, null, true]);
    w.row(columns, [6, 'x', true, false, true, false, true, false, true, false]);
    const bytes = w.take();
    const expected = Buffer.concat([
      Buffer.from([TOKEN.NBCROW, 0b1111_1110, 0b0000_0001]),
      writeValue({ name: 'int' }, 5),
      writeValue({ name: 'bit' }, true),
      Buffer.from([TOKEN.ROW]),
      writeValue({ name: 'int' }, 6),
      writeValue({ name: 'nvarchar', length: 10 }, 'x'),
      ...[true, false, true, false, true, false, true, false].map((b) => writeValue({ name: 'bit' }, b)),
    ]);
    expect(bytes.toString('hex')).toBe(expected.toString('hex'));
  });

  it('reads decimal text without bigints exactly as decimalToUnscaled does, or leaves it to it', () => {
    const texts = [
      '1',
      '-1',
      '0.005',
      '0.004',
      '-0.005',
      '123.456789',
      '1.',
      '.1',
      '',
      '.',
      '-',
      '1e5',
      '1.2.3',
    ];
    for (let i = 0; i < 2000; i++) {
      const digits = String(Math.floor(Math.random() * 10 ** (1 + (i % 15))));
      const at = i % (digits.length + 1);
      texts.push(`${i % 3 === 0 ? '-' : ''}${digits.slice(0, at)}.${digits.slice(at)}`);
    }
    for (const text of texts)
      for (const scale of [0, 2, 4, 7]) {
        const small = smallUnscaled(text, scale);
        let exact: bigint | null = null;
        try {
          exact = decimalToUnscaled(text, scale);
        } catch {
          // Refused: the shortcut must leave it to the exact way.
        }
        if (small !== null) expect([text, scale, BigInt(small)]).toEqual([text, scale, exact]);
        else if (exact !== null)
          expect(exact > BigInt(Number.MAX_SAFE_INTEGER) || exact < -BigInt(Number.MAX_SAFE_INTEGER)).toBe(
            true,
          );
      }
  });

  it('gives a stored value’s exact digits as the bigint way does', () => {
    const type: SqlType = { name: 'decimal', precision: 38, scale: 3 };
    const values: SqlValue[] = [12.5, -0.0001, 0.1 + 0.2, 1e-7, 2 ** 53 + 2, 1e21, '12.3456', '-0.0004', 7n];
    for (const v of values)
      expect([v, exactDigits(type, v)]).toEqual([
        v,
        unscaledToDecimal(decimalToUnscaled(exactText(v), 3), 3),
      ]);
  });
});
