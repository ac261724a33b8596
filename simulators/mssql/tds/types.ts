// SQL Server data types on the wire (MS-TDS 2.2.5.4 TYPE_INFO, 2.2.5.5 values). The sandbox keeps
// values in exact, canonical forms: numbers, bigint, decimal digits as text, temporal values as text
// in T-SQL's own format (so datetime2(7) keeps its 100 ns), GUIDs as upper-case text, bytes as Buffer.
import { daysInMonth } from '../../../shared/calendar';

export type SqlType =
  | {
      name:
        | 'bit'
        | 'tinyint'
        | 'smallint'
        | 'int'
        | 'bigint'
        | 'float'
        | 'real'
        | 'date'
        | 'datetime'
        | 'uniqueidentifier'
        | 'money'
        | 'smallmoney'
        | 'rowversion'
        | 'xml'
        | 'smalldatetime'
        | 'text'
        | 'ntext'
        | 'image'
        | 'sql_variant'
        | 'hierarchyid'
        | 'geography'
        | 'geometry';
    }
  | { name: 'decimal' | 'numeric'; precision: number; scale: number }
  | { name: 'char' | 'varchar' | 'nchar' | 'nvarchar' | 'binary' | 'varbinary'; length: number | 'max' }
  | { name: 'time' | 'datetime2' | 'datetimeoffset'; scale: number };

export type SqlValue = null | boolean | number | bigint | string | Buffer;

export const TYPE = {
  GUID: 0x24,
  INTN: 0x26,
  DATEN: 0x28,
  TIMEN: 0x29,
  DATETIME2N: 0x2a,
  DATETIMEOFFSETN: 0x2b,
  BITN: 0x68,
  DECIMALN: 0x6a,
  NUMERICN: 0x6c,
  FLTN: 0x6d,
  DATETIMN: 0x6f,
  BIGVARBIN: 0xa5,
  BIGVARCHR: 0xa7,
  BIGBINARY: 0xad,
  BIGCHAR: 0xaf,
  NVARCHAR: 0xe7,
  NCHAR: 0xef,
  MONEYN: 0x6e,
  XML: 0xf1,
  UDT: 0xf0,
  // The deprecated large types: a text pointer and a timestamp before each value (MS-TDS 2.2.5.5.2).
  SSVARIANT: 0x62,
  TEXT: 0x23,
  NTEXT: 0x63,
  IMAGE: 0x22,
  // Fixed-length types a client may send in RPC parameters.
  INT1: 0x30,
  BIT: 0x32,
  INT2: 0x34,
  INT4: 0x38,
  DATETIM4: 0x3a,
  FLT4: 0x3b,
  DATETIME: 0x3d,
  FLT8: 0x3e,
  INT8: 0x7f,
  MONEY: 0x3c,
  MONEY4: 0x7a,
} as const;

/** SQL_Latin1_General_CP1_CI_AS: LCID 0x0409, case-insensitive flags, sort id 52 (code page 1252). */
export const DEFAULT_COLLATION = Buffer.from([0x09, 0x04, 0xd0, 0x00, 0x34]);
const PLP_NULL = 0xffffffffffffffffn;
const PLP_UNKNOWN = 0xfffffffffffffffen;

// ---------- TYPE_INFO ----------

const CLR_CLASSES = {
  hierarchyid: 'SqlHierarchyId',
  geography: 'SqlGeography',
  geometry: 'SqlGeometry',
} as const;

/**
 * UDT_INFO of a system CLR type (MS-TDS 2.2.5.5.3): the largest value (892 bytes for hierarchyid;
 * 0xFFFF, unlimited, for the spatial types), database, schema and type name, and the class's
 * assembly-qualified name.
 */
function udtInfo(name: keyof typeof CLR_CLASSES): Buffer {
  const bVarchar = (s: string) => Buffer.concat([Buffer.from([s.length]), Buffer.from(s, 'utf16le')]);
  const assembly = `Microsoft.SqlServer.Types.${CLR_CLASSES[name]}, Microsoft.SqlServer.Types, Version=11.0.0.0, Culture=neutral, PublicKeyToken=89845dcd8080cc91`;
  const head = Buffer.alloc(3);
  head[0] = TYPE.UDT;
  head.writeUInt16LE(name === 'hierarchyid' ? 892 : 0xffff, 1);
  const usLength = Buffer.alloc(2);
  usLength.writeUInt16LE(assembly.length);
  return Buffer.concat([
    head,
    bVarchar(''),
    bVarchar('sys'),
    bVarchar(name),
    usLength,
    Buffer.from(assembly, 'utf16le'),
  ]);
}

