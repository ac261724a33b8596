// CAST and CONVERT with T-SQL's rules ("CAST and CONVERT (Transact-SQL)"): the target type's
// metadata and value, styles for dates, and SQL Server's errors when a value does not convert (245,
// 8114, 241, 8169), overflows (220, 244/248, 8115) or cannot be shown (int to a too-short char: *),
// and integer arithmetic with 8134 and 8115. Values keep the sandbox's canonical forms (tds/dataTypes/sqlTypes.ts).
import type { SqlType, SqlValue } from '../tds/dataTypes/sqlTypes';
import { parseTypeName } from './typeNames';
import { statementError as fail } from './basics';
import { clrText, isClrType, toClr } from './clrValues';
import { fromVariant, variantInstance } from '../tds/variant';

export interface Evaluated {
  type: SqlType;
  value: SqlValue;
  /** The type was told from a stored value (a number in a decimal column looks like a float). */
  guessed?: boolean;
}

/** How SQL Server names a type in its messages: `int`, `numeric`, `varchar`, `datetime`. */
const typeWord = (t: SqlType) => (t.name === 'decimal' ? 'numeric' : t.name);

const INT_RANGE: Record<string, [bigint, bigint]> = {
  tinyint: [0n, 255n],
  smallint: [-32768n, 32767n],
  int: [-2147483648n, 2147483647n],
  bigint: [-9223372036854775808n, 9223372036854775807n],
};

const isText = (t: SqlType) =>
  t.name === 'char' ||
  t.name === 'varchar' ||
  t.name === 'nchar' ||
  t.name === 'nvarchar' ||
  t.name === 'text' ||
  t.name === 'ntext';
const isInteger = (t: SqlType) => t.name in INT_RANGE;
const isDecimal = (t: SqlType) => t.name === 'decimal' || t.name === 'numeric';

/** Exact decimal text → [unscaled, scale]. */
function parseDecimal(text: string): [bigint, number] | null {
  const m = /^\s*([+-]?)(\d*)(?:\.(\d*))?\s*$/.exec(text);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return null;
  const fraction = m[3] ?? '';
  const digits = BigInt(`${m[2] || '0'}${fraction}`);
  return [m[1] === '-' ? -digits : digits, fraction.length];
}

/** Rounds half away from zero to `scale` places, as SQL Server converts to decimal. */
function rescale(unscaled: bigint, from: number, to: number): bigint {
  if (to >= from) return unscaled * 10n ** BigInt(to - from);
  const div = 10n ** BigInt(from - to);
  const q = unscaled / div;
  const r = unscaled % div;
  const half = (r < 0n ? -r : r) * 2n >= div;
  return half ? q + (unscaled < 0n ? -1n : 1n) : q;
}

const decimalText = (unscaled: bigint, scale: number): string => {
  const negative = unscaled < 0n;
  const digits = (negative ? -unscaled : unscaled).toString().padStart(scale + 1, '0');
  const text = scale ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
  return negative ? `-${text}` : text;
};

/** The value as exact decimal parts, or null when it is not a number. */
function numberParts(v: Evaluated): [bigint, number] | null {
  const value = v.value;
  if (typeof value === 'bigint') return [value, 0];
  if (typeof value === 'boolean') return [value ? 1n : 0n, 0];
  if (typeof value === 'number')
    return Number.isInteger(value) ? [BigInt(value), 0] : parseDecimal(String(value));
  if (typeof value === 'string') return parseDecimal(value);
  return null;
}

function toInteger(v: Evaluated, to: SqlType): bigint {
  const [low, high] = INT_RANGE[to.name] ?? [0n, 0n];
  let n: bigint;
  if (isText(v.type)) {
    const text = String(v.value).trim();
    if (!/^[+-]?\d+$/.test(text))
      throw fail(
        245,
        `Conversion failed when converting the ${typeWord(v.type)} value '${String(v.value)}' to data type ${to.name}.`,
      );
    n = BigInt(text);
    if (n < low || n > high)
      throw fail(
        to.name === 'int' ? 248 : 244,
        `The conversion of the ${typeWord(v.type)} value '${String(v.value)}' overflowed an ${to.name} column. Use a larger integer column.`,
      );
    return n;
  }
  const parts = numberParts(v);
  if (!parts)
    throw fail(529, `Explicit conversion from data type ${typeWord(v.type)} to ${to.name} is not allowed.`);
  // Decimals and floats are cut, not rounded, when they become integers.
  n = parts[1] > 0 ? parts[0] / 10n ** BigInt(parts[1]) : parts[0];
  if (n < low || n > high) {
    if (to.name === 'tinyint' || to.name === 'smallint')
      throw fail(220, `Arithmetic overflow error for data type ${to.name}, value = ${n}.`);
    throw fail(8115, `Arithmetic overflow error converting expression to data type ${to.name}.`);
  }
  return n;
}

