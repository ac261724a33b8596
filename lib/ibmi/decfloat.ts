// DECFLOAT(16) and DECFLOAT(34) as Db2 for i stores them: IEEE 754-2008 decimal64 and decimal128 in
// the densely packed decimal (DPD) encoding, big-endian — a sign bit, a 5-bit combination field (two
// exponent bits and the leading digit, or the 8/9 escape, or infinity and NaN), the rest of the
// exponent, then the remaining digits three per 10-bit declet. Decoded into exact text, in the
// standard's to-scientific-string form (what Db2 gives for CAST(… AS VARCHAR)), so no digit and no
// trailing zero is lost; encoded back for the simulated IBM i.

interface Format {
  bytes: 8 | 16;
  digits: 16 | 34;
  exponentBits: number;
  bias: number;
}
const FORMATS: Record<16 | 34, Format> = {
  16: { bytes: 8, digits: 16, exponentBits: 8, bias: 398 },
  34: { bytes: 16, digits: 34, exponentBits: 12, bias: 6176 },
};

export const decfloatLength = (digits: 16 | 34): number => FORMATS[digits].bytes;

/** Three digits of a 10-bit declet (IEEE 754-2008, 3.5.2). */
function declet(b: number): string {
  const bit = (n: number) => (b >> n) & 1;
  const pqr = b >> 7;
  const stu = (b >> 4) & 7;
  const wxy = b & 7;
  const pq = (b >> 8) & 3;
  const st = (b >> 5) & 3;
  const [r, u, y] = [bit(7), bit(4), bit(0)];
  let d: [number, number, number];
  if (!bit(3)) d = [pqr, stu, wxy];
  else
    switch ((b >> 1) & 3) {
      case 0:
        d = [pqr, stu, 8 + y];
        break;
      case 1:
        d = [pqr, 8 + u, st * 2 + y];
        break;
      case 2:
        d = [8 + r, stu, pq * 2 + y];
        break;
      default:
        d =
          st === 0
            ? [8 + r, 8 + u, pq * 2 + y]
            : st === 1
              ? [8 + r, pq * 2 + u, 8 + y]
              : st === 2
                ? [pqr, 8 + u, 8 + y]
                : [8 + r, 8 + u, 8 + y];
    }
  return `${d[0]}${d[1]}${d[2]}`;
}

/** The 10-bit declet of three digits (the inverse of `declet`). */
function toDeclet(d2: number, d1: number, d0: number): number {
  const big = (d2 >= 8 ? 4 : 0) | (d1 >= 8 ? 2 : 0) | (d0 >= 8 ? 1 : 0);
  const low = (d: number) => d & 7;
  const [bcd, fgh, jkm] = [low(d2), low(d1), low(d0)];
  const [d, h, m] = [d2 & 1, d1 & 1, d0 & 1];
  const jk = (d0 >> 1) & 3;
  const fg = (d1 >> 1) & 3;
  const join = (pqr: number, stu: number, v: number, wxy: number) => (pqr << 7) | (stu << 4) | (v << 3) | wxy;
  switch (big) {
    case 0:
      return join(bcd, fgh, 0, jkm);
    case 1:
      return join(bcd, fgh, 1, m);
    case 2:
      return join(bcd, (jk << 1) | h, 1, 0b010 | m);
    case 4:
      return join((jk << 1) | d, fgh, 1, 0b100 | m);
    case 6:
      return join((jk << 1) | d, h, 1, 0b110 | m);
    case 5:
      return join((fg << 1) | d, 0b010 | h, 1, 0b110 | m);
    case 3:
      return join(bcd, 0b100 | h, 1, 0b110 | m);
    default:
      return join(d, 0b110 | h, 1, 0b110 | m);
  }
}

