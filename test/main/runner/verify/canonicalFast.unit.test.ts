// The compared forms' quick paths give what the general rules give, for every shape of value a
// driver hands over (decimals with zeros at either end, signs, exponents; times with and without
// fractions, `T`, blanks): a verify's verdict never depends on which path a value took.
import { describe, expect, it } from 'vitest';
import { canonicalOf, canonicalValue, decimalValue } from '../../../../main/runner/verify/canonical';

describe('the compared forms', () => {
  it('give a decimal the same text on the quick path as by the general rules', () => {
    expect(decimalValue(' -0012.5000')).toBe('-12.5');
    const samples = [
      '0',
      '-0',
      '0.0',
      '00.00',
      '.5',
      '5.',
      '-.50',
      '12.50',
      '-0012.5000',
      '100',
      '1e3',
      '+7',
      ' 3.10 ',
      '-',
      '.',
      '',
      'NaN',
      '1.2.3',
      '0.000100',
      '-0.000',
    ];
    for (let i = 0; i < 3000; i++) {
      const whole = String(Math.floor(Math.random() * 10 ** (i % 8))).padStart((i % 3) + 1, '0');
      const fraction = String(Math.floor(Math.random() * 10 ** (i % 6))).padEnd(i % 7, '0');
      samples.push(`${i % 2 ? '-' : ''}${whole}${i % 5 ? `.${fraction}` : ''}`);
    }
    // A blank in front keeps a value off the quick path: the general rules trim it, then apply.
    for (const s of samples) expect(decimalValue(s), s).toBe(decimalValue(` ${s}`));
  });

  it('keep a time as the rules keep it, cut to the digits a target holds', () => {
    const c = { name: 'At', sourceType: 'datetime2(7)', nullable: true };
    const cases: [string, number, string][] = [
      ['2026-01-01 10:00:00.123', Infinity, '2026-01-01 10:00:00.123'],
      ['2026-01-01 10:00:00.120', Infinity, '2026-01-01 10:00:00.12'],
      ['2026-01-01 10:00:00.000', Infinity, '2026-01-01 10:00:00'],
      ['2026-01-01T10:00:00.5', Infinity, '2026-01-01 10:00:00.5'],
      ['2026-01-01 10:00:00.1234567', 6, '2026-01-01 10:00:00.123456'],
      ['2026-01-01 10:00:00.1234567', 7, '2026-01-01 10:00:00.1234567'],
      ['2026-01-01 10:00:00', 3, '2026-01-01 10:00:00'],
      ['2026-01-01 10:00:00.123000', Infinity, '2026-01-01 10:00:00.123'],
      ['2026-01-01 10:00:00.000000', 6, '2026-01-01 10:00:00'],
      ['2026-01-01 10:00:00.1230000', 6, '2026-01-01 10:00:00.123'],
      ['10:00:00.50', Infinity, '10:00:00.5'],
      [' 2026-01-01 10:00:00.5 ', Infinity, '2026-01-01 10:00:00.5'],
      // No digits after the point: the general rule keeps the text as it is.
      ['2026-01-01 10:00:00.', Infinity, '2026-01-01 10:00:00.'],
    ];
    for (const [text, digits, want] of cases) expect(canonicalValue(c, text, digits), text).toBe(want);
  });

  it('give each column its conversion, chosen once, as the general dispatch gives it', () => {
    const values: unknown[] = [
      null,
      '12.50',
      ' -0012.5000',
      '1e3',
      12.5,
      7n,
      '2026-01-01 10:00:00.120',
      '2026-01-01T10:00:00.5',
      ' 10:00:00.50 ',
      '2026-01-01',
      'text',
    ];
    for (const sourceType of [
      'decimal(12,2)',
      'numeric(38,10)',
      'datetime2(7)',
      'date',
      'time(3)',
      'int',
      'nvarchar(20)',
    ])
      for (const digits of [3, 6, Infinity]) {
        const c = { name: 'C', sourceType, nullable: true };
        const one = canonicalOf(c, digits);
        for (const v of values) {
          let general: string;
          try {
            general = canonicalValue(c, v, digits);
          } catch (error) {
            expect(() => one(v), `${sourceType} ${String(v)}`).toThrow((error as Error).message);
            continue;
          }
          expect(one(v), `${sourceType} ${String(v)}`).toBe(general);
        }
      }
  });

  it('give a whole number read back as text the text the general rules give', () => {
    const c = { name: 'Id', sourceType: 'bigint', nullable: false };
    const one = canonicalOf(c, Infinity);
    const samples = [
      '0',
      '-0',
      '007',
      '-012',
      '12',
      '-12',
      '+5',
      ' 5',
      '9007199254740993',
      '-9223372036854775808',
    ];
    for (let i = 0; i < 2000; i++)
      samples.push(String((i % 2 ? -1 : 1) * Math.floor(Math.random() * 10 ** (i % 16))));
    for (const s of samples) expect(one(s), s).toBe(canonicalValue(c, s, Infinity));
    expect(one('-0')).toBe('0');
    expect(one('007')).toBe('7');
  });
});
