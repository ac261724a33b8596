// Dates and times as IBM i writes them in a field of a given format ("DATFMT keyword", "TIMFMT
// keyword", "Date strings"). Two-digit-year formats hold 1940 to 2039; *ISO, *USA, *EUR and *JIS
// have fixed separators, the others take the job's (or the field's DATSEP/TIMSEP).
export const DATE_FORMATS = ['iso', 'usa', 'eur', 'jis', 'mdy', 'dmy', 'ymd', 'julian'] as const;
export const TIME_FORMATS = ['iso', 'usa', 'eur', 'jis', 'hms'] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];
export type TimeFormat = (typeof TIME_FORMATS)[number];

/** DATFMT and TIMFMT keyword values (DDS, DSPFFD's WHFMT) and the formats they name. */
export const DDS_DATE_FORMATS: Readonly<Record<string, DateFormat>> = {
  '*ISO': 'iso',
  '*USA': 'usa',
  '*EUR': 'eur',
  '*JIS': 'jis',
  '*MDY': 'mdy',
  '*DMY': 'dmy',
  '*YMD': 'ymd',
  '*JUL': 'julian',
};
export const DDS_TIME_FORMATS: Readonly<Record<string, TimeFormat>> = {
  '*ISO': 'iso',
  '*USA': 'usa',
  '*EUR': 'eur',
  '*JIS': 'jis',
  '*HMS': 'hms',
};

/** The DATFMT or TIMFMT keyword value of a format (`mdy` → `*MDY`). */
export const ddsFormatName = (format: DateFormat | TimeFormat): string =>
  Object.entries({ ...DDS_DATE_FORMATS, ...DDS_TIME_FORMATS }).find(([, f]) => f === format)?.[0] ?? '';

const two = (n: number) => String(n).padStart(2, '0');

function parts(iso: string): { y: number; m: number; d: number } {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  if (!m) throw new RangeError(`"${iso}" is not a date (yyyy-mm-dd).`);
  return { y: Number(m[1]), m: Number(m[2]), d: Number(m[3]) };
}

function dayOfYear(y: number, m: number, d: number): number {
  return Math.round((Date.UTC(y, m - 1, d) - Date.UTC(y, 0, 1)) / 86_400_000) + 1;
}

function shortYear(y: number): string {
  if (y < 1940 || y > 2039)
    throw new RangeError(`The year ${y} does not fit a two-digit-year format (1940 to 2039).`);
  return two(y % 100);
}
const longYear = (yy: number) => (yy >= 40 ? 1900 + yy : 2000 + yy);

/** `2026-03-01` in the field's format. */
export function formatDate(iso: string, format: DateFormat, separator = '/'): string {
  const { y, m, d } = parts(iso);
  const s = separator;
  switch (format) {
    case 'iso':
    case 'jis':
      return iso;
    case 'usa':
      return `${two(m)}/${two(d)}/${String(y).padStart(4, '0')}`;
    case 'eur':
      return `${two(d)}.${two(m)}.${String(y).padStart(4, '0')}`;
    case 'mdy':
      return `${two(m)}${s}${two(d)}${s}${shortYear(y)}`;
    case 'dmy':
      return `${two(d)}${s}${two(m)}${s}${shortYear(y)}`;
    case 'ymd':
      return `${shortYear(y)}${s}${two(m)}${s}${two(d)}`;
    case 'julian':
      return `${shortYear(y)}${s}${String(dayOfYear(y, m, d)).padStart(3, '0')}`;
  }
}

/** A field's text back to `yyyy-mm-dd`. */
export function parseDate(text: string, format: DateFormat): string {
  const n = text
    .trim()
    .split(/[^0-9]/)
    .map(Number);
  const iso = (y: number, m: number, d: number) => {
    const date = new Date(Date.UTC(y, m - 1, d));
    if (date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d)
      throw new RangeError(`"${text}" is not a valid ${format} date.`);
    return `${String(y).padStart(4, '0')}-${two(m)}-${two(d)}`;
  };
  const [a = NaN, b = NaN, c = NaN] = n;
  switch (format) {
    case 'iso':
    case 'jis':
      return iso(a, b, c);
    case 'usa':
      return iso(c, a, b);
    case 'eur':
      return iso(c, b, a);
    case 'mdy':
      return iso(longYear(c), a, b);
    case 'dmy':
      return iso(longYear(c), b, a);
    case 'ymd':
      return iso(longYear(a), b, c);
    case 'julian': {
      const y = longYear(a);
      const date = new Date(Date.UTC(y, 0, b));
      if (b < 1 || date.getUTCFullYear() !== y) throw new RangeError(`"${text}" is not a valid julian date.`);
      return date.toISOString().slice(0, 10);
    }
  }
}

/** `13:05:09` in the field's format: *USA is `hh:mm AM`/`PM` and keeps no seconds. */
export function formatTime(time: string, format: TimeFormat, separator = ':'): string {
  const m = /^(\d{2}):(\d{2}):(\d{2})$/.exec(time);
  if (!m) throw new RangeError(`"${time}" is not a time (hh:mm:ss).`);
  const [h, min, sec] = [Number(m[1]), m[2] ?? '00', m[3] ?? '00'];
  switch (format) {
    case 'iso':
    case 'eur':
      return `${two(h)}.${min}.${sec}`;
    case 'jis':
      return `${two(h)}:${min}:${sec}`;
    case 'hms':
      return `${two(h)}${separator}${min}${separator}${sec}`;
    case 'usa':
      return `${two(h % 12 === 0 ? 12 : h % 12)}:${min} ${h < 12 ? 'AM' : 'PM'}`;
  }
}

export function parseTime(text: string, format: TimeFormat): string {
  const t = text.trim();
  if (format === 'usa') {
    const m = /^(\d{1,2}):(\d{2}) ?(AM|PM)$/i.exec(t);
    if (!m) throw new RangeError(`"${text}" is not a valid usa time.`);
    const h = (Number(m[1]) % 12) + (m[3]?.toUpperCase() === 'PM' ? 12 : 0);
    return `${two(h)}:${m[2]}:00`;
  }
  const [h = NaN, min = NaN, sec = NaN] = t.split(/[^0-9]/).map(Number);
  if (!(h <= 24 && min < 60 && sec < 60)) throw new RangeError(`"${text}" is not a valid ${format} time.`);
  return `${two(h)}:${two(min)}:${two(sec)}`;
}