function toDecimal(v: Evaluated, to: { precision: number; scale: number }): string {
  const parts = numberParts(v);
  if (!parts) throw fail(8114, `Error converting data type ${typeWord(v.type)} to numeric.`);
  const unscaled = rescale(parts[0], parts[1], to.scale);
  if ((unscaled < 0n ? -unscaled : unscaled).toString().length > to.precision)
    throw fail(8115, `Arithmetic overflow error converting ${typeWord(v.type)} to data type numeric.`);
  return decimalText(unscaled, to.scale);
}

/** money and smallmoney: ten-thousandths, within their ranges ("money and smallmoney (Transact-SQL)"). */
export const MONEY_RANGE = {
  money: [-9223372036854775808n, 9223372036854775807n],
  smallmoney: [-2147483648n, 2147483647n],
} as const;

function toMoney(v: Evaluated, to: { name: 'money' | 'smallmoney' }): string {
  const parts = numberParts(v);
  if (!parts)
    throw fail(235, `Cannot convert a char value to ${to.name}. The char value has incorrect syntax.`);
  const units = rescale(parts[0], parts[1], 4);
  const [low, high] = MONEY_RANGE[to.name];
  if (units < low || units > high)
    throw fail(8115, `Arithmetic overflow error converting expression to data type ${to.name}.`);
  return decimalText(units, 4);
}

/** money as text: two places (style 0, the default, and 1 with commas), four with style 2 or 126. */
function moneyText(v: Evaluated, style: number | null): string {
  const parts = numberParts(v) ?? [0n, 0];
  const four = style === 2 || style === 126;
  const text = decimalText(rescale(parts[0], parts[1], four ? 4 : 2), four ? 4 : 2);
  if (style !== 1) return text;
  const [whole = '', fraction = ''] = text.split('.');
  return `${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${fraction}`;
}

const DATE_TIME = /^\s*(\d{4})-?(\d{2})-?(\d{2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,7}))?)?)?\s*$/;

const TIME_ALONE = /^\s*\d{1,2}:\d{2}(?::\d{2}(?:\.\d{1,7})?)?\s*$/;

/** A date/time string to the canonical `yyyy-mm-dd hh:mm:ss.fffffff` parts, or 241. */
function toTemporal(v: Evaluated, to: SqlType): string {
  const text = String(v.value);
  // A time alone is on 1900-01-01, SQL Server's default date ("time (Transact-SQL)", conversions).
  const m = DATE_TIME.exec(TIME_ALONE.test(text) ? `1900-01-01 ${text.trim()}` : text);
  const invalid = () =>
    fail(241, 'Conversion failed when converting date and/or time from character string.');
  if (!m) throw invalid();
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) throw invalid();
  const hh = Number(m[4] ?? 0);
  const mi = Number(m[5] ?? 0);
  const ss = Number(m[6] ?? 0);
  if (hh > 23 || mi > 59 || ss > 59) throw invalid();
  const ymd = `${m[1]}-${m[2]}-${m[3]}`;
  const hms = `${String(hh).padStart(2, '0')}:${String(mi).padStart(2, '0')}:${String(ss).padStart(2, '0')}`;
  const fraction = (m[7] ?? '').padEnd(7, '0');
  if (to.name === 'date') return ymd;
  if (to.name === 'smalldatetime') {
    // 1900-01-01 to 2079-06-06, to the minute: 29.999 seconds and more round up ("smalldatetime").
    const instant = Date.UTC(year, month - 1, day, hh, mi) + Math.round(Number(`${ss}.${fraction}`) * 1000);
    const rounded = new Date(Math.floor((instant + 30_001) / 60_000) * 60_000);
    if (rounded.getTime() < Date.UTC(1900, 0, 1) || rounded.getTime() > Date.UTC(2079, 5, 6, 23, 59))
      throw fail(
        242,
        `The conversion of a ${typeWord(v.type)} data type to a smalldatetime data type resulted in an out-of-range value.`,
      );
    return rounded.toISOString().slice(0, 19).replace('T', ' ');
  }
  if (to.name === 'datetime') {
    if (year < 1753)
      throw fail(
        242,
        `The conversion of a ${typeWord(v.type)} data type to a datetime data type resulted in an out-of-range value.`,
      );
    // datetime keeps 1/300 s: .xx0, .xx3 or .xx7 milliseconds.
    const ticks = Math.round(Number(`0.${fraction}`) * 300);
    const ms = Math.round((ticks * 1000) / 300);
    if (ms >= 1000) return `${ymd} ${hms}.997`;
    return `${ymd} ${hms}.${String(ms).padStart(3, '0')}`;
  }
  const scale = 'scale' in to ? to.scale : 7;
  const cut = scale ? `.${fraction.slice(0, scale)}` : '';
  return to.name === 'time' ? `${hms}${cut}` : `${ymd} ${hms}${cut}`;
}