const intLength = { tinyint: 1, smallint: 2, int: 4, bigint: 8 } as const;

export function decimalBytes(precision: number): number {
  return precision <= 9 ? 4 : precision <= 19 ? 8 : precision <= 28 ? 12 : 16;
}
export function timeBytes(scale: number): number {
  return scale <= 2 ? 3 : scale <= 4 ? 4 : 5;
}

export function writeTypeInfo(t: SqlType): Buffer {
  switch (t.name) {
    case 'bit':
      return Buffer.from([TYPE.BITN, 1]);
    case 'tinyint':
    case 'smallint':
    case 'int':
    case 'bigint':
      return Buffer.from([TYPE.INTN, intLength[t.name]]);
    case 'float':
      return Buffer.from([TYPE.FLTN, 8]);
    case 'real':
      return Buffer.from([TYPE.FLTN, 4]);
    case 'decimal':
    case 'numeric':
      return Buffer.from([
        t.name === 'decimal' ? TYPE.DECIMALN : TYPE.NUMERICN,
        1 + decimalBytes(t.precision),
        t.precision,
        t.scale,
      ]);
    case 'date':
      return Buffer.from([TYPE.DATEN]);
    case 'datetime':
      return Buffer.from([TYPE.DATETIMN, 8]);
    case 'time':
      return Buffer.from([TYPE.TIMEN, t.scale]);
    case 'datetime2':
      return Buffer.from([TYPE.DATETIME2N, t.scale]);
    case 'datetimeoffset':
      return Buffer.from([TYPE.DATETIMEOFFSETN, t.scale]);
    case 'uniqueidentifier':
      return Buffer.from([TYPE.GUID, 16]);
    case 'money':
      return Buffer.from([TYPE.MONEYN, 8]);
    case 'smallmoney':
      return Buffer.from([TYPE.MONEYN, 4]);
    // rowversion is binary(8) on the wire (MS-TDS 2.2.5.5.1.2: timestamp is BIGBINARYTYPE, length 8).
    case 'rowversion':
      return Buffer.from([TYPE.BIGBINARY, 8, 0]);
    // XML_INFO with SCHEMA_PRESENT 0: untyped XML.
    case 'xml':
      return Buffer.from([TYPE.XML, 0]);
    case 'smalldatetime':
      return Buffer.from([TYPE.DATETIMN, 4]);
    case 'hierarchyid':
    case 'geography':
    case 'geometry':
      return udtInfo(t.name);
    case 'sql_variant': {
      const head = Buffer.alloc(5);
      head[0] = TYPE.SSVARIANT;
      head.writeUInt32LE(8016, 1);
      return head;
    }
    case 'text':
    case 'ntext':
    case 'image': {
      const head = Buffer.alloc(5);
      head[0] = { text: TYPE.TEXT, ntext: TYPE.NTEXT, image: TYPE.IMAGE }[t.name];
      head.writeUInt32LE(t.name === 'ntext' ? 0x7ffffffe : 0x7fffffff, 1);
      // Then the collation (text, ntext) and the table's name in parts: none named for a result column.
      return Buffer.concat([
        head,
        t.name === 'image' ? Buffer.alloc(0) : DEFAULT_COLLATION,
        Buffer.from([0]),
      ]);
    }
    case 'char':
    case 'varchar':
    case 'nchar':
    case 'nvarchar': {
      const unicode = t.name === 'nchar' || t.name === 'nvarchar';
      const id = { char: TYPE.BIGCHAR, varchar: TYPE.BIGVARCHR, nchar: TYPE.NCHAR, nvarchar: TYPE.NVARCHAR }[
        t.name
      ];
      const head = Buffer.alloc(3);
      head[0] = id;
      head.writeUInt16LE(t.length === 'max' ? 0xffff : t.length * (unicode ? 2 : 1), 1);
      return Buffer.concat([head, DEFAULT_COLLATION]);
    }
    case 'binary':
    case 'varbinary': {
      const head = Buffer.alloc(3);
      head[0] = t.name === 'binary' ? TYPE.BIGBINARY : TYPE.BIGVARBIN;
      head.writeUInt16LE(t.length === 'max' ? 0xffff : t.length, 1);
      return head;
    }
  }
}