/** The value of a DECFLOAT field: exact text (`-7.50`, `1.2E+400`, `NaN`, `-Infinity`). */
export function decodeDecfloat(bytes: Uint8Array, digits: 16 | 34): string {
  const f = FORMATS[digits];
  let bits = 0n;
  for (let i = 0; i < f.bytes; i++) bits = (bits << 8n) | BigInt(bytes[i] ?? 0);
  const total = BigInt(f.bytes * 8);
  const sign = bits >> (total - 1n) === 1n ? '-' : '';
  const combination = Number((bits >> (total - 6n)) & 31n);
  if (combination >> 1 === 15) {
    if ((combination & 1) === 0) return `${sign}Infinity`;
    // The bit after the combination field tells a signalling NaN.
    return `${sign}${(bits >> (total - 7n)) & 1n ? 'sNaN' : 'NaN'}`;
  }
  const [exponentTop, lead] =
    combination >> 3 === 3
      ? [(combination >> 1) & 3, 8 + (combination & 1)]
      : [combination >> 3, combination & 7];
  const continuation = Number(
    (bits >> (total - 6n - BigInt(f.exponentBits))) & ((1n << BigInt(f.exponentBits)) - 1n),
  );
  const exponent = ((exponentTop << f.exponentBits) | continuation) - f.bias;
  let coefficient = String(lead);
  for (let i = (f.digits - 1) / 3 - 1; i >= 0; i--)
    coefficient += declet(Number((bits >> BigInt(i * 10)) & 1023n));
  return sign + scientific(coefficient.replace(/^0+(?=\d)/, ''), exponent);
}

/** IEEE/General Decimal Arithmetic to-scientific-string: plain when the exponent is ≤ 0 and not tiny. */
function scientific(coefficient: string, exponent: number): string {
  const adjusted = exponent + coefficient.length - 1;
  if (exponent <= 0 && adjusted >= -6) {
    if (exponent === 0) return coefficient;
    const point = coefficient.length + exponent;
    return point > 0
      ? `${coefficient.slice(0, point)}.${coefficient.slice(point)}`
      : `0.${'0'.repeat(-point)}${coefficient}`;
  }
  const mantissa = coefficient.length > 1 ? `${coefficient[0]}.${coefficient.slice(1)}` : coefficient;
  return `${mantissa}E${adjusted >= 0 ? '+' : ''}${adjusted}`;
}

/** A decimal's text as a DECFLOAT field (the simulated IBM i's record images); exact or a RangeError. */
export function encodeDecfloat(text: string, digits: 16 | 34): Uint8Array {
  const f = FORMATS[digits];
  const total = BigInt(f.bytes * 8);
  const m = /^([+-])?(?:(\d+)(?:\.(\d*))?|\.(\d+))(?:E([+-]?\d+))?$/i.exec(text.trim());
  const special = /^([+-])?(s?nan|infinity|inf)$/i.exec(text.trim());
  let bits: bigint;
  if (special) {
    const name = (special[2] ?? '').toLowerCase();
    const combination = name.startsWith('inf') ? 0b11110n : 0b11111n;
    bits = (combination << (total - 6n)) | (name === 'snan' ? 1n << (total - 7n) : 0n);
    if (special[1] === '-') bits |= 1n << (total - 1n);
  } else {
    if (!m) throw new RangeError(`"${text}" is not a number.`);
    const whole = m[2] ?? '';
    const fraction = m[3] ?? m[4] ?? '';
    let coefficient = `${whole}${fraction}`.replace(/^0+(?=\d)/, '');
    const exponent = Number(m[5] ?? 0) - fraction.length;
    if (coefficient.length > f.digits)
      throw new RangeError(`${text} has more than the ${f.digits} digits of a DECFLOAT(${f.digits}).`);
    const biased = exponent + f.bias;
    if (biased < 0 || biased >= 3 << f.exponentBits)
      throw new RangeError(`${text} is out of the range of a DECFLOAT(${f.digits}).`);
    coefficient = coefficient.padStart(f.digits, '0');
    const lead = Number(coefficient[0]);
    const top = biased >> f.exponentBits;
    const combination = lead >= 8 ? 0b11000 | (top << 1) | (lead & 1) : (top << 3) | lead;
    bits = BigInt(combination) << (total - 6n);
    bits |= BigInt(biased & ((1 << f.exponentBits) - 1)) << (total - 6n - BigInt(f.exponentBits));
    const rest = coefficient.slice(1);
    for (let i = 0; i < rest.length / 3; i++) {
      const [a, b, c] = [...rest.slice(i * 3, i * 3 + 3)].map(Number) as [number, number, number];
      bits |= BigInt(toDeclet(a, b, c)) << BigInt((rest.length / 3 - 1 - i) * 10);
    }
    if (m[1] === '-') bits |= 1n << (total - 1n);
  }
  const out = new Uint8Array(f.bytes);
  for (let i = f.bytes - 1; i >= 0; i--) {
    out[i] = Number(bits & 255n);
    bits >>= 8n;
  }
  return out;
}