/** Date and time as text, in the style CONVERT was given (default: 0 for datetime, 121 otherwise). */
function temporalText(v: Evaluated, style: number | null): string {
  const text = String(v.value);
  const m = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2}):(\d{2})(\.\d+)?)?(?: ([+-]\d{2}:\d{2}))?$/.exec(
    text,
  );
  if (!m) return text;
  const [, y, mo, d, hh = '00', mi = '00', ss = '00', fraction = '', offset] = m;
  const chosen = style ?? (v.type.name === 'datetime' || v.type.name === 'smalldatetime' ? 0 : 121);
  switch (chosen) {
    case 0:
    case 100: {
      const month = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][
        Number(mo) - 1
      ];
      const hour = Number(hh) % 12 || 12;
      return `${month} ${String(Number(d)).padStart(2, ' ')} ${y} ${String(hour).padStart(2, ' ')}:${mi}${Number(hh) < 12 ? 'AM' : 'PM'}`;
    }
    case 23:
      return `${y}-${mo}-${d}`;
    case 112:
      return `${y}${mo}${d}`;
    case 101:
      return `${mo}/${d}/${y}`;
    case 103:
      return `${d}/${mo}/${y}`;
    case 120:
      return `${y}-${mo}-${d} ${hh}:${mi}:${ss}`;
    case 126:
      return `${y}-${mo}-${d}T${hh}:${mi}:${ss}${fraction}${offset ?? ''}`;
    case 127:
      // ISO 8601 with its time zone: Z for UTC, the offset otherwise.
      return `${y}-${mo}-${d}T${hh}:${mi}:${ss}${fraction}${offset === undefined ? '' : offset === '+00:00' ? 'Z' : offset}`;
    default:
      return text;
  }
}

/**
 * A float as CONVERT shows it ("float and real styles"): style 0, at most 6 significant digits,
 * scientific when the exponent is below -4 or 6 and above (1.23457e+006); 1, 8 digits and 2, 16
 * digits, always scientific; 3, 17 digits, lossless.
 */
function floatText(n: number, style: number | null): string {
  const exponent = (digits: number) => {
    const [mantissa = '', e = '0'] = n.toExponential(digits - 1).split('e');
    const power = Number(e);
    return `${mantissa}e${power < 0 ? '-' : '+'}${String(Math.abs(power)).padStart(3, '0')}`;
  };
  if (!Number.isFinite(n)) return String(n);
  if (style === 1) return exponent(8);
  if (style === 2 || style === 126) return exponent(16);
  if (style === 3) return exponent(17);
  if (n === 0) return '0';
  const power = Number(n.toExponential(5).split('e')[1]);
  if (power < -4 || power >= 6) return exponent(6).replace(/\.?0+e/, 'e');
  return String(Number(n.toPrecision(6)));
}