export class Cursor {
  constructor(
    readonly buf: Buffer,
    public offset = 0,
  ) {}
  need(n: number): void {
    if (this.offset + n > this.buf.length) throw new Error('The request is cut short.');
  }
  u8(): number {
    this.need(1);
    return this.buf[this.offset++] ?? 0;
  }
  u16(): number {
    this.need(2);
    const v = this.buf.readUInt16LE(this.offset);
    this.offset += 2;
    return v;
  }
  u32(): number {
    this.need(4);
    const v = this.buf.readUInt32LE(this.offset);
    this.offset += 4;
    return v;
  }
  u64(): bigint {
    this.need(8);
    const v = this.buf.readBigUInt64LE(this.offset);
    this.offset += 8;
    return v;
  }
  bytes(n: number): Buffer {
    this.need(n);
    const v = this.buf.subarray(this.offset, this.offset + n);
    this.offset += n;
    return v;
  }
  /** B_VARCHAR: a byte count of UCS-2 characters, then the characters. */
  bVarchar(): string {
    return this.bytes(this.u8() * 2).toString('utf16le');
  }
  /** A BYTELEN count of bytes, then UCS-2 text: a transaction manager request's transaction name. */
  bVarbyteText(): string {
    return this.bytes(this.u8()).toString('utf16le');
  }
  /** US_VARCHAR: a USHORT count of UCS-2 characters. */
  usVarchar(): string {
    return this.bytes(this.u16() * 2).toString('utf16le');
  }
}

/** Reads a TYPE_INFO as a client sends it in an RPC parameter. */
export function readTypeInfo(c: Cursor): SqlType {
  const id = c.u8();
  switch (id) {
    case TYPE.BIT:
    case TYPE.BITN:
      if (id === TYPE.BITN) c.u8();
      return { name: 'bit' };
    case TYPE.INT1:
      return { name: 'tinyint' };
    case TYPE.INT2:
      return { name: 'smallint' };
    case TYPE.INT4:
      return { name: 'int' };
    case TYPE.INT8:
      return { name: 'bigint' };
    case TYPE.INTN: {
      const len = c.u8();
      return { name: len === 1 ? 'tinyint' : len === 2 ? 'smallint' : len === 4 ? 'int' : 'bigint' };
    }
    case TYPE.FLT4:
      return { name: 'real' };
    case TYPE.FLT8:
      return { name: 'float' };
    case TYPE.FLTN:
      return { name: c.u8() === 4 ? 'real' : 'float' };
    case TYPE.DECIMALN:
    case TYPE.NUMERICN: {
      c.u8();
      const precision = c.u8();
      const scale = c.u8();
      return { name: id === TYPE.DECIMALN ? 'decimal' : 'numeric', precision, scale };
    }
    case TYPE.DATEN:
      return { name: 'date' };
    case TYPE.DATETIME:
      return { name: 'datetime' };
    case TYPE.DATETIMN:
      return { name: c.u8() === 4 ? 'smalldatetime' : 'datetime' };
    case TYPE.TIMEN:
      return { name: 'time', scale: c.u8() };
    case TYPE.DATETIME2N:
      return { name: 'datetime2', scale: c.u8() };
    case TYPE.DATETIMEOFFSETN:
      return { name: 'datetimeoffset', scale: c.u8() };
    case TYPE.GUID:
      c.u8();
      return { name: 'uniqueidentifier' };
    case TYPE.MONEY:
      return { name: 'money' };
    case TYPE.MONEY4:
      return { name: 'smallmoney' };
    case TYPE.MONEYN:
      return { name: c.u8() === 4 ? 'smallmoney' : 'money' };
    case TYPE.DATETIM4:
      return { name: 'smalldatetime' };
    case TYPE.TEXT:
    case TYPE.NTEXT:
    case TYPE.IMAGE:
      c.u32();
      if (id !== TYPE.IMAGE) c.bytes(5);
      return { name: id === TYPE.TEXT ? 'text' : id === TYPE.NTEXT ? 'ntext' : 'image' };
    case TYPE.XML:
      // SCHEMA_PRESENT, then (when 1) the schema collection's database, owner and name.
      if (c.u8() === 1) {
        c.bVarchar();
        c.bVarchar();
        c.usVarchar();
      }
      return { name: 'xml' };
    case TYPE.BIGCHAR:
    case TYPE.BIGVARCHR:
    case TYPE.NCHAR:
    case TYPE.NVARCHAR: {
      const max = c.u16();
      c.bytes(5);
      const unicode = id === TYPE.NCHAR || id === TYPE.NVARCHAR;
      const name = (
        {
          [TYPE.BIGCHAR]: 'char',
          [TYPE.BIGVARCHR]: 'varchar',
          [TYPE.NCHAR]: 'nchar',
          [TYPE.NVARCHAR]: 'nvarchar',
        } as const
      )[id];
      return { name, length: max === 0xffff ? 'max' : unicode ? max / 2 : max };
    }
    case TYPE.BIGBINARY:
    case TYPE.BIGVARBIN: {
      const max = c.u16();
      return { name: id === TYPE.BIGBINARY ? 'binary' : 'varbinary', length: max === 0xffff ? 'max' : max };
    }
    default:
      throw new UnsupportedTypeError(id);
  }
}

