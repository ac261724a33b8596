// Dates and times on the wire: days from an epoch, units of 10^-scale seconds, and the fast path that
// writes a datetime2 straight into a row buffer.
import { daysInMonth } from '../../../../shared/calendar';
import { timeBytes, ValueError } from './sqlTypes';

export const MS_PER_DAY = 86_400_000;
export const EPOCH_0001 = (() => {
  const d = new Date(0);
  d.setUTCFullYear(1, 0, 1);
  d.setUTCHours(0, 0, 0, 0);
  return d.getTime();
})();
export const EPOCH_1900 = Date.UTC(1900, 0, 1);

export function daysFrom(epoch: number, ymd: string): number {
  const [y, m, d] = ymd.split('-').map(Number);
  const date = new Date(0);
  date.setUTCFullYear(y ?? 1, (m ?? 1) - 1, d ?? 1);
  date.setUTCHours(0, 0, 0, 0);
  return Math.round((date.getTime() - epoch) / MS_PER_DAY);
}
export function ymdFrom(epoch: number, days: number): string {
  const d = new Date(epoch + days * MS_PER_DAY);
  return `${String(d.getUTCFullYear()).padStart(4, '0')}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}
export const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** 'HH:MM:SS[.fffffff]' → units of 10^-scale seconds since midnight (rounded to the scale). */
export function timeUnits(hms: string, scale: number): bigint {
  const m = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$/.exec(hms);
  if (!m) throw new ValueError(`'${hms}' is not a time.`);
  const seconds = BigInt(Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3] ?? 0));
  const fraction = (m[4] ?? '').padEnd(9, '0');
  const nanos = BigInt(fraction);
  const unit = 10n ** BigInt(9 - scale);
  return seconds * 10n ** BigInt(scale) + (nanos + unit / 2n) / unit;
}
export function timeText(units: bigint, scale: number): string {
  const per = 10n ** BigInt(scale);
  const seconds = Number(units / per);
  const frac = units % per;
  const hms = `${pad(Math.floor(seconds / 3600))}:${pad(Math.floor(seconds / 60) % 60)}:${pad(seconds % 60)}`;
  return scale === 0 ? hms : `${hms}.${frac.toString().padStart(scale, '0')}`;
}

export function writeUnits(units: bigint, bytes: number): Buffer {
  const out = Buffer.alloc(bytes);
  let v = units;
  for (let i = 0; i < bytes; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}
export function readUnits(b: Buffer): bigint {
  let v = 0n;
  for (let i = b.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[i] ?? 0);
  return v;
}
export function date3(days: number): Buffer {
  const out = Buffer.alloc(3);
  out.writeUIntLE(days, 0, 3);
  return out;
}

export const DATETIME_RE = /^(\d{4}-\d{2}-\d{2})(?:[ T](\d{1,2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?))?$/;
export const OFFSET_RE =
  /^(\d{4}-\d{2}-\d{2})[ T](\d{1,2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)\s*([+-])(\d{2}):(\d{2})$/;

/** Days from 0001-01-01 to a valid proleptic Gregorian date (H. Hinnant's days_from_civil). */
function civilDays(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  return era * 146_097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - CIVIL_0001;
}
const CIVIL_0001 = 306; // days_from_civil(1, 1, 1) counted from 0000-03-01

const digitsOf = (s: string, from: number, count: number): number => {
  let n = 0;
  for (let i = from; i < from + count; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
};

/**
 * A datetime2 as `yyyy-mm-dd hh:mm:ss[.fffffffff]` written straight into `out` at `at`, length first
 * (4 + timeBytes(scale) bytes); false, with nothing written, for any other text, which the general
 * path reads (and refuses) as before. Units stay below 2^53.
 */
export function datetime2Into(v: string, scale: number, out: Buffer, at: number): boolean {
  if (
    v.length < 19 ||
    v.length > 29 ||
    v[4] !== '-' ||
    v[7] !== '-' ||
    v[10] !== ' ' ||
    v[13] !== ':' ||
    v[16] !== ':'
  )
    return false;
  const [y, mo, d, h, mi, sec] = [
    digitsOf(v, 0, 4),
    digitsOf(v, 5, 2),
    digitsOf(v, 8, 2),
    digitsOf(v, 11, 2),
    digitsOf(v, 14, 2),
    digitsOf(v, 17, 2),
  ];
  if (
    y < 1 ||
    mo < 1 ||
    mo > 12 ||
    d < 1 ||
    d > daysInMonth(y, mo) ||
    h > 23 ||
    mi > 59 ||
    sec > 59 ||
    h < 0 ||
    mi < 0 ||
    sec < 0
  )
    return false;
  let nanos = 0;
  if (v.length > 19) {
    const digits = v.length - 20;
    if (v[19] !== '.' || digits < 1) return false;
    const fraction = digitsOf(v, 20, digits);
    if (fraction < 0) return false;
    nanos = fraction * 10 ** (9 - digits);
  }
  const unit = 10 ** (9 - scale);
  const units = (h * 3600 + mi * 60 + sec) * 10 ** scale + Math.floor((nanos + unit / 2) / unit);
  // Rounded up into the next day: the general path carries it.
  if (units >= 86_400 * 10 ** scale) return false;
  const bytes = timeBytes(scale);
  out[at] = bytes + 3;
  let rest = units;
  for (let i = 0; i < bytes; i++) {
    out[at + 1 + i] = rest % 256;
    rest = Math.floor(rest / 256);
  }
  out.writeUIntLE(civilDays(y, mo, d), at + 1 + bytes, 3);
  return true;
}

export function datetime2Bytes(v: string, scale: number): Buffer | null {
  const out = Buffer.allocUnsafe(4 + timeBytes(scale));
  return datetime2Into(v, scale, out, 0) ? out : null;
}

/** Shifts a local date-time by minutes, in exact units of the scale. */
export function shift(days: number, units: bigint, scale: number, minutes: number): [number, bigint] {
  const perDay = 86_400n * 10n ** BigInt(scale);
  let u = units + BigInt(minutes) * 60n * 10n ** BigInt(scale);
  let d = days;
  while (u < 0n) {
    u += perDay;
    d -= 1;
  }
  while (u >= perDay) {
    u -= perDay;
    d += 1;
  }
  return [d, u];
}