function toText(v: Evaluated, to: { name: string; length: number | 'max' }, style: number | null): string {
  let text: string;
  // Binary styles 1 and 2: hexadecimal, with and without 0x ("Binary styles").
  if (v.value instanceof Buffer && (style === 1 || style === 2))
    text = `${style === 1 ? '0x' : ''}${v.value.toString('hex').toUpperCase()}`;
  else if (v.value instanceof Buffer) text = v.value.toString(to.name.startsWith('n') ? 'utf16le' : 'latin1');
  else if (typeof v.value === 'boolean') text = v.value ? '1' : '0';
  else if (['datetime', 'datetime2', 'date', 'time', 'datetimeoffset', 'smalldatetime'].includes(v.type.name))
    text = temporalText(v, style);
  else if (v.type.name === 'money' || v.type.name === 'smallmoney') text = moneyText(v, style);
  else if ((v.type.name === 'float' || v.type.name === 'real') && typeof v.value === 'number' && !v.guessed)
    text = floatText(v.value, style);
  else text = String(v.value);
  if (to.length === 'max' || text.length <= to.length) return text;
  // A number too long for the character type is shown as * (char, varchar) or refused (nchar, nvarchar).
  if (isInteger(v.type) || isDecimal(v.type)) {
    if (to.name.startsWith('n'))
      throw fail(8115, `Arithmetic overflow error converting expression to data type ${to.name}.`);
    return '*';
  }
  return text.slice(0, to.length);
}

/** CAST(value AS to) / CONVERT(to, value, style): the value as SQL Server gives it, or its error. */
export function convert(v: Evaluated, to: SqlType, style: number | null = null): Evaluated {
  if (v.value === null) return { type: to, value: null };
  // A variant converts as its base type and value; a value becomes a variant of its own type.
  if (v.type.name === 'sql_variant' && Buffer.isBuffer(v.value)) v = fromVariant(v.value);
  if (to.name === 'sql_variant') return { type: to, value: variantInstance(variantBase(v), v.value) };
  if (isClrType(to)) return { type: to, value: toClr(v.type, v.value, to) };
  // A CLR value converts to a string by ToString and to binary as its stored bytes.
  if (isClrType(v.type) && Buffer.isBuffer(v.value)) {
    if (isText(to)) v = { type: { name: 'nvarchar', length: 'max' }, value: clrText(v.type.name, v.value) };
    else if (to.name !== 'binary' && to.name !== 'varbinary')
      throw fail(529, `Explicit conversion from data type ${v.type.name} to ${to.name} is not allowed.`);
  }
  const name = to.name;
  if (name in INT_RANGE) {
    const n = toInteger(v, to);
    return { type: to, value: name === 'bigint' ? n : Number(n) };
  }
  if (name === 'decimal' || name === 'numeric') return { type: to, value: toDecimal(v, to) };
  if (name === 'money' || name === 'smallmoney') return { type: to, value: toMoney(v, { name }) };
  if (name === 'bit') {
    if (isText(v.type)) {
      const text = String(v.value).trim().toLowerCase();
      if (text === 'true' || text === 'false') return { type: to, value: text === 'true' };
      if (!/^[+-]?\d+(\.\d+)?$/.test(text))
        throw fail(
          245,
          `Conversion failed when converting the ${typeWord(v.type)} value '${String(v.value)}' to data type bit.`,
        );
      return { type: to, value: Number(text) !== 0 };
    }
    const parts = numberParts(v);
    return { type: to, value: parts ? parts[0] !== 0n : Boolean(v.value) };
  }
  if (name === 'float' || name === 'real') {
    const n = Number(typeof v.value === 'string' ? v.value.trim() : v.value);
    if (typeof v.value === 'string' && (v.value.trim() === '' || Number.isNaN(n)))
      throw fail(8114, `Error converting data type ${typeWord(v.type)} to ${name}.`);
    return { type: to, value: name === 'real' ? Math.fround(n) : n };
  }
  if (name === 'char' || name === 'varchar' || name === 'nchar' || name === 'nvarchar') {
    const text = toText(v, to, style);
    return {
      type: to,
      value: name === 'char' || name === 'nchar' ? text.padEnd(to.length === 'max' ? 0 : to.length) : text,
    };
  }
  if (name === 'binary' || name === 'varbinary') {
    const bytes =
      v.value instanceof Buffer
        ? v.value
        : Buffer.from(String(v.value), isText(v.type) && v.type.name.startsWith('n') ? 'utf16le' : 'latin1');
    const length = to.length === 'max' ? bytes.length : to.length;
    const cut = bytes.subarray(0, length);
    return {
      type: to,
      value: name === 'binary' ? Buffer.concat([cut, Buffer.alloc(length - cut.length)]) : cut,
    };
  }
  if (name === 'uniqueidentifier') {
    const text = String(v.value).trim();
    if (!/^\{?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\}?$/i.test(text))
      throw fail(8169, 'Conversion failed when converting from a character string to uniqueidentifier.');
    return { type: to, value: text.replace(/[{}]/g, '').toUpperCase() };
  }
  if (
    name === 'date' ||
    name === 'datetime' ||
    name === 'datetime2' ||
    name === 'time' ||
    name === 'smalldatetime'
  ) {
    if (isText(v.type)) return { type: to, value: toTemporal(v, to) };
    if (['date', 'datetime', 'datetime2', 'smalldatetime'].includes(v.type.name))
      return {
        type: to,
        value: toTemporal({ type: { name: 'varchar', length: 'max' }, value: v.value }, to),
      };
    throw fail(529, `Explicit conversion from data type ${typeWord(v.type)} to ${name} is not allowed.`);
  }
  // datetimeoffset: the date and time as datetime2, then the offset given (+00:00 when none).
  if (name === 'datetimeoffset' && (isText(v.type) || v.type.name.startsWith('date'))) {
    const text = String(v.value).trim();
    const m = /^(.*?)\s*(Z|[+-]\d{2}:\d{2})$/i.exec(text);
    const offset = !m || (m[2] ?? '').toUpperCase() === 'Z' ? '+00:00' : (m[2] as string);
    if (
      Math.abs(
        Number(offset.slice(0, 3)) * 60 +
          Math.sign(Number(offset.slice(0, 3)) || 1) * Number(offset.slice(4)),
      ) > 840
    )
      throw fail(241, 'Conversion failed when converting date and/or time from character string.');
    const local = toTemporal(
      { type: { name: 'varchar', length: 'max' }, value: m ? (m[1] as string) : text },
      {
        name: 'datetime2',
        scale: to.scale,
      },
    );
    return { type: to, value: `${local} ${offset}` };
  }
  if (name === 'xml')
    return { type: to, value: v.value instanceof Buffer ? v.value.toString('utf16le') : String(v.value) };
  if (name === 'rowversion') return convert(v, { name: 'binary', length: 8 }, style);
  if (name === 'text' || name === 'ntext')
    return {
      type: to,
      value: convert(v, { name: name === 'text' ? 'varchar' : 'nvarchar', length: 'max' }, style).value,
    };
  if (name === 'image')
    return { type: to, value: convert(v, { name: 'varbinary', length: 'max' }, style).value };
  throw fail(50000, `The sandbox does not convert to ${name} yet.`);
}

