// Packed and zoned decimal as IBM i stores them (DDS data types P and S): digits as nibbles or as
// EBCDIC digits, the sign in the last nibble — F for positive as IBM i writes it, D for negative; on
// reading, A, C, E and F are positive and B and D negative. Values are decimal strings, exact.

const positive = new Set([0xa, 0xc, 0xe, 0xf]);
const negative = new Set([0xb, 0xd]);

/** `-123.45` at (5, 2) → sign and the 5 digits `12345`; throws when it does not fit. */
function digitsOf(value: string, precision: number, scale: number): { negative: boolean; digits: string } {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(value.trim());
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) throw new RangeError(`"${value}" is not a decimal number.`);
  const whole = (m[2] ?? '').replace(/^0+/, '');
  const fraction = (m[3] ?? '').padEnd(scale, '0');
  if (fraction.length > scale && /[1-9]/.test(fraction.slice(scale)))
    throw new RangeError(`"${value}" has more than ${scale} decimal places.`);
  const digits = (whole + fraction.slice(0, scale)).padStart(precision, '0');
  if (digits.length > precision) throw new RangeError(`"${value}" does not fit in ${precision},${scale}.`);
  return { negative: m[1] === '-' && /[1-9]/.test(digits), digits };
}

/**
 * A decimal in its one canonical form, exact whatever its digits: no leading zeros, `scale` fraction
 * digits (cut beyond), no sign on zero. `-0012.5` at scale 2 is `-12.50`.
 */
export function canonicalDecimal(v: string | number | bigint, scale: number): string {
  if (typeof v === 'number') return v.toFixed(scale);
  if (typeof v === 'string' && isCanonical(v, scale)) return v;
  const m = /^\s*([+-]?)(\d*)(?:\.(\d*))?\s*$/.exec(String(v));
  if (!m) throw new RangeError(`"${String(v)}" is not a decimal number.`);
  const whole = (m[2] ?? '').replace(/^0+(?=\d)/, '') || '0';
  const fraction = (m[3] ?? '').padEnd(scale, '0').slice(0, scale);
  const zero = /^0*$/.test(whole + fraction);
  return `${m[1] === '-' && !zero ? '-' : ''}${whole}${scale > 0 ? `.${fraction}` : ''}`;
}

/**
 * Whether `v` is already in the canonical form at `scale` (as SQL answers most decimals), checked by
 * its characters: an optional minus, digits without a leading zero (one zero alone), the point and
 * exactly `scale` digits, and not a negative zero.
 */
function isCanonical(v: string, scale: number): boolean {
  const from = v.charCodeAt(0) === 45 ? 1 : 0;
  const point = scale > 0 ? v.length - scale - 1 : v.length;
  if (point <= from || (scale > 0 && v.charCodeAt(point) !== 46)) return false;
  if (v.charCodeAt(from) === 48 && point - from > 1) return false;
  let nonZero = false;
  for (let i = from; i < v.length; i++) {
    if (i === point) continue;
    const c = v.charCodeAt(i);
    if (c < 48 || c > 57) return false;
    if (c !== 48) nonZero = true;
  }
  return from === 0 || nonZero;
}

/** An integer with an implied decimal point (a DDS binary field with decimal positions): 12345 at 2 is `123.45`. */
export const scaledInteger = (n: bigint, scale: number): string =>
  withScale((n < 0n ? -n : n).toString(), scale, n < 0n);

function withScale(digits: string, scale: number, negativeSign: boolean): string {
  const padded = digits.padStart(scale + 1, '0');
  const whole = padded.slice(0, padded.length - scale).replace(/^0+(?=\d)/, '');
  const text = scale > 0 ? `${whole}.${padded.slice(-scale)}` : whole;
  return negativeSign && /[1-9]/.test(digits) ? `-${text}` : text;
}

/** Bytes a packed field of `precision` digits takes: one nibble per digit plus the sign. */
export const packedLength = (precision: number) => Math.floor(precision / 2) + 1;

export function encodePacked(value: string, precision: number, scale: number): Uint8Array {
  const { negative: minus, digits } = digitsOf(value, precision, scale);
  const nibbles = [...digits.padStart(packedLength(precision) * 2 - 1, '0')].map(Number);
  nibbles.push(minus ? 0xd : 0xf);
  const out = new Uint8Array(nibbles.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = ((nibbles[2 * i] ?? 0) << 4) | (nibbles[2 * i + 1] ?? 0);
  return out;
}

export function decodePacked(bytes: Uint8Array, scale: number): string {
  let digits = '';
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] ?? 0;
    const high = b >> 4;
    const low = b & 0xf;
    if (high > 9) throw new RangeError(`Packed decimal has a bad digit nibble ${high.toString(16)}.`);
    digits += String(high);
    if (i < bytes.length - 1) {
      if (low > 9) throw new RangeError(`Packed decimal has a bad digit nibble ${low.toString(16)}.`);
      digits += String(low);
    } else if (!positive.has(low) && !negative.has(low)) {
      throw new RangeError(`Packed decimal has a bad sign nibble ${low.toString(16)}.`);
    }
  }
  return withScale(digits, scale, negative.has((bytes.at(-1) ?? 0) & 0xf));
}

export function encodeZoned(value: string, precision: number, scale: number): Uint8Array {
  const { negative: minus, digits } = digitsOf(value, precision, scale);
  const out = new Uint8Array(precision);
  for (let i = 0; i < precision; i++) out[i] = 0xf0 | Number(digits[i]);
  out[precision - 1] = ((minus ? 0xd : 0xf) << 4) | Number(digits[precision - 1]);
  return out;
}

export function decodeZoned(bytes: Uint8Array, scale: number): string {
  let digits = '';
  for (const b of bytes) {
    if ((b & 0xf) > 9) throw new RangeError(`Zoned decimal has a bad digit ${b.toString(16)}.`);
    digits += String(b & 0xf);
  }
  const zone = (bytes.at(-1) ?? 0xf0) >> 4;
  if (!positive.has(zone) && !negative.has(zone))
    throw new RangeError(`Zoned decimal has a bad sign zone ${zone.toString(16)}.`);
  return withScale(digits, scale, negative.has(zone));
}
