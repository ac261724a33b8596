// A decimal's one text form (canonicalDecimal): the same answer whether the text was already canonical
// (the quick check) or needs mending (leading zeros, a sign on zero, missing or extra fraction digits),
// against a rule computed here with whole numbers, for thousands of spellings.
import { describe, expect, it } from 'vitest';
import { canonicalDecimal } from '../../../lib/ibmi/decimal';

/** The canonical text by arithmetic: the digits as a whole number at `scale`, cut beyond it. */
function byArithmetic(text: string, scale: number): string {
  const [, sign = '', whole = '', fraction = ''] = /^\s*([+-]?)(\d*)(?:\.(\d*))?\s*$/.exec(text) ?? [];
  const units = BigInt(`${whole}${fraction.padEnd(scale, '0').slice(0, scale)}` || '0');
  const digits = units.toString().padStart(scale + 1, '0');
  const body = scale > 0 ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
  return sign === '-' && units !== 0n ? `-${body}` : body;
}

describe('canonicalDecimal', () => {
  it('keeps a canonical text and mends every other spelling to it', () => {
    expect(canonicalDecimal('12.30', 2)).toBe('12.30');
    expect(canonicalDecimal('-0.05', 2)).toBe('-0.05');
    expect(canonicalDecimal('-0.00', 2)).toBe('0.00');
    expect(canonicalDecimal('007.5', 2)).toBe('7.50');
    expect(canonicalDecimal('12', 0)).toBe('12');
    expect(canonicalDecimal('-0', 0)).toBe('0');
    expect(canonicalDecimal('012', 0)).toBe('12');
    expect(canonicalDecimal('.5', 1)).toBe('0.5');
    expect(canonicalDecimal('1.239', 2)).toBe('1.23');
    expect(() => canonicalDecimal('1.2.3', 2)).toThrow('"1.2.3" is not a decimal number.');
  });

  it('agrees with the arithmetic on thousands of spellings, canonical or not', () => {
    let canonical = 0;
    for (let i = 0; i < 20_000; i++) {
      const scale = i % 5;
      const whole = String((i * 7919) % 100_000)
        .padStart(1 + (i % 3), '0')
        .slice(i % 4 === 0 ? 1 : 0);
      const fraction = String((i * 104_729) % 10 ** scale || '').padStart(scale, '0');
      const spelled = `${['', '-', '+'][i % 3]}${whole}${scale || i % 7 === 0 ? `.${fraction.slice(0, scale - (i % 2))}` : ''}`;
      const text =
        spelled === '' || spelled === '-' || spelled === '+' || spelled.endsWith('-.') ? '0' : spelled;
      const expected = byArithmetic(text, scale);
      if (text === expected) canonical++;
      expect(canonicalDecimal(text, scale), `${text} at scale ${scale}`).toBe(expected);
    }
    // Both paths taken often.
    expect(canonical).toBeGreaterThan(2000);
    expect(canonical).toBeLessThan(18_000);
  });
});
