// Text in the CCSIDs IBM i files hold: single-byte EBCDIC, mixed single/double-byte EBCDIC with
// shift-out/shift-in, double-byte EBCDIC (GRAPHIC), UTF-16 and UTF-8. The EBCDIC tables are IBM's Toolbox
// for Java's (scripts/gen-ccsid.py; docs/ccsid-tables.md). Decoding fills a buffer of UTF-16 units through the tables and
// makes one string of it, never a string per character.
import { inflateSync } from 'node:zlib';
import { DOUBLE_BYTE, DOUBLE_BYTE_SAME_AS, MIXED, SINGLE_BYTE } from './ccsidTables';

export type CcsidKind = 'single' | 'mixed' | 'double' | 'utf16' | 'utf8';

/** 65535: binary data, no character set; kept as bytes. */
export const BINARY_CCSID = 65535;
const UNICODE: Readonly<Record<number, CcsidKind>> = { 1200: 'utf16', 13488: 'utf16', 1208: 'utf8' };
const SO = 0x0e;
const SI = 0x0f;
const SUB = 0x3f;
const DBCS_SUB = 0xfefe;
const SEE_EXTRAS = 0xffff;
const REPLACEMENT = 0xfffd;

// The tables are large objects: their kind is looked up once per CCSID, not per value.
const kinds = new Map<number, CcsidKind | null>();
export function ccsidKind(ccsid: number): CcsidKind | null {
  let kind = kinds.get(ccsid);
  if (kind === undefined) {
    kind = UNICODE[ccsid] ?? null;
    if (!kind && MIXED[ccsid]) kind = 'mixed';
    else if (!kind && (DOUBLE_BYTE[ccsid] || DOUBLE_BYTE_SAME_AS[ccsid])) kind = 'double';
    else if (!kind && SINGLE_BYTE[ccsid]) kind = 'single';
    kinds.set(ccsid, kind);
  }
  return kind;
}

const asciiTables = new Map<number, Uint8Array>();
/**
 * Whether every character of `text` is ASCII that the CCSID holds as one byte and gives back as it
 * was (decided per character through the codec itself, once per CCSID): such text takes as many
 * bytes as characters, and encoding then decoding it changes nothing.
 */
export function asciiRoundTrips(text: string, ccsid: number): boolean {
  let table = asciiTables.get(ccsid);
  if (!table) {
    table = new Uint8Array(128);
    if (ccsidKind(ccsid) !== null)
      for (let code = 0x20; code < 0x7f; code++) {
        const ch = String.fromCharCode(code);
        const bytes = encodeText(ch, ccsid);
        table[code] = bytes.length === 1 && decodeText(bytes, ccsid) === ch ? 1 : 0;
      }
    asciiTables.set(ccsid, table);
  }
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 128 || table[code] !== 1) return false;
  }
  return true;
}

/** The double-byte CCSID of a mixed CCSID's shift-out data (GRAPHIC columns' CCSID in a mixed job). */
export const doubleByteHalf = (ccsid: number): number | null => MIXED[ccsid]?.double ?? null;

/** Every CCSID whose text the agent decodes, in order. */
export const TEXT_CCSIDS: readonly number[] = [
  ...new Set([
    ...Object.keys(SINGLE_BYTE),
    ...Object.keys(MIXED),
    ...Object.keys(DOUBLE_BYTE),
    ...Object.keys(DOUBLE_BYTE_SAME_AS),
    ...Object.keys(UNICODE),
  ]),
]
  .map(Number)
  .sort((a, b) => a - b);

function unsupported(ccsid: number): RangeError {
  return new RangeError(`CCSID ${ccsid} is not one the journal agent decodes (${TEXT_CCSIDS.join(', ')}).`);
}

const singleTables = new Map<number, Uint16Array>();
function singleTable(ccsid: number): Uint16Array {
  let t = singleTables.get(ccsid);
  if (!t) {
    const chars = SINGLE_BYTE[ccsid];
    if (!chars) throw unsupported(ccsid);
    t = Uint16Array.from(chars, (c) => c.charCodeAt(0));
    singleTables.set(ccsid, t);
  }
  return t;
}

interface DoubleTable {
  units: Uint16Array;
  extras: ReadonlyMap<number, string>;
}
const doubleTables = new Map<number, DoubleTable>();
function doubleTable(ccsid: number): DoubleTable {
  let t = doubleTables.get(ccsid);
  if (!t) {
    const packed = DOUBLE_BYTE[ccsid] ?? DOUBLE_BYTE[DOUBLE_BYTE_SAME_AS[ccsid] ?? -1];
    if (!packed) throw unsupported(ccsid);
    const raw = inflateSync(Buffer.from(packed.units, 'base64'));
    const units = new Uint16Array(65536);
    for (let i = 0; i < 65536; i++) units[i] = raw.readUInt16LE(i * 2);
    const extras = new Map(Object.entries(packed.extras).map(([k, v]) => [Number(k), v]));
    t = { units, extras };
    doubleTables.set(ccsid, t);
  }
  return t;
}

