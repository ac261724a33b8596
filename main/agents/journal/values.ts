// One form for every value, whether it comes from a journal entry's record image or from SQL (a
// snapshot): decimals as exact text with the column's scale, SMALLINT/INTEGER as numbers and BIGINT
// as bigint, dates `yyyy-mm-dd` and times `hh:mm:ss` whatever the connection's formats, timestamps
// `yyyy-mm-dd hh:mm:ss.ffffff` — in the system's local time, or in UTC when useDatabaseTimezone is on.
import { parseDate, parseTime, type DateFormat, type TimeFormat } from '../../../lib/ibmi/dateTime';
import { canonicalDecimal } from '../../../lib/ibmi/decimal';
import { visualToLogical } from '../../../lib/ibmi/bidi';
import type { UserCharacters } from './userCharacters';
import { decodeTextExact } from '../../../lib/ibmi/ccsid';
import { decodeDecfloat, encodeDecfloat } from '../../../lib/ibmi/decfloat';
import type { IbmiValue } from '../../../lib/ibmi/connection';
import { sqlTypeName, type FieldDef, type FieldType, type FieldValue } from '../../../lib/ibmi/recordImage';
import type { RowValue } from '../source';
import type {
  INVALID_DATE_CHOICES,
  INVALID_DECIMAL_CHOICES,
  INVALID_TEXT_CHOICES,
} from '../../../shared/agents/journal';
import type { InvalidValue } from '../../../shared/controlApi';

export interface ValueForm {
  /** The formats the connection negotiated: how SQL hands dates and times over. */
  dateFormat: DateFormat;
  timeFormat: TimeFormat;
  /** The system's offset from UTC in minutes (CURRENT TIMEZONE) when timestamps go to UTC; null leaves them. */
  utcOffsetMinutes: number | null;
  /**
   * What a field that cannot be decoded becomes (the agent's settings, and per column the entity's
   * invalidValues over them); kept aside when left out.
   */
  invalid?: {
    decimals: InvalidDecimals;
    dates: InvalidDates;
    /** Text with a byte sequence its CCSID maps to no character; kept aside when left out. */
    text?: InvalidText;
    columns?: Readonly<Record<string, InvalidValue>>;
  };
  /** The source's table of user-defined characters, where it names any (userCharacters.ts). */
  userCharacters?: UserCharacters | null;
}

export type InvalidDecimals = (typeof INVALID_DECIMAL_CHOICES)[number];

/** An invalidValues policy that is a chosen date (`YYYY-MM-DD`) rather than a word. */
const isChosenDate = (policy: string) => /^\d{4}-\d{2}-\d{2}$/.test(policy);
export type InvalidDates = (typeof INVALID_DATE_CHOICES)[number];
export type InvalidText = (typeof INVALID_TEXT_CHOICES)[number];

/** Character and graphic fields: text in a CCSID, whose undecodable bytes the text policy covers. */
export const isTextField = (t: FieldType): boolean =>
  t.kind === 'char' || t.kind === 'varchar' || t.kind === 'graphic' || t.kind === 'vargraphic';

/**
 * The value the decode policy puts in place of a field it could not decode; undefined when the row is
 * to be kept aside instead (the policy's default, and every kind the policy does not cover).
 * `lenient` reads the field with U+FFFD for each byte sequence its CCSID has no character for.
 */
export function replacementOf(
  f: FieldDef,
  form: ValueForm,
  lenient: () => RowValue,
): { value: RowValue } | undefined {
  const kind = f.type.kind;
  const own = form.invalid?.columns?.[f.name];
  if (isTextField(f.type)) {
    const policy = own ?? form.invalid?.text ?? 'keep-row-aside';
    if (policy === 'keep-row-aside') return undefined;
    return { value: policy === 'null' ? null : lenient() };
  }
  if (kind === 'packed' || kind === 'zoned') {
    const policy = own ?? form.invalid?.decimals ?? 'keep-row-aside';
    if (policy === 'keep-row-aside') return undefined;
    // A null into a NOT NULL column is the target's to refuse: the row is then kept aside there.
    return { value: policy === 'null' ? null : formValue(f, '0', form) };
  }
  if (kind === 'date' || kind === 'time' || kind === 'timestamp') {
    const policy = own ?? form.invalid?.dates ?? 'keep-row-aside';
    if (policy === 'keep-row-aside') return undefined;
    if (policy === 'null') return { value: null };
    const earliest = { date: '0001-01-01', time: '00:00:00', timestamp: '0001-01-01-00.00.00.000000' }[kind];
    // A chosen date: that day (at midnight for a timestamp); a time column takes the earliest.
    const chosen = isChosenDate(policy)
      ? { date: policy, time: earliest, timestamp: `${policy}-00.00.00.000000` }[kind]
      : earliest;
    return { value: formValue(f, chosen, form) };
  }
  return undefined;
}