export class UnsupportedTypeError extends Error {
  constructor(readonly typeId: number) {
    super(`The data type 0x${typeId.toString(16)} is not supported by the sandbox.`);
  }
}

// ---------- temporal values ----------

const MS_PER_DAY = 86_400_000;
const EPOCH_0001 = (() => {
  const d = new Date(0);
  d.setUTCFullYear(1, 0, 1);
  d.setUTCHours(0, 0, 0, 0);
  return d.getTime();
})();
const EPOCH_1900 = Date.UTC(1900, 0, 1);

function daysFrom(epoch: number, ymd: string): number {
  const [y, m, d] = ymd.split('-').map(Number);
  const date = new Date(0);
  date.setUTCFullYear(y ?? 1, (m ?? 1) - 1, d ?? 1);
  date.setUTCHours(0, 0, 0, 0);
  return Math.round((date.getTime() - epoch) / MS_PER_DAY);
}
function ymdFrom(epoch: number, days: number): string {
  const d = new Date(epoch + days * MS_PER_DAY);
  return `${String(d.getUTCFullYear()).padStart(4, '0')}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}
const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** 'HH:MM:SS[.fffffff]' → units of 10^-scale seconds since midnight (rounded to the scale). */
function timeUnits(hms: string, scale: number): bigint {
  const m = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$/.exec(hms);
  if (!m) throw new ValueError(`'${hms}' is not a time.`);
  const seconds = BigInt(Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3] ?? 0));
  const fraction = (m[4] ?? '').padEnd(9, '0');
  const nanos = BigInt(fraction);
  const unit = 10n ** BigInt(9 - scale);
  return seconds * 10n ** BigInt(scale) + (nanos + unit / 2n) / unit;
}
function timeText(units: bigint, scale: number): string {
  const per = 10n ** BigInt(scale);
  const seconds = Number(units / per);
  const frac = units % per;
  const hms = `${pad(Math.floor(seconds / 3600))}:${pad(Math.floor(seconds / 60) % 60)}:${pad(seconds % 60)}`;
  return scale === 0 ? hms : `${hms}.${frac.toString().padStart(scale, '0')}`;
}

function writeUnits(units: bigint, bytes: number): Buffer {
  const out = Buffer.alloc(bytes);
  let v = units;
  for (let i = 0; i < bytes; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}
function readUnits(b: Buffer): bigint {
  let v = 0n;
  for (let i = b.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[i] ?? 0);
  return v;
}
function date3(days: number): Buffer {
  const out = Buffer.alloc(3);
  out.writeUIntLE(days, 0, 3);
  return out;
}

export class ValueError extends Error {}

const DATETIME_RE = /^(\d{4}-\d{2}-\d{2})(?:[ T](\d{1,2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?))?$/;
const OFFSET_RE = /^(\d{4}-\d{2}-\d{2})[ T](\d{1,2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)\s*([+-])(\d{2}):(\d{2})$/;

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

function datetime2Bytes(v: string, scale: number): Buffer | null {
  const out = Buffer.allocUnsafe(4 + timeBytes(scale));
  return datetime2Into(v, scale, out, 0) ? out : null;
}

/** Shifts a local date-time by minutes, in exact units of the scale. */
function shift(days: number, units: bigint, scale: number, minutes: number): [number, bigint] {
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

// ---------- values ----------

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

function guidBytes(text: string): Buffer {
  const hex = text.replace(/[{}-]/g, '');
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) throw new ValueError(`'${text}' is not a uniqueidentifier.`);
  const b = Buffer.from(hex, 'hex');
  return Buffer.concat([
    Buffer.from(b.subarray(0, 4)).reverse(),
    Buffer.from(b.subarray(4, 6)).reverse(),
    Buffer.from(b.subarray(6, 8)).reverse(),
    b.subarray(8),
  ]);
}
function guidText(b: Buffer): string {
  const h = Buffer.concat([
    Buffer.from(b.subarray(0, 4)).reverse(),
    Buffer.from(b.subarray(4, 6)).reverse(),
    Buffer.from(b.subarray(6, 8)).reverse(),
    b.subarray(8),
  ])
    .toString('hex')
    .toUpperCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function plp(data: Buffer | null): Buffer {
  if (data === null) {
    const out = Buffer.alloc(8);
    out.writeBigUInt64LE(PLP_NULL);
    return out;
  }
  const head = Buffer.alloc(12);
  head.writeBigUInt64LE(BigInt(data.length));
  head.writeUInt32LE(data.length, 8);
  return data.length === 0
    ? Buffer.concat([head.subarray(0, 8), Buffer.alloc(4)])
    : Buffer.concat([head, data, Buffer.alloc(4)]);
}

const NULL_VALUE = Buffer.from([0]);
function lengthPrefixed(data: Buffer | null): Buffer {
  if (data === null) return NULL_VALUE;
  const b = Buffer.allocUnsafe(1 + data.length);
  b[0] = data.length;
  data.copy(b, 1);
  return b;
}

function stringBytes(t: SqlType, value: SqlValue): Buffer {
  let text = typeof value === 'string' ? value : String(value);
  // char(n) and nchar(n) are fixed-length: SQL Server pads them with spaces.
  if ((t.name === 'char' || t.name === 'nchar') && typeof t.length === 'number')
    text = text.padEnd(t.length, ' ');
  return t.name === 'nchar' || t.name === 'nvarchar'
    ? Buffer.from(text, 'utf16le')
    : Buffer.from(text, 'latin1');
}

/** A value as it follows its TYPE_INFO in a ROW or RETURNVALUE token. */
export function writeValue(t: SqlType, value: SqlValue): Buffer {
  switch (t.name) {
    case 'bit':
      return lengthPrefixed(
        value === null ? null : Buffer.from([value === true || value === 1 || value === 1n ? 1 : 0]),
      );
    case 'tinyint':
    case 'smallint':
    case 'int':
    case 'bigint': {
      if (value === null) return lengthPrefixed(null);
      // An int the driver gave as a number: written straight after its length byte.
      if (t.name === 'int' && typeof value === 'number' && Number.isInteger(value)) {
        const b = Buffer.allocUnsafe(5);
        b[0] = 4;
        b.writeInt32LE(value, 1);
        return b;
      }
      const b = Buffer.alloc(intLength[t.name]);
      const n = BigInt(typeof value === 'boolean' ? Number(value) : (value as number | bigint | string));
      if (t.name === 'tinyint') b.writeUInt8(Number(n));
      else if (t.name === 'smallint') b.writeInt16LE(Number(n));
      else if (t.name === 'int') b.writeInt32LE(Number(n));
      else b.writeBigInt64LE(n);
      return lengthPrefixed(b);
    }
    case 'float':
    case 'real': {
      if (value === null) return lengthPrefixed(null);
      const b = Buffer.alloc(t.name === 'float' ? 8 : 4);
      if (t.name === 'float') b.writeDoubleLE(Number(value));
      else b.writeFloatLE(Number(value));
      return lengthPrefixed(b);
    }
    case 'decimal':
    case 'numeric': {
      if (value === null) return lengthPrefixed(null);
      const unscaled = decimalToUnscaled(exactText(value), t.scale);
      const size = decimalBytes(t.precision);
      const b = Buffer.alloc(1 + size);
      b[0] = unscaled < 0n ? 0 : 1;
      writeUnits(unscaled < 0n ? -unscaled : unscaled, size).copy(b, 1);
      return lengthPrefixed(b);
    }
    case 'date': {
      if (value === null) return lengthPrefixed(null);
      return lengthPrefixed(date3(daysFrom(EPOCH_0001, String(value).slice(0, 10))));
    }
    case 'time': {
      if (value === null) return lengthPrefixed(null);
      return lengthPrefixed(writeUnits(timeUnits(String(value), t.scale), timeBytes(t.scale)));
    }
    case 'datetime2': {
      if (value === null) return lengthPrefixed(null);
      const fast = typeof value === 'string' ? datetime2Bytes(value, t.scale) : null;
      if (fast) return fast;
      const m = DATETIME_RE.exec(String(value));
      if (!m) throw new ValueError(`'${String(value)}' is not a datetime2.`);
      const [days, units] = shift(
        daysFrom(EPOCH_0001, m[1] ?? ''),
        timeUnits(m[2] ?? '00:00', t.scale),
        t.scale,
        0,
      );
      return lengthPrefixed(Buffer.concat([writeUnits(units, timeBytes(t.scale)), date3(days)]));
    }
    case 'datetimeoffset': {
      if (value === null) return lengthPrefixed(null);
      const m = OFFSET_RE.exec(String(value));
      if (!m) throw new ValueError(`'${String(value)}' is not a datetimeoffset.`);
      const offset = (m[3] === '-' ? -1 : 1) * (Number(m[4]) * 60 + Number(m[5]));
      const [days, units] = shift(
        daysFrom(EPOCH_0001, m[1] ?? ''),
        timeUnits(m[2] ?? '', t.scale),
        t.scale,
        -offset,
      );
      const o = Buffer.alloc(2);
      o.writeInt16LE(offset);
      return lengthPrefixed(Buffer.concat([writeUnits(units, timeBytes(t.scale)), date3(days), o]));
    }
    case 'datetime': {
      if (value === null) return lengthPrefixed(null);
      const m = DATETIME_RE.exec(String(value));
      if (!m) throw new ValueError(`'${String(value)}' is not a datetime.`);
      let days = daysFrom(EPOCH_1900, m[1] ?? '');
      // datetime counts 1/300 s; 3.33 ms steps, rounded as SQL Server rounds (.xx0, .xx3, .xx7).
      let ticks = Number((timeUnits(m[2] ?? '00:00', 7) * 300n + 5_000_000n) / 10_000_000n);
      if (ticks >= 300 * 86_400) {
        ticks -= 300 * 86_400;
        days += 1;
      }
      const b = Buffer.alloc(8);
      b.writeInt32LE(days);
      b.writeUInt32LE(ticks, 4);
      return lengthPrefixed(b);
    }
    case 'uniqueidentifier':
      return lengthPrefixed(value === null ? null : guidBytes(String(value)));
    case 'money':
    case 'smallmoney': {
      if (value === null) return lengthPrefixed(null);
      // Ten-thousandths as an integer: smallmoney in 4 bytes; money in 8, the high half first.
      const units = decimalToUnscaled(exactText(value), 4);
      if (t.name === 'smallmoney') {
        const b = Buffer.alloc(4);
        b.writeInt32LE(Number(units));
        return lengthPrefixed(b);
      }
      const b = Buffer.alloc(8);
      b.writeInt32LE(Number(BigInt.asIntN(64, units) >> 32n));
      b.writeUInt32LE(Number(BigInt.asUintN(32, units)), 4);
      return lengthPrefixed(b);
    }
    case 'rowversion': {
      if (value === null) return Buffer.from([0xff, 0xff]);
      const data = Buffer.isBuffer(value) ? value : Buffer.alloc(8);
      return Buffer.concat([Buffer.from([data.length, 0]), data]);
    }
    case 'xml':
      return plp(value === null ? null : Buffer.from(String(value), 'utf16le'));
    // CLR values go as their stored bytes, always PLP (MS-TDS 2.2.5.5.3).
    case 'hierarchyid':
    case 'geography':
    case 'geometry':
      return plp(value === null ? null : Buffer.isBuffer(value) ? value : Buffer.alloc(0));
    case 'smalldatetime': {
      if (value === null) return lengthPrefixed(null);
      const m = DATETIME_RE.exec(String(value));
      if (!m) throw new ValueError(`'${String(value)}' is not a smalldatetime.`);
      // Days since 1900 and minutes since midnight; 29.999 seconds and more round up to the next minute.
      let days = daysFrom(EPOCH_1900, m[1] ?? '');
      let minutes = Number((timeUnits(m[2] ?? '00:00', 3) + 30_001n) / 60_000n);
      if (minutes >= 1440) {
        minutes -= 1440;
        days += 1;
      }
      const b = Buffer.alloc(4);
      b.writeUInt16LE(days);
      b.writeUInt16LE(minutes, 2);
      return lengthPrefixed(b);
    }
    // A stored variant is its instance (variant.ts): sent with its length.
    case 'sql_variant':
      return Buffer.isBuffer(value)
        ? Buffer.concat([Buffer.from([value.length & 0xff, (value.length >> 8) & 0xff, 0, 0]), value])
        : variantValue(value);
    case 'text':
    case 'ntext':
    case 'image': {
      if (value === null) return Buffer.from([0]);
      const data = Buffer.isBuffer(value)
        ? value
        : Buffer.from(String(value), t.name === 'ntext' ? 'utf16le' : 'latin1');
      // A 16-byte text pointer and an 8-byte timestamp, which clients skip, then the value.
      const head = Buffer.alloc(1 + 16 + 8 + 4);
      head[0] = 16;
      head.writeUInt32LE(data.length, 25);
      return Buffer.concat([head, data]);
    }
    case 'char':
    case 'varchar':
    case 'nchar':
    case 'nvarchar':
    case 'binary':
    case 'varbinary': {
      const data = value === null ? null : Buffer.isBuffer(value) ? value : stringBytes(t, value);
      if (t.length === 'max') return plp(data);
      if (data === null) return Buffer.from([0xff, 0xff]);
      const head = Buffer.alloc(2);
      head.writeUInt16LE(data.length);
      return Buffer.concat([head, data]);
    }
  }
}

/**
 * A sql_variant value (MS-TDS 2.2.5.5.4): its base type's token, the properties' length, the
 * properties, then the value. The sandbox keeps no base type beside a stored value, so it is told
 * from the value: int or bigint, float, varbinary, or nvarchar (simulators/mssql/CONFORMANCE.md).
 */
function variantValue(value: SqlValue): Buffer {
  const long = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    return b;
  };
  if (value === null) return long(0);
  let instance: Buffer;
  if (typeof value === 'bigint' || (typeof value === 'number' && Number.isInteger(value))) {
    const n = BigInt(value);
    const small = n >= -2147483648n && n <= 2147483647n;
    const data = Buffer.alloc(small ? 4 : 8);
    if (small) data.writeInt32LE(Number(n));
    else data.writeBigInt64LE(n);
    instance = Buffer.concat([Buffer.from([small ? TYPE.INT4 : TYPE.INT8, 0]), data]);
  } else if (typeof value === 'number') {
    const data = Buffer.alloc(8);
    data.writeDoubleLE(value);
    instance = Buffer.concat([Buffer.from([TYPE.FLT8, 0]), data]);
  } else if (Buffer.isBuffer(value)) {
    const max = Buffer.alloc(2);
    max.writeUInt16LE(8000);
    instance = Buffer.concat([Buffer.from([TYPE.BIGVARBIN, 2]), max, value]);
  } else {
    const data = Buffer.from(typeof value === 'boolean' ? (value ? '1' : '0') : String(value), 'utf16le');
    const max = Buffer.alloc(2);
    max.writeUInt16LE(8000);
    instance = Buffer.concat([Buffer.from([TYPE.NVARCHAR, 7]), DEFAULT_COLLATION, max, data]);
  }
  return Buffer.concat([long(instance.length), instance]);
}

function readPlp(c: Cursor): Buffer | null {
  const total = c.u64();
  if (total === PLP_NULL) return null;
  const parts: Buffer[] = [];
  for (;;) {
    const size = c.u32();
    if (size === 0) break;
    parts.push(c.bytes(size));
  }
  const data = Buffer.concat(parts);
  if (total !== PLP_UNKNOWN && BigInt(data.length) !== total)
    throw new Error('A PLP value is shorter than announced.');
  return data;
}

/** Reads a parameter value that follows its TYPE_INFO. */
export function readValue(t: SqlType, c: Cursor): SqlValue {
  if (t.name === 'xml') return readPlp(c)?.toString('utf16le') ?? null;
  if (t.name === 'text' || t.name === 'ntext' || t.name === 'image') {
    const size = c.u32();
    if (size === 0xffffffff) return null;
    const data = c.bytes(size);
    return t.name === 'image' ? Buffer.from(data) : data.toString(t.name === 'ntext' ? 'utf16le' : 'latin1');
  }
  if ('length' in t) {
    let data: Buffer | null;
    if (t.length === 'max') data = readPlp(c);
    else {
      const size = c.u16();
      data = size === 0xffff ? null : c.bytes(size);
    }
    if (data === null) return null;
    if (t.name === 'binary' || t.name === 'varbinary') return Buffer.from(data);
    return t.name === 'nchar' || t.name === 'nvarchar' ? data.toString('utf16le') : data.toString('latin1');
  }
  const size = c.u8();
  if (size === 0) return null;
  const b = c.bytes(size);
  switch (t.name) {
    case 'bit':
      return b[0] !== 0;
    case 'tinyint':
    case 'smallint':
    case 'int':
    case 'bigint':
      return size === 1
        ? b.readUInt8()
        : size === 2
          ? b.readInt16LE()
          : size === 4
            ? b.readInt32LE()
            : b.readBigInt64LE();
    case 'float':
    case 'real':
      return size === 4 ? b.readFloatLE() : b.readDoubleLE();
    case 'decimal':
    case 'numeric': {
      const magnitude = readUnits(b.subarray(1));
      return unscaledToDecimal(b[0] === 1 ? magnitude : -magnitude, t.scale);
    }
    case 'date':
      return ymdFrom(EPOCH_0001, b.readUIntLE(0, 3));
    case 'time':
      return timeText(readUnits(b), t.scale);
    case 'datetime2': {
      const tb = timeBytes(t.scale);
      return `${ymdFrom(EPOCH_0001, b.readUIntLE(tb, 3))} ${timeText(readUnits(b.subarray(0, tb)), t.scale)}`;
    }
    case 'datetimeoffset': {
      const tb = timeBytes(t.scale);
      const offset = b.readInt16LE(tb + 3);
      const [days, units] = shift(b.readUIntLE(tb, 3), readUnits(b.subarray(0, tb)), t.scale, offset);
      const sign = offset < 0 ? '-' : '+';
      const abs = Math.abs(offset);
      return `${ymdFrom(EPOCH_0001, days)} ${timeText(units, t.scale)} ${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
    }
    case 'datetime': {
      const days = b.readInt32LE(0);
      const ticks = b.readUInt32LE(4);
      // 1/300 s ticks shown in milliseconds, rounded: tick 2 is .007, as SQL Server shows it.
      const ms = BigInt(Math.round((ticks * 10) / 3));
      return `${ymdFrom(EPOCH_1900, days)} ${timeText(ms, 3)}`;
    }
    case 'uniqueidentifier':
      return guidText(b);
    case 'money':
    case 'smallmoney': {
      const units =
        size === 4 ? BigInt(b.readInt32LE(0)) : (BigInt(b.readInt32LE(0)) << 32n) | BigInt(b.readUInt32LE(4));
      return unscaledToDecimal(units, 4);
    }
    case 'rowversion':
      return Buffer.from(b);
    case 'sql_variant':
      throw new UnsupportedTypeError(TYPE.SSVARIANT);
    case 'hierarchyid':
    case 'geography':
    case 'geometry':
      throw new UnsupportedTypeError(TYPE.UDT);
    case 'smalldatetime': {
      const minutes = b.readUInt16LE(2);
      return `${ymdFrom(EPOCH_1900, b.readUInt16LE(0))} ${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}:00`;
    }
  }
}
