// A CL date and time pair (DSPJRN's FROMTIME/TOTIME) as IBM i reads one: the date in the job's date
// format, with the job's date separator or none; the time as hhmmss, or hh:mm:ss with the job's time
// separator. Two-digit years 40–99 are 19xx and 00–39 are 20xx, IBM's window for CL dates.
import { parseDate, type DateFormat } from '../../../lib/ibmi/dateTime';
import type { JobDateFormat, JobDateSettings } from '../system/jobDates';
import { atom, commandError, elements, type ClValue } from './parse';

const two = (n: number) => String(n).padStart(2, '0');

/**
 * `KWD(date time)` to the local timestamp text journal entries carry, to the second
 * ("YYYY-MM-DD HH:MM:SS"); null for the special value (*FIRST, *LAST) or no value.
 */
export function clDateTime(
  v: ClValue | undefined,
  keyword: string,
  special: string,
  job: JobDateSettings,
): string | null {
  const parts = elements(v).map((x) => atom(x) ?? '');
  if (parts.length === 0 || (parts.length === 1 && parts[0] === special)) return null;
  const [dateText = '', timeText = ''] = parts;
  const invalid = (text: string) =>
    commandError('CPD0084', `Value '${text}' for parameter ${keyword} not a valid value.`);
  if (parts.length !== 2) throw invalid(parts.join(' '));
  const date = clDate(dateText, job);
  const time = clTime(timeText, job);
  if (!date) throw invalid(dateText);
  if (!time) throw invalid(timeText);
  return `${date} ${time}`;
}

/**
 * The job's date order: the format lib/ibmi/dateTime.ts reads it by with a two-digit year, and with
 * a four-digit one (the *USA, *EUR and *ISO orders); *JUL has no four-digit twin there.
 */
const ORDERS: Record<
  JobDateFormat,
  { short: DateFormat; long: DateFormat | null; widths: (y: number) => number[] }
> = {
  '*MDY': { short: 'mdy', long: 'usa', widths: (y) => [2, 2, y] },
  '*DMY': { short: 'dmy', long: 'eur', widths: (y) => [2, 2, y] },
  '*YMD': { short: 'ymd', long: 'iso', widths: (y) => [y, 2, 2] },
  '*JUL': { short: 'julian', long: null, widths: (y) => [y, 3] },
};

function clDate(text: string, job: JobDateSettings): string | null {
  const digits = text.split(job.dateSeparator).join('');
  const order = ORDERS[job.dateFormat];
  const shortLength = order.widths(2).reduce((a, b) => a + b);
  const long = digits.length === shortLength + 2;
  if (!/^\d+$/.test(digits) || (digits.length !== shortLength && !long)) return null;
  let at = 0;
  const fields = order.widths(long ? 4 : 2).map((w) => digits.slice(at, (at += w)));
  const format = long ? order.long : order.short;
  try {
    // parseDate takes the fields apart at any separator, and keeps IBM's 1940–2039 window.
    if (format) return parseDate(fields.join('/'), format);
    const [year = 0, ordinal = 0] = fields.map(Number);
    const date = new Date(Date.UTC(year, 0, ordinal));
    return ordinal < 1 || date.getUTCFullYear() !== year ? null : date.toISOString().slice(0, 10);
  } catch {
    return null;
  }
}

function clTime(text: string, job: JobDateSettings): string | null {
  const digits = text.split(job.timeSeparator).join('');
  if (!/^\d{6}$/.test(digits)) return null;
  const [h, m, s] = [0, 2, 4].map((i) => Number(digits.slice(i, i + 2))) as [number, number, number];
  if (h > 23 || m > 59 || s > 59) return null;
  return `${two(h)}:${two(m)}:${two(s)}`;
}