/**
 * Why an entity's invalidValues does not fit its file's fields, naming the column, the value and the
 * rule; undefined when it fits. Zero is for decimals (packed, zoned), earliest and a date for dates
 * and timestamps (earliest for times), replace for text; other columns have nothing to decode.
 */
export function invalidValuesProblem(
  table: string,
  fields: readonly FieldDef[],
  chosen: Readonly<Record<string, InvalidValue>>,
): string | undefined {
  for (const [column, value] of Object.entries(chosen)) {
    const f = fields.find((x) => x.name === column);
    const at = `${table} invalidValues.${column} = "${value}"`;
    if (!f) return `${at}: the file has no column ${column} (${fields.map((x) => x.name).join(', ')}).`;
    const kind = f.type.kind;
    const allowed = isTextField(f.type)
      ? ['keep-row-aside', 'null', 'replace']
      : kind === 'packed' || kind === 'zoned'
        ? ['keep-row-aside', 'null', 'zero']
        : kind === 'date' || kind === 'timestamp'
          ? ['keep-row-aside', 'null', 'earliest', 'a date YYYY-MM-DD']
          : kind === 'time'
            ? ['keep-row-aside', 'null', 'earliest']
            : [];
    if (allowed.length === 0)
      return `${at}: ${column} is ${sqlTypeName(f.type)}, whose values are always decoded; a policy is for decimal, date, time, timestamp and character columns.`;
    if (!allowed.includes(value) && !(isChosenDate(value) && allowed.includes('a date YYYY-MM-DD')))
      return `${at}: ${column} is ${sqlTypeName(f.type)}, which takes ${allowed.join(', ')}.`;
  }
  return undefined;
}

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})[- T](\d{2})[.:](\d{2})[.:](\d{2})(?:[.,](\d{1,12}))?/;
const pad = (n: number, width = 2) => String(n).padStart(width, '0');

type Parts = [number, number, number, number, number, number];

/** A timestamp's fields (year … second) and its fraction in `precision` digits; null for no timestamp. */
function timestampParts(text: string, precision = 6): { parts: Parts; fraction: string } | null {
  const m = TIMESTAMP.exec(text.trim());
  if (!m) return null;
  return {
    parts: m.slice(1, 7).map(Number) as Parts,
    fraction: (m[7] ?? '').padEnd(precision, '0').slice(0, precision),
  };
}

const instantOf = ([y, mo, d, h, mi, s]: Parts, utcOffsetMinutes: number) =>
  new Date(Date.UTC(y, mo - 1, d, h, mi, s) - utcOffsetMinutes * 60_000);

/**
 * The instant a timestamp in the system's local time names, given its UTC offset, to the millisecond a
 * Date holds (a journal entry's microseconds beyond it are dropped); null for no timestamp.
 */
export function localInstant(text: string, utcOffsetMinutes: number): Date | null {
  const t = timestampParts(text, 3);
  return t ? new Date(instantOf(t.parts, utcOffsetMinutes).getTime() + Number(t.fraction)) : null;
}

/** A local timestamp as `yyyy-mm-dd hh:mm:ss.ffffff`, whichever form it came in: texts that sort as times do. */
export const sortableLocal = (text: string): string => timestampText(text, null, 6);

/** `yyyy-mm-dd hh:mm:ss` and the column's fraction digits (TIMESTAMP(0) to TIMESTAMP(12)). */
function timestampText(v: string, utcOffsetMinutes: number | null, precision: number): string {
  // The common cases without a regex, left in local time: a record image's `yyyy-mm-dd-hh.mm.ss.ffffff`,
  // and SQL's `yyyy-mm-dd hh:mm:ss.ffffff` (already this form: a copy reads millions of them).
  if ((utcOffsetMinutes === null || utcOffsetMinutes === 0) && precision === 6 && v.length === 26) {
    if (v[10] === '-' && v[13] === '.')
      return `${v.slice(0, 10)} ${v.slice(11, 13)}:${v.slice(14, 16)}:${v.slice(17, 19)}.${v.slice(20)}`;
    if (v[10] === ' ' && v[13] === ':' && v[16] === ':' && v[19] === '.' && v[4] === '-' && v[7] === '-')
      return v;
  }
  const t = timestampParts(v, precision);
  if (!t) throw new RangeError(`"${v}" is not a timestamp.`);
  const fraction = precision > 0 ? `.${t.fraction}` : '';
  const [y, mo, d, h, mi, s] = t.parts;
  if (utcOffsetMinutes === null || utcOffsetMinutes === 0)
    return `${pad(y, 4)}-${pad(mo)}-${pad(d)} ${pad(h)}:${pad(mi)}:${pad(s)}${fraction}`;
  const utc = instantOf(t.parts, utcOffsetMinutes).toISOString();
  return `${utc.slice(0, 10)} ${utc.slice(11, 19)}${fraction}`;
}