let scratch = new Uint16Array(1024);
const utf16be = new TextDecoder('utf-16be');
const utf8 = new TextDecoder('utf-8');
const utf16le = new TextDecoder('utf-16le');

function unitsToString(units: Uint16Array, n: number): string {
  if (n <= 4096) return String.fromCharCode.apply(null, units.subarray(0, n) as unknown as number[]);
  return utf16le.decode(units.subarray(0, n));
}

function room(n: number): Uint16Array {
  if (scratch.length < n) scratch = new Uint16Array(Math.max(n, scratch.length * 2));
  return scratch;
}

/** Writes a double-byte code's character at `at`; returns the units written. */
function putDouble(out: Uint16Array, at: number, t: DoubleTable, code: number): number {
  const unit = t.units[code] ?? REPLACEMENT;
  if (unit !== SEE_EXTRAS) {
    out[at] = unit;
    return 1;
  }
  const s = t.extras.get(code) ?? '\ufffd';
  for (let i = 0; i < s.length; i++) out[at + i] = s.charCodeAt(i);
  return s.length;
}

function decodeSingle(bytes: Uint8Array, ccsid: number): string {
  return singleByteDecoder(ccsid)(bytes, 0, bytes.length);
}

/** Decodes `length` bytes of single-byte text at `from`. */
export type SingleByteDecoder = (bytes: Uint8Array, from: number, length: number) => string;

// String.fromCharCode over a plain array of the exact length is several times faster than over a
// typed array's subarray (measured: 15M against 6M 20-character strings/s), so arrays are kept per length.
const unitArrays: number[][] = [];
const unitArray = (length: number): number[] => (unitArrays[length] ??= new Array<number>(length).fill(0));

/** The UTF-16 unit of each byte of a single-byte CCSID; throws for any other CCSID. */
export const singleByteUnits = (ccsid: number): Readonly<Uint16Array> => singleTable(ccsid);

const singleDecoders = new Map<number, SingleByteDecoder>();
/** The decoder of a single-byte CCSID's text, built once per CCSID; throws for any other CCSID. */
export function singleByteDecoder(ccsid: number): SingleByteDecoder {
  let decoder = singleDecoders.get(ccsid);
  if (!decoder) {
    const t = singleTable(ccsid);
    decoder = (bytes, from, length) => {
      if (length > 4096) {
        const out = room(length);
        for (let i = 0; i < length; i++) out[i] = t[bytes[from + i] as number] as number;
        return unitsToString(out, length);
      }
      const units = unitArray(length);
      for (let i = 0; i < length; i++) units[i] = t[bytes[from + i] as number] as number;
      return String.fromCharCode.apply(null, units);
    };
    singleDecoders.set(ccsid, decoder);
  }
  return decoder;
}

/** As SingleByteDecoder, but null where a byte has no character in the CCSID (the caller names it). */
export type ExactSingleByteDecoder = (bytes: Uint8Array, from: number, length: number) => string | null;

const exactSingleDecoders = new Map<number, ExactSingleByteDecoder>();
/** The exact decoder of a single-byte CCSID's text, built once per CCSID; throws for any other CCSID. */
export function exactSingleByteDecoder(ccsid: number): ExactSingleByteDecoder {
  let decoder = exactSingleDecoders.get(ccsid);
  if (!decoder) {
    const t = singleTable(ccsid);
    const lenient = singleByteDecoder(ccsid);
    decoder = !t.includes(REPLACEMENT)
      ? lenient
      : (bytes, from, length) => {
          if (length > 4096) {
            const s = lenient(bytes, from, length);
            return s.indexOf('\ufffd') === -1 ? s : null;
          }
          const units = unitArray(length);
          let unmapped = false;
          for (let i = 0; i < length; i++) {
            const unit = t[bytes[from + i] as number] as number;
            if (unit === REPLACEMENT) unmapped = true;
            units[i] = unit;
          }
          return unmapped ? null : String.fromCharCode.apply(null, units);
        };
    exactSingleDecoders.set(ccsid, decoder);
  }
  return decoder;
}

function decodeDouble(bytes: Uint8Array, ccsid: number): string {
  const t = doubleTable(ccsid);
  const out = room(bytes.length * 2);
  let n = 0;
  for (let i = 0; i + 1 < bytes.length; i += 2)
    n += putDouble(out, n, t, ((bytes[i] as number) << 8) | (bytes[i + 1] as number));
  if (bytes.length % 2) out[n++] = REPLACEMENT;
  return unitsToString(out, n);
}

