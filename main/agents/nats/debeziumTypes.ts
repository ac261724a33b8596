// Each source column as Debezium's documented types write it with Kafka Connect's JSON converter
// (SQL Server connector, time.precision.mode=adaptive; the Db2 mapping for IBM i), from the one value
// form the agents read (targetValues.ts, portable). Exact: decimals from their digits, times from
// their text, int64 as digits (never through a JavaScript number). docs/nats-jetstream.md lists them.
import { Buffer } from 'node:buffer';
import type { DecimalHandling } from '../../../shared/agents/nats';
import type { ColumnShape, RowValue } from '../source';
import { affinityOf, portable } from '../targetValues';

/** A JSON value whose int64 may be a bigint: written as its digits (jsonText). */
export type Json =
  null | boolean | number | string | bigint | readonly Json[] | { readonly [k: string]: Json };

/** A Kafka Connect field schema, as the JSON converter writes it. */
export interface FieldSchema {
  type: 'int16' | 'int32' | 'int64' | 'float32' | 'float64' | 'boolean' | 'string' | 'bytes' | 'struct';
  optional: boolean;
  name?: string;
  version?: number;
  parameters?: Record<string, string>;
  fields?: (FieldSchema & { field: string })[];
}

export interface ColumnCodec {
  schema: Omit<FieldSchema, 'optional'>;
  encode(v: RowValue): Json;
}

export class ValueNotSendable extends Error {}

const baseType = (c: ColumnShape) => c.sourceType.toLowerCase().replace(/\(.*$/, '').trim();
/** The digits in `type(n)` (a time's or timestamp's fraction), or `fallback`. */
const precisionOf = (c: ColumnShape, fallback: number) => {
  const m = /\((\d+)\)/.exec(c.sourceType);
  return m ? Number(m[1]) : fallback;
};

const base64 = (bytes: Uint8Array) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');

/** The unscaled value's two's-complement bytes, big-endian and as short as they can be (BigDecimal's). */
export function unscaledBytes(unscaled: bigint): Uint8Array {
  const bytes: number[] = [];
  let v = unscaled;
  for (;;) {
    const byte = Number(BigInt.asUintN(8, v));
    bytes.unshift(byte);
    v >>= 8n;
    // Done once the rest is only the sign, and this byte's top bit already says it.
    if ((v === 0n && (byte & 0x80) === 0) || (v === -1n && (byte & 0x80) !== 0)) break;
  }
  return Uint8Array.from(bytes);
}

/** Decimal text (`-12.50`, `1.5E+3`) as an unscaled integer and its scale. */
export function decimalParts(text: string): { unscaled: bigint; scale: number } {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
  if (!m || (m[2] ?? '') + (m[3] ?? '') === '')
    throw new ValueNotSendable(`"${text}" is not a decimal number`);
  const fraction = m[3] ?? '';
  let scale = fraction.length - Number(m[4] ?? 0);
  let digits = `${m[2] ?? ''}${fraction}`;
  if (scale < 0) {
    digits += '0'.repeat(-scale);
    scale = 0;
  }
  const unscaled = BigInt(digits || '0');
  return { unscaled: m[1] === '-' ? -unscaled : unscaled, scale };
}

/** Days from 1970-01-01 to a proleptic Gregorian date, exact for years 1 to 9999 (no Date involved). */
export function epochDays(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,12}))?$/;
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,12}))?$/;

/** Units since midnight (`digits` fraction digits per second): a time's text, exact. */
function timeUnits(text: string, digits: number): bigint {
  const m = TIME.exec(text);
  if (!m) throw new ValueNotSendable(`"${text}" is not a time`);
  const seconds = BigInt(Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]));
  const fraction = BigInt((m[4] ?? '').padEnd(digits, '0').slice(0, digits) || '0');
  return seconds * 10n ** BigInt(digits) + fraction;
}

/** Units since the epoch (`digits` fraction digits per second) of a date-time's text, in its own zone. */
function dateTimeUnits(text: string, digits: number): bigint {
  const m = DATETIME.exec(text);
  if (!m) throw new ValueNotSendable(`"${text}" is not a date and time`);
  const days = BigInt(epochDays(Number(m[1]), Number(m[2]), Number(m[3])));
  const seconds = days * 86400n + BigInt(Number(m[4]) * 3600 + Number(m[5]) * 60 + Number(m[6]));
  const fraction = BigInt((m[7] ?? '').padEnd(digits, '0').slice(0, digits) || '0');
  return seconds * 10n ** BigInt(digits) + fraction;
}

