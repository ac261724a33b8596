// Exact decimals as text and as unscaled integers: how decimal, numeric and money values are kept and sent.
import { ValueError, type SqlValue } from './sqlTypes';

export function decimalToUnscaled(text: string, scale: number): bigint {
  const m = /^([+-])?(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) throw new ValueError(`'${text}' is not a number.`);
  const fraction = (m[3] ?? '').padEnd(scale, '0');
  const kept = BigInt((m[2] || '0') + fraction.slice(0, scale));
  const roundUp = scale < fraction.length && Number(fraction[scale]) >= 5 ? 1n : 0n;
  const magnitude = kept + roundUp;
  return m[1] === '-' ? -magnitude : magnitude;
}
/**
 * decimalToUnscaled's answer as a number when the text is plain (sign, digits, one point) and the
 * unscaled value is a safe integer; null otherwise, for decimalToUnscaled to read or refuse. The same
 * rounding (half up on the first dropped digit), without a regular expression or a bigint per value.
 */
export function smallUnscaled(text: string, scale: number): number | null {
  let i = 0;
  const first = text.charCodeAt(0);
  const negative = first === 45;
  if (negative || first === 43) i = 1;
  let units = 0;
  let places = -1;
  let digits = 0;
  let roundUp = false;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 46 && places < 0) {
      places = 0;
      continue;
    }
    const d = c - 48;
    if (d < 0 || d > 9) return null;
    digits++;
    if (places < 0) units = units * 10 + d;
    else if (places < scale) {
      units = units * 10 + d;
      places++;
    } else if (places++ === scale) roundUp = d >= 5;
  }
  if (digits === 0) return null;
  for (let kept = Math.max(places, 0); kept < scale; kept++) units *= 10;
  if (roundUp) units += 1;
  if (!Number.isSafeInteger(units)) return null;
  return negative ? -units : units;
}

/** unscaledToDecimal for a safe integer (smallUnscaled's answer). */
export function smallDecimalText(units: number, scale: number): string {
  const digits = String(Math.abs(units)).padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return units < 0 ? `-${text}` : text;
}
export function unscaledToDecimal(v: bigint, scale: number): string {
  const negative = v < 0n;
  const digits = (negative ? -v : v).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return negative ? `-${text}` : text;
}

/**
 * A number's exact decimal digits: a double's own value, never JavaScript's exponent form (1e+21), so
 * decimalToUnscaled reads every stored double exactly.
 */
export function exactText(value: SqlValue): string {
  if (typeof value !== 'number') return String(value);
  if (Number.isInteger(value)) return BigInt(value).toString();
  const shortest = String(value);
  return /e/i.test(shortest) ? value.toFixed(20).replace(/0+$/, '') : shortest;
}