/** Mixed data: single-byte until shift-out (0x0E), pairs until shift-in (0x0F); the shifts are not text. */
function decodeMixed(bytes: Uint8Array, ccsid: number): string {
  const halves = MIXED[ccsid];
  if (!halves) throw unsupported(ccsid);
  const single = singleTable(halves.single);
  const double = doubleTable(halves.double);
  const out = room(bytes.length * 2);
  let n = 0;
  let shifted = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] as number;
    if (b === SO) shifted = true;
    else if (b === SI) shifted = false;
    else if (!shifted) out[n++] = single[b] as number;
    else if (i + 1 < bytes.length && bytes[i + 1] !== SI) {
      n += putDouble(out, n, double, (b << 8) | (bytes[i + 1] as number));
      i++;
    } else out[n++] = REPLACEMENT; // half a pair
  }
  return unitsToString(out, n);
}

/** The text of a field's bytes in its CCSID. */
export function decodeText(bytes: Uint8Array, ccsid: number): string {
  switch (ccsidKind(ccsid)) {
    case 'single':
      return decodeSingle(bytes, ccsid);
    case 'mixed':
      return decodeMixed(bytes, ccsid);
    case 'double':
      return decodeDouble(bytes, ccsid);
    case 'utf16':
      return utf16be.decode(bytes);
    case 'utf8':
      return utf8.decode(bytes);
    case null:
      throw unsupported(ccsid);
  }
}

/** A byte sequence a CCSID maps to no character: where it starts in the field, and its bytes. */
export interface Unmapped {
  at: number;
  bytes: Uint8Array;
  /** The double-byte half's CCSID where the sequence is shift-out data of a mixed CCSID. */
  doubleByte?: number;
}

/**
 * The first byte sequence of `bytes` that the CCSID maps to no character; null when every one maps.
 * IBM's own substitution characters (0x3F, and 0xFEFE in double-byte data) are mappings: whatever they
 * stood for was lost when the text was stored, not when it is read.
 */
export function firstUnmapped(bytes: Uint8Array, ccsid: number): Unmapped | null {
  const at = (from: number, length: number, doubleByte?: number): Unmapped => ({
    at: from,
    bytes: bytes.slice(from, from + length),
    ...(doubleByte !== undefined && { doubleByte }),
  });
  const doubleUnmapped = (t: DoubleTable, code: number) =>
    code !== DBCS_SUB && t.units[code] === REPLACEMENT && !t.extras.has(code);
  switch (ccsidKind(ccsid)) {
    case 'single': {
      const t = singleTable(ccsid);
      for (let i = 0; i < bytes.length; i++) if (t[bytes[i] as number] === REPLACEMENT) return at(i, 1);
      return null;
    }
    case 'double': {
      const t = doubleTable(ccsid);
      for (let i = 0; i + 1 < bytes.length; i += 2)
        if (doubleUnmapped(t, ((bytes[i] as number) << 8) | (bytes[i + 1] as number))) return at(i, 2);
      return bytes.length % 2 ? at(bytes.length - 1, 1) : null;
    }
    case 'mixed': {
      const halves = MIXED[ccsid];
      if (!halves) throw unsupported(ccsid);
      const single = singleTable(halves.single);
      const double = doubleTable(halves.double);
      let shifted = false;
      for (let i = 0; i < bytes.length; i++) {
        const b = bytes[i] as number;
        if (b === SO) shifted = true;
        else if (b === SI) shifted = false;
        else if (!shifted) {
          if (single[b] === REPLACEMENT) return at(i, 1);
        } else if (i + 1 < bytes.length && bytes[i + 1] !== SI) {
          if (doubleUnmapped(double, (b << 8) | (bytes[i + 1] as number))) return at(i, 2, halves.double);
          i++;
        } else return at(i, 1, halves.double); // half a pair
      }
      return null;
    }
    case 'utf8': {
      // A valid prefix encodes back to its own bytes: each U+FFFD the decoder wrote stands at the
      // byte length of the text before it, and is the text's own where those bytes are EF BF BD.
      const text = utf8.decode(bytes);
      for (let i = text.indexOf('\ufffd'); i !== -1; i = text.indexOf('\ufffd', i + 1)) {
        const from = Buffer.byteLength(text.slice(0, i), 'utf8');
        if (bytes[from] !== 0xef || bytes[from + 1] !== 0xbf || bytes[from + 2] !== 0xbd) return at(from, 1);
      }
      return null;
    }
    case 'utf16': {
      // A lone surrogate decodes to one U+FFFD unit, so units and byte pairs stay in step.
      const text = utf16be.decode(bytes);
      for (let i = text.indexOf('\ufffd'); i !== -1; i = text.indexOf('\ufffd', i + 1)) {
        const from = i * 2;
        if (from + 1 >= bytes.length) return at(from, 1);
        if (bytes[from] !== 0xff || bytes[from + 1] !== 0xfd) return at(from, 2);
      }
      return null;
    }
    case null:
      throw unsupported(ccsid);
  }
}

