// DECFLOAT decoding against the IEEE 754-2008 DPD encodings published with the standard's decimal
// arithmetic specification (decimal64 -7.50, 1, zero, the largest finite values, infinity, NaN), not
// against our own encoder; then encode/decode round trips for the simulated IBM i's side.
import { describe, expect, it } from 'vitest';
import { decodeDecfloat, encodeDecfloat } from '../../../lib/ibmi/decfloat';

const hex = (h: string) => Uint8Array.from(Buffer.from(h, 'hex'));

describe('DECFLOAT (decimal64, decimal128 in DPD)', () => {
  it.each([
    ['A2300000000003D0', 16, '-7.50'],
    ['2238000000000001', 16, '1'],
    ['2238000000000000', 16, '0'],
    ['A238000000000000', 16, '-0'],
    ['77FCFF3FCFF3FCFF', 16, '9.999999999999999E+384'],
    ['7800000000000000', 16, 'Infinity'],
    ['F800000000000000', 16, '-Infinity'],
    ['7C00000000000000', 16, 'NaN'],
    ['7E00000000000000', 16, 'sNaN'],
    ['22080000000000000000000000000001', 34, '1'],
    ['77FFCFF3FCFF3FCFF3FCFF3FCFF3FCFF', 34, '9.999999999999999999999999999999999E+6144'],
  ] as const)('%s as DECFLOAT(%i) is %s', (bytes, digits, text) => {
    expect(decodeDecfloat(hex(bytes), digits)).toBe(text);
  });

  it('keeps every digit and trailing zero, in the standard’s scientific form when the exponent asks', () => {
    for (const [text, digits] of [
      ['1234567890123456', 16],
      ['-0.000001', 16],
      ['1E-7', 16],
      ['1.50E+3', 16],
      ['123.4500', 34],
      ['-1234567890123456789012345678901234', 34],
      ['1E-6176', 34],
      ['1.234E-7', 34],
      ['0.000001234', 34],
    ] as const)
      expect(decodeDecfloat(encodeDecfloat(text, digits), digits)).toBe(text);
  });

  it('every declet round-trips: 000 to 999 in each position', () => {
    for (let n = 0; n < 1000; n++) {
      const digits = String(n).padStart(3, '0');
      const text = `${digits}${digits}${digits}${digits}${digits}1`.replace(/^0+(?=\d)/, '');
      expect(decodeDecfloat(encodeDecfloat(text, 16), 16)).toBe(text);
    }
  });

  it('refuses what a DECFLOAT cannot hold', () => {
    expect(() => encodeDecfloat('12345678901234567', 16)).toThrow(/more than the 16 digits/);
    expect(() => encodeDecfloat('1E+400', 16)).toThrow(/out of the range/);
  });
});