function integer(v: string | number | bigint, bytes: 2 | 4 | 8): number | bigint {
  if (bytes === 8) return BigInt(typeof v === 'number' ? Math.trunc(v) : v);
  return Number(v);
}

/** The form with an entity's own policy per column (invalidValues) over the agent's settings. */
export const withColumnPolicies = (
  form: ValueForm,
  columns: Readonly<Record<string, InvalidValue>> | undefined,
): ValueForm => (columns && form.invalid ? { ...form, invalid: { ...form.invalid, columns } } : form);
const shopCharacters = (form: ValueForm, ccsid: number, text: string): string =>
  form.userCharacters ? form.userCharacters(text, ccsid) : text;

/** Text of a field read into logical order where it is marked so (textOrder.ts). */
export const inOrder = (f: FieldDef, text: string): string =>
  f.logicalOrder && 'ccsid' in f.type ? visualToLogical(text, f.type.ccsid) : text;

/** A value in the agent's one form, from a record image or a SQL answer. */
export function formValue(f: FieldDef, v: FieldValue | IbmiValue, form: ValueForm): RowValue {
  if (v === null) return null;
  const t = f.type;
  if (t.kind === 'boolean') return booleanValue(f, v);
  if (typeof v === 'boolean') throw new RangeError(`${f.name} (${sqlTypeName(t)}) was given a boolean.`);
  // A field whose CCSID an entity forced arrives from SQL as its bytes: decoded here, exactly.
  if (v instanceof Uint8Array && (t.kind === 'char' || t.kind === 'varchar'))
    return shopCharacters(form, t.ccsid, inOrder(f, decodeTextExact(v, t.ccsid)));
  if (v instanceof Uint8Array)
    return t.kind === 'hex' ||
      t.kind === 'varhex' ||
      t.kind === 'rowid' ||
      (t.kind === 'lob' && t.lob === 'BLOB')
      ? v
      : null;
  switch (t.kind) {
    case 'char':
    case 'varchar':
      return shopCharacters(form, t.ccsid, inOrder(f, String(v)));
    case 'graphic':
    case 'vargraphic':
      return shopCharacters(form, t.ccsid, String(v));
    case 'packed':
    case 'zoned':
      return canonicalDecimal(v, t.scale);
    case 'binary':
      return t.scale ? canonicalDecimal(v, t.scale) : integer(v, t.bytes);
    case 'float':
      return Number(v);
    case 'decfloat':
      // One text per value, whether from an image or from the driver: the standard's form.
      return decodeDecfloat(encodeDecfloat(String(v), t.digits), t.digits);
    case 'date': {
      const s = String(v).trim();
      return /^\d{4}-\d{2}-\d{2}$/.test(s) ? s : parseDate(s, form.dateFormat);
    }
    case 'time':
      return parseTime(String(v), /\s?[AP]M$/i.test(String(v)) ? 'usa' : form.timeFormat);
    case 'timestamp':
      return timestampText(String(v), form.utcOffsetMinutes, t.precision ?? 6);
    case 'hex':
    case 'varhex':
    case 'rowid':
      return typeof v === 'string' ? new TextEncoder().encode(v) : null;
    case 'lob':
      // CLOB, DBCLOB and XML come from SQL as text; a BLOB as bytes (above).
      return t.lob === 'BLOB' ? new TextEncoder().encode(String(v)) : String(v);
    case 'unsupported':
      throw new RangeError(`${f.name} (${t.sqlType}) cannot be replicated: ${t.reason}`);
  }
}

/**
 * A BOOLEAN from a record image (true/false) or from SQL, whichever way the driver hands it: a bit,
 * 1/0, or Db2's text TRUE/FALSE. Anything else is an error naming the column, never a guess.
 */
function booleanValue(f: FieldDef, v: FieldValue | IbmiValue): boolean {
  if (typeof v === 'boolean') return v;
  const s = v instanceof Uint8Array ? '' : String(v).trim().toUpperCase();
  if (s === '1' || s === 'TRUE') return true;
  if (s === '0' || s === 'FALSE') return false;
  throw new RangeError(`${f.name} (BOOLEAN) holds "${String(v)}", which is neither true nor false.`);
}

/** CURRENT TIMEZONE as Db2 answers it (a time duration ±hhmmss) in minutes east of UTC. */
export function timezoneMinutes(duration: IbmiValue): number {
  const n = Number(duration ?? 0);
  const abs = Math.abs(n);
  const minutes = Math.floor(abs / 10_000) * 60 + Math.floor((abs % 10_000) / 100);
  return n < 0 ? -minutes : minutes;
}