const hex = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex').toUpperCase()}`;

/** An unmapped sequence in words: its bytes, where it starts, and the CCSID that lacks it. */
export function unmappedText(u: Unmapped, ccsid: number): string {
  const half = u.doubleByte === undefined ? '' : ` (shift-out data, double-byte CCSID ${u.doubleByte})`;
  return `${u.bytes.length > 1 ? 'bytes' : 'byte'} ${hex(u.bytes)} at offset ${u.at} ${u.bytes.length > 1 ? 'map' : 'maps'} to no character in CCSID ${ccsid}${half}`;
}

/**
 * The text of a field's bytes, exactly: a RangeError naming the first byte sequence the CCSID maps to
 * no character, where decodeText would put U+FFFD in its place.
 */
export function decodeTextExact(bytes: Uint8Array, ccsid: number): string {
  const text = decodeText(bytes, ccsid);
  // Every unmapped sequence decodes to U+FFFD; text without one needs no second look.
  if (text.indexOf('\ufffd') === -1) return text;
  const unmapped = firstUnmapped(bytes, ccsid);
  if (unmapped) throw new RangeError(unmappedText(unmapped, ccsid));
  return text;
}

const singleEncoders = new Map<number, Map<string, number>>();
function singleEncoder(ccsid: number): Map<string, number> {
  let m = singleEncoders.get(ccsid);
  if (!m) {
    m = new Map();
    const t = singleTable(ccsid);
    for (let b = 255; b >= 0; b--) if (t[b] !== REPLACEMENT) m.set(String.fromCharCode(t[b] as number), b);
    singleEncoders.set(ccsid, m);
  }
  return m;
}

const doubleEncoders = new Map<number, Map<string, number>>();
function doubleEncoder(ccsid: number): Map<string, number> {
  let m = doubleEncoders.get(ccsid);
  if (!m) {
    m = new Map();
    const t = doubleTable(ccsid);
    for (let code = 0xfffe; code >= 0x4040; code--) {
      const unit = t.units[code] as number;
      if (unit === SEE_EXTRAS) m.set(t.extras.get(code) ?? '', code);
      else if (unit !== REPLACEMENT) m.set(String.fromCharCode(unit), code);
    }
    doubleEncoders.set(ccsid, m);
  }
  return m;
}

/**
 * Bytes of a text in a CCSID, as IBM i stores it (the simulated IBM i's side): a character the CCSID
 * lacks becomes its substitution character (0x3F, or 0xFEFE in double-byte data).
 */
export function encodeText(text: string, ccsid: number): Uint8Array {
  const kind = ccsidKind(ccsid);
  if (kind === 'utf16') {
    const le = Buffer.from(text, 'utf16le');
    return new Uint8Array(le.swap16());
  }
  if (kind === 'utf8') return new Uint8Array(Buffer.from(text, 'utf8'));
  if (kind === null) throw unsupported(ccsid);
  const out: number[] = [];
  if (kind === 'single') {
    const m = singleEncoder(ccsid);
    for (const ch of text) out.push(m.get(ch) ?? SUB);
    return Uint8Array.from(out);
  }
  const halves = MIXED[ccsid];
  const single = halves ? singleEncoder(halves.single) : null;
  const double = doubleEncoder(halves ? halves.double : ccsid);
  let shifted = false;
  for (const ch of text) {
    const b = single?.get(ch);
    if (b !== undefined && single) {
      if (shifted) out.push(SI);
      shifted = false;
      out.push(b);
      continue;
    }
    const code = double.get(ch) ?? (single ? undefined : DBCS_SUB);
    if (code === undefined) {
      if (shifted) out.push(SI);
      shifted = false;
      out.push(SUB);
      continue;
    }
    if (single && !shifted) out.push(SO);
    shifted = true;
    out.push(code >> 8, code & 0xff);
  }
  if (shifted && single) out.push(SI);
  return Uint8Array.from(out);
}

/** The bytes a fixed-length field of the CCSID is padded with: a blank in its encoding. */
export function padding(ccsid: number): Uint8Array {
  switch (ccsidKind(ccsid)) {
    case 'double':
      return Uint8Array.of(0x40, 0x40);
    case 'utf16':
      return Uint8Array.of(0x00, 0x20);
    case 'utf8':
      return Uint8Array.of(0x20);
    default:
      return Uint8Array.of(0x40);
  }
}
