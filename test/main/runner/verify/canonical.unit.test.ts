// The compared form of values: a correct replica must compare equal whatever text each side gives,
// and a changed digit, instant or byte must not.
import { describe, expect, it } from 'vitest';
import type { RowValue } from '../../../../main/agents/source';
import { portable } from '../../../../main/agents/targetValues';
import { canonicalValue, decimalValue } from '../../../../main/runner/verify/canonical';

const col = (sourceType: string) => ({ name: 'c', sourceType, nullable: true });

describe('decimals compare by value', () => {
  it.each([
    ['12.50', '12.5'],
    ['-0.00', '0'],
    ['1.5E+3', '1500'],
    ['12345E-2', '123.45'],
    ['007.100', '7.1'],
    ['1E-5', '0.00001'],
    ['-1234567890123456789012345678901234567.8', '-1234567890123456789012345678901234567.8'],
    ['NaN', 'NaN'],
    ['-sNaN', 'NaN'],
  ])('%s is %s', (text, value) => expect(decimalValue(text)).toBe(value));

  it('a digit more or less is a difference', () => {
    expect(decimalValue('12.51')).not.toBe(decimalValue('12.5'));
    expect(decimalValue('120')).not.toBe(decimalValue('12'));
  });
});

describe('times, instants, floats, bytes', () => {
  it('cuts a time to the digits the target keeps and drops trailing zeros', () => {
    const c = col('datetime2(7)');
    expect(canonicalValue(c, '2026-01-01 10:00:00.1234567', 6)).toBe('2026-01-01 10:00:00.123456');
    expect(canonicalValue(c, '2026-01-01 10:00:00.123456', 6)).toBe('2026-01-01 10:00:00.123456');
    expect(canonicalValue(c, '2026-01-01 10:00:00.5000000', Infinity)).toBe(
      canonicalValue(c, '2026-01-01 10:00:00.5', Infinity),
    );
    expect(canonicalValue(c, '2026-01-01 10:00:00', 6)).toBe('2026-01-01 10:00:00');
    expect(canonicalValue(c, '2026-01-01 10:00:00.000001', 6)).not.toBe(
      canonicalValue(c, '2026-01-01 10:00:00', 6),
    );
  });

  it('compares an instant with an offset as its UTC instant', () => {
    const c = col('datetimeoffset(7)');
    const sqlServer = canonicalValue(c, '2026-01-01T10:00:00.1234567+02:00', 6);
    expect(sqlServer).toBe(canonicalValue(c, '2026-01-01 08:00:00.123456+00', 6));
    expect(canonicalValue(c, '1999-12-31T23:00:00-08:00', 6)).toBe(
      canonicalValue(c, '2000-01-01 07:00:00+00', 6),
    );
    expect(sqlServer).not.toBe(canonicalValue(c, '2026-01-01 10:00:00.123456+00', 6));
  });

  it('a REAL compares at single precision, a double at double', () => {
    expect(canonicalValue(col('real'), 0.10000000149011612, 6)).toBe(canonicalValue(col('real'), '0.1', 6));
    expect(canonicalValue(col('float'), 0.10000000149011612, 6)).not.toBe(
      canonicalValue(col('float'), '0.1', 6),
    );
  });

  it('bytes as hex, booleans as 1 or 0, null apart from the empty string', () => {
    expect(canonicalValue(col('varbinary(4)'), Uint8Array.from([0, 255]), 6)).toBe('00ff');
    expect(canonicalValue(col('bit'), true, 6)).toBe(canonicalValue(col('bit'), 1n, 6));
    expect(canonicalValue(col('bit'), 'false', 6)).toBe('0');
    expect(canonicalValue(col('nvarchar(10)'), null, 6)).not.toBe(canonicalValue(col('nvarchar(10)'), '', 6));
  });

  it('a boolean key read back from a target binds as the same value (a repair deletes by it)', () => {
    const c = col('bit');
    for (const v of [true, 1, 1n, '1', 't', 'true']) expect(portable(c, v as RowValue)).toBe(true);
    for (const v of [false, 0, 0n, '0', 'f', 'false']) expect(portable(c, v as RowValue)).toBe(false);
  });
});