/** a op b for integers, as T-SQL does: 8134 on division by zero, 8115 past the type's range. */
export function integerArithmetic(a: Evaluated, op: string, b: Evaluated): Evaluated {
  const type: SqlType =
    a.type.name === 'bigint' || b.type.name === 'bigint' ? { name: 'bigint' } : { name: 'int' };
  if (a.value === null || b.value === null) return { type, value: null };
  const x = BigInt(a.value as number | bigint);
  const y = BigInt(b.value as number | bigint);
  if ((op === '/' || op === '%') && y === 0n) throw fail(8134, 'Divide by zero error encountered.');
  const result = op === '+' ? x + y : op === '-' ? x - y : op === '*' ? x * y : op === '/' ? x / y : x % y;
  const [low, high] = INT_RANGE[type.name] ?? [0n, 0n];
  if (result < low || result > high)
    throw fail(8115, `Arithmetic overflow error converting expression to data type ${type.name}.`);
  return { type, value: type.name === 'bigint' ? result : Number(result) };
}

/** The type CAST and CONVERT name; a character or binary type without a length has 30 (243 if unknown). */
export function castType(text: string): SqlType {
  const t = text.trim();
  const bare = /^(n?char|n?varchar|binary|varbinary)$/i.test(t);
  try {
    return parseTypeName(bare ? `${t}(30)` : t);
  } catch {
    throw fail(243, `Type ${t} is not a defined system type.`);
  }
}

/**
 * The base type a value keeps in a sql_variant when nothing declared one: an integer within int's
 * range is an int, text and bytes are sized to the value (sql_variant holds no max types).
 */
export function variantBase(v: Evaluated): SqlType {
  const t = v.type;
  if (t.name === 'bigint' && typeof v.value !== 'string') {
    const n = BigInt(v.value as number | bigint);
    return n >= -2147483648n && n <= 2147483647n ? { name: 'int' } : t;
  }
  if ('length' in t && t.length === 'max') {
    const size = Buffer.isBuffer(v.value) ? v.value.length : String(v.value).length;
    return { name: t.name, length: Math.max(1, size) } as SqlType;
  }
  return t;
}