/** An int64 stays a bigint: jsonText writes its digits, so none is lost past 2^53. */
const int64 = (v: bigint): Json => v;

const text = (c: ColumnShape, v: RowValue) => String(portable(c, v));

/** A decimal at its column's scale as Kafka Connect's Decimal (precise mode). */
function fixedDecimal(c: ColumnShape): ColumnCodec {
  const type = c.sourceType.toLowerCase();
  const money = /money/.test(type);
  const m = /\((\d+)\s*,\s*(\d+)\)/.exec(type);
  const precision = money ? (type.startsWith('small') ? 10 : 19) : Number(m?.[1] ?? 18);
  const scale = money ? 4 : Number(m?.[2] ?? 0);
  return {
    schema: {
      type: 'bytes',
      name: 'org.apache.kafka.connect.data.Decimal',
      version: 1,
      parameters: { scale: String(scale), 'connect.decimal.precision': String(precision) },
    },
    encode: (v) => {
      const parts = decimalParts(text(c, v));
      // At the column's scale: 12.5 in decimal(9,2) is 1250 unscaled.
      if (parts.scale > scale) throw new ValueNotSendable(`${text(c, v)} has more than ${scale} decimals`);
      return base64(unscaledBytes(parts.unscaled * 10n ** BigInt(scale - parts.scale)));
    },
  };
}

/** DECFLOAT: each value has its own scale (Debezium's VariableScaleDecimal); NaN and infinities have none. */
function variableDecimal(c: ColumnShape): ColumnCodec {
  return {
    schema: {
      type: 'struct',
      name: 'io.debezium.data.VariableScaleDecimal',
      version: 1,
      fields: [
        { type: 'int32', optional: false, field: 'scale' },
        { type: 'bytes', optional: false, field: 'value' },
      ],
    },
    encode: (v) => {
      const t = text(c, v);
      if (!/\d/.test(t))
        throw new ValueNotSendable(
          `${c.name} holds ${t}, which precise decimals cannot carry: choose "string" for Decimals`,
        );
      const { unscaled, scale } = decimalParts(t);
      return { scale, value: base64(unscaledBytes(unscaled)) };
    },
  };
}

/** Time and timestamp codecs by fraction digits: ms, µs or ns (adaptive), exact text past that. */
function timeCodec(c: ColumnShape, digits: number): ColumnCodec {
  if (digits <= 3)
    return {
      schema: { type: 'int32', name: 'io.debezium.time.Time', version: 1 },
      encode: (v) => Number(timeUnits(text(c, v), 3)),
    };
  const nano = digits > 6;
  return {
    schema: {
      type: 'int64',
      name: nano ? 'io.debezium.time.NanoTime' : 'io.debezium.time.MicroTime',
      version: 1,
    },
    encode: (v) => int64(timeUnits(text(c, v), nano ? 9 : 6)),
  };
}

function timestampCodec(c: ColumnShape, digits: number): ColumnCodec {
  if (digits > 9)
    // Picoseconds (IBM i TIMESTAMP(10..12)) have no Debezium type: the exact text, ISO 8601.
    return { schema: { type: 'string' }, encode: (v) => text(c, v).replace(' ', 'T') };
  const [name, unit] =
    digits <= 3
      ? (['io.debezium.time.Timestamp', 3] as const)
      : digits <= 6
        ? (['io.debezium.time.MicroTimestamp', 6] as const)
        : (['io.debezium.time.NanoTimestamp', 9] as const);
  return {
    schema: { type: 'int64', name, version: 1 },
    encode: (v) => int64(dateTimeUnits(text(c, v), unit)),
  };
}

/** Standard WKB as PostGIS writes it (Z and M as its flags), the SRID taken out to its own field. */
function spatialCodec(c: ColumnShape, geography: boolean): ColumnCodec {
  return {
    schema: {
      type: 'struct',
      name: geography ? 'io.debezium.data.geometry.Geography' : 'io.debezium.data.geometry.Geometry',
      version: 1,
      fields: [
        { type: 'bytes', optional: false, field: 'wkb' },
        { type: 'int32', optional: true, field: 'srid' },
      ],
    },
    encode: (v) => {
      const ewkb = portable(c, v);
      if (!(ewkb instanceof Uint8Array)) throw new ValueNotSendable(`${c.name} is not a spatial value`);
      const view = new DataView(ewkb.buffer, ewkb.byteOffset, ewkb.byteLength);
      const type = view.getUint32(1, true);
      if ((type & 0x20000000) === 0) return { wkb: base64(ewkb), srid: null };
      const srid = view.getInt32(5, true);
      const wkb = new Uint8Array(ewkb.length - 4);
      wkb.set(ewkb.subarray(0, 5));
      wkb.set(ewkb.subarray(9), 5);
      new DataView(wkb.buffer).setUint32(1, type & ~0x20000000, true);
      return { wkb: base64(wkb), srid };
    },
  };
}

