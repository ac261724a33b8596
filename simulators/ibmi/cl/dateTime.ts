// A CL date and time pair (DSPJRN's FROMTIME/TOTIME) as IBM i reads one: the date in the job's date
// format, with the job's date separator or none; the time as hhmmss, or hh:mm:ss with the job's time
// separator. Two-digit years 40–99 are 19xx and 00–39 are 20xx, IBM's window for CL dates.
import type { JobDateSettings } from '../system/jobDates';
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

function clDate(text: string, job: JobDateSettings): string | null {
  const digits = text.split(job.dateSeparator).join('');
  if (!/^\d+$/.test(digits)) return null;
  const wide = job.dateFormat === '*JUL' ? digits.length === 7 : digits.length === 8;
  const narrow = job.dateFormat === '*JUL' ? digits.length === 5 : digits.length === 6;
  if (!wide && !narrow) return null;
  const yearDigits = wide ? 4 : 2;
  const century = (y: number) => (yearDigits === 4 ? y : y >= 40 ? 1900 + y : 2000 + y);
  let year: number;
  let month: number;
  let day: number;
  if (job.dateFormat === '*JUL') {
    year = century(Number(digits.slice(0, yearDigits)));
    const ordinal = Number(digits.slice(yearDigits));
    const d = new Date(Date.UTC(year, 0, ordinal));
    if (ordinal < 1 || d.getUTCFullYear() !== year) return null;
    [month, day] = [d.getUTCMonth() + 1, d.getUTCDate()];
  } else {
    const fields =
      job.dateFormat === '*YMD'
        ? { y: [0, yearDigits], m: [yearDigits, yearDigits + 2], d: [yearDigits + 2, yearDigits + 4] }
        : job.dateFormat === '*MDY'
          ? { m: [0, 2], d: [2, 4], y: [4, 4 + yearDigits] }
          : { d: [0, 2], m: [2, 4], y: [4, 4 + yearDigits] };
    const at = (r: number[]) => Number(digits.slice(r[0], r[1]));
    [year, month, day] = [century(at(fields.y)), at(fields.m), at(fields.d)];
    const d = new Date(Date.UTC(year, month - 1, day));
    if (d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) return null;
  }
  return `${String(year).padStart(4, '0')}-${two(month)}-${two(day)}`;
}

function clTime(text: string, job: JobDateSettings): string | null {
  const digits = text.split(job.timeSeparator).join('');
  if (!/^\d{6}$/.test(digits)) return null;
  const [h, m, s] = [0, 2, 4].map((i) => Number(digits.slice(i, i + 2))) as [number, number, number];
  if (h > 23 || m > 59 || s > 59) return null;
  return `${two(h)}:${two(m)}:${two(s)}`;
}