/** The codec of a column, decided once per table. */
export function columnCodec(c: ColumnShape, decimals: DecimalHandling): ColumnCodec {
  const base = baseType(c);
  const affinity = affinityOf(c);
  switch (affinity) {
    case 'boolean':
      return { schema: { type: 'boolean' }, encode: (v) => portable(c, v) === true };
    case 'integer': {
      const type = base === 'bigint' ? 'int64' : base === 'int' || base === 'integer' ? 'int32' : 'int16';
      return {
        schema: { type },
        encode: (v) => {
          const p = portable(c, v);
          return typeof p === 'bigint' ? int64(p) : Number(p);
        },
      };
    }
    case 'float':
      return {
        schema: { type: base === 'real' ? 'float32' : 'float64' },
        // JSON has no NaN or infinity: Jackson's names for them, as text.
        encode: (v) => {
          const n = Number(v);
          return Number.isFinite(n) ? n : String(n);
        },
      };
    case 'decimal':
      // decimal.handling.mode: the exact digits as text, or a double (may round), whatever the type.
      if (decimals === 'string') return { schema: { type: 'string' }, encode: (v) => text(c, v) };
      if (decimals === 'double') return { schema: { type: 'float64' }, encode: (v) => Number(text(c, v)) };
      return base === 'decfloat' ? variableDecimal(c) : fixedDecimal(c);
    case 'date':
      return {
        schema: { type: 'int32', name: 'io.debezium.time.Date', version: 1 },
        encode: (v) => {
          const m = DATE.exec(text(c, v));
          if (!m) throw new ValueNotSendable(`"${text(c, v)}" is not a date`);
          return epochDays(Number(m[1]), Number(m[2]), Number(m[3]));
        },
      };
    case 'time':
      // SQL Server's time(n); IBM i TIME has whole seconds.
      return timeCodec(c, precisionOf(c, base === 'time' && /\(/.test(c.sourceType) ? 7 : 0));
    case 'datetime':
      return timestampCodec(
        c,
        base === 'datetime' || base === 'smalldatetime' ? 3 : precisionOf(c, base === 'timestamp' ? 6 : 7),
      );
    case 'datetimeoffset':
      return {
        schema: { type: 'string', name: 'io.debezium.time.ZonedTimestamp', version: 1 },
        encode: (v) => (v instanceof Date ? v.toISOString() : String(v)),
      };
    case 'uuid':
      // As SQL Server shows it (upper-case), as Debezium's connector reads it.
      return { schema: { type: 'string' }, encode: (v) => String(v).toUpperCase() };
    case 'binary':
      return {
        schema: { type: 'bytes' },
        encode: (v) => (v instanceof Uint8Array ? base64(v) : base64(Buffer.from(String(v), 'utf8'))),
      };
    case 'spatial':
      return spatialCodec(c, base === 'geography');
    case 'text':
      return base === 'xml'
        ? { schema: { type: 'string', name: 'io.debezium.data.Xml', version: 1 }, encode: (v) => String(v) }
        : { schema: { type: 'string' }, encode: (v) => (v instanceof Uint8Array ? base64(v) : String(v)) };
  }
}

/**
 * JSON text of a value, bigints as their digits (an int64 beyond 2^53 stays exact); with `ascii`,
 * every character past U+007E as `\uXXXX` (for a header, whose value must be ASCII).
 */
export function jsonText(v: Json, ascii = false): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'bigint':
      return v.toString();
    case 'number':
      return Number.isFinite(v) ? JSON.stringify(v) : 'null';
    case 'string':
      return asciiJson(v, ascii);
    case 'boolean':
      return v ? 'true' : 'false';
  }
  if (Array.isArray(v)) return `[${(v as readonly Json[]).map((x) => jsonText(x, ascii)).join(',')}]`;
  const parts: string[] = [];
  for (const [k, x] of Object.entries(v as Record<string, Json>))
    parts.push(`${asciiJson(k, ascii)}:${jsonText(x, ascii)}`);
  return `{${parts.join(',')}}`;
}

/** A JSON string; with `ascii`, characters past U+007E escaped so the text is ASCII and means the same. */
function asciiJson(s: string, ascii: boolean): string {
  const json = JSON.stringify(s);
  if (!ascii) return json;
  return json.replace(/[\u007f-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
