// Physical files and their members: records at relative record numbers (RRN), deleted records that
// keep their slot until RGZPFM or until a REUSEDLT(*YES) file fills it. Rows live in SQLite, one
// table per member; every change goes through here so it is journaled the way IBM i journals it.
import type Database from 'better-sqlite3';
import {
  binaryDigits,
  ROWID_LENGTH,
  sqlTypeName,
  type FieldDef,
  type FieldValue,
} from '../../../lib/ibmi/recordImage';
import { asciiRoundTrips, ccsidKind, decodeText, encodeText } from '../../../lib/ibmi/ccsid';
import { canonicalDecimal } from '../../../lib/ibmi/decimal';
import { decodeDecfloat, encodeDecfloat } from '../../../lib/ibmi/decfloat';
import type { ObjectAuthority } from './authority';
import { sqlError } from './messages';

/** A GRAPHIC field's blank: the double-byte space in EBCDIC, the space in UTF-16. */
const graphicBlank = (ccsid: number) => (ccsidKind(ccsid) === 'double' ? '\u3000' : ' ');

export type SqlValue = string | number | bigint | Buffer | null;

export interface ColumnSpec extends FieldDef {
  /** SYSCOLUMNS DATA_TYPE: CHAR, VARCHAR, DECIMAL, NUMERIC, SMALLINT, INTEGER, BIGINT, REAL, DOUBLE, DATE, TIME, TIMESTMP, BINARY. */
  sqlType: string;
  /** SYSCOLUMNS LENGTH: characters, bytes or digits. */
  length: number;
  scale: number | null;
  defaultValue: SqlValue;
  hasDefault: boolean;
  text: string;
  /** The DDS data type letter of a field made from DDS (J, E and O are CHAR to SQL): DSPFFD shows it. */
  ddsType?: string;
  /** A ROWID column's values are made by the database: always (a value given is SQL0798) or by default. */
  generated?: 'always' | 'byDefault';
}

export interface Member {
  name: string;
  /** The member's SQLite table, its pending records written into it first (see `pending`). */
  readonly table: string;
  /** The table's name whether or not records are pending: for writing them, or dropping the table. */
  readonly tableName: string;
  /** The RRN the next record added at the end gets. */
  nextRrn: number;
  /** Deleted record slots, lowest first. */
  deleted: number[];
  /**
   * Records an outfile command wrote (RRN 1 on) that are not in the table yet: DSPJRN's outfile is most
   * often read once, whole, and deleted, so its records are kept as made and read from here by that
   * plain read (sql/pendingRead.ts). Anything else that reaches the table writes them first.
   */
  pending?: PendingRecords;
}

export interface PendingRecords {
  count: number;
  /** The fields of the columns at `positions`, in that order, record by record, as the table takes them. */
  fields(positions: readonly number[]): Iterable<readonly SqlValue[]>;
  /** Puts them into the table (as the command would have). */
  write(): void;
}

export interface JournaledAs {
  library: string;
  name: string;
  images: '*AFTER' | '*BOTH';
  since: string;
}

export interface PhysicalFile {
  library: string;
  name: string;
  origin: 'sql' | 'dds' | 'outfile';
  format: string;
  columns: ColumnSpec[];
  key: {
    columns: string[];
    unique: boolean;
    constraint: { name: string; type: 'PRIMARY KEY' | 'UNIQUE' } | null;
  } | null;
  reuseDeleted: boolean;
  maxMembers: number | null;
  members: Member[];
  journal: JournaledAs | null;
  authority: ObjectAuthority;
  created: string;
  text: string;
  /** A source physical file (QDDSSRC) holds DDS text per member, not rows. */
  source?: Map<string, string>;
}

/** A CHAR(n) NOT NULL WITH DEFAULT field in CCSID 37, as system-made files (outfiles, source files) have. */
export const charColumn = (name: string, length: number): ColumnSpec => ({
  name,
  type: { kind: 'char', length, ccsid: 37 },
  nullable: false,
  sqlType: 'CHAR',
  length,
  scale: null,
  defaultValue: '',
  hasDefault: true,
  text: '',
});

/** A zoned NUMERIC(p, s) NOT NULL WITH DEFAULT field. */
export const zonedColumn = (name: string, precision: number, scale = 0): ColumnSpec => ({
  name,
  type: { kind: 'zoned', precision, scale },
  nullable: false,
  sqlType: 'NUMERIC',
  length: precision,
  scale,
  defaultValue: 0,
  hasDefault: true,
  text: '',
});

export const q = (name: string) => `"${name.replaceAll('"', '""')}"`;

const EXACT_DIGITS = 15;

/** The member table's column: text compares as Db2 compares it, trailing blanks ignored (CHAR and VARCHAR). */
export function sqliteDecl(c: ColumnSpec): string {
  switch (c.type.kind) {
    case 'char':
    case 'varchar':
    case 'graphic':
    case 'vargraphic':
      return 'TEXT COLLATE RTRIM';
    case 'hex':
    case 'varhex':
    case 'rowid':
    case 'unsupported':
      return 'BLOB';
    case 'boolean':
      return 'INTEGER';
    case 'lob':
      return c.type.lob === 'BLOB' ? 'BLOB' : 'TEXT';
    case 'decfloat':
      // Kept as the exact text (SQLite would take DECFLOAT for a REAL column).
      return 'TEXT';
    case 'packed':
    case 'zoned':
      // SQLite's REAL holds 15 digits; a DECIMAL(31,2) or NUMERIC(63) is kept as its exact text.
      return c.type.precision > EXACT_DIGITS ? 'TEXT' : sqlTypeName(c.type);
    default:
      return sqlTypeName(c.type);
  }
}

let tables = 0;
export function createMemberTable(db: Database.Database, file: PhysicalFile, member: string): Member {
  const table = `m${++tables}_${file.library}_${file.name}_${member}`;
  const columns = file.columns.map((c) => `${q(c.name)} ${sqliteDecl(c)}`);
  db.exec(`CREATE TABLE ${q(table)} (__RRN INTEGER PRIMARY KEY, ${columns.join(', ')})`);
  if (file.key)
    db.exec(
      `CREATE ${file.key.unique ? 'UNIQUE ' : ''}INDEX ${q(`${table}_key`)} ON ${q(table)} (${file.key.columns.map(q).join(', ')})`,
    );
  const m: Member = {
    name: member,
    tableName: table,
    nextRrn: 1,
    deleted: [],
    get table() {
      writePending(m);
      return table;
    },
  };
  return m;
}

/**
 * The member's table name for a statement that removes every record (DELETE FROM, DROP TABLE): its
 * pending records are discarded with the rest, never written only to be removed.
 */
export function discardingPending(member: Member): string {
  member.pending = undefined;
  return member.tableName;
}

/** A member's pending records written into its table (nothing when none are pending). */
export function writePending(member: Member): void {
  const pending = member.pending;
  if (!pending) return;
  member.pending = undefined;
  pending.write();
}

/** A member's table after ALTER TABLE: columns added (holding their default), dropped or changed. */
export function alterMemberTable(
  db: Database.Database,
  file: PhysicalFile,
  member: Member,
  columns: ColumnSpec[],
): void {
  for (const c of file.columns)
    if (!columns.some((n) => n.name === c.name))
      db.exec(`ALTER TABLE ${q(member.table)} DROP COLUMN ${q(c.name)}`);
  for (const c of columns) {
    const old = file.columns.find((o) => o.name === c.name);
    if (old && sqliteDecl(old) === sqliteDecl(c)) continue;
    if (old) {
      // A changed type: the column is rebuilt under a scratch name and the values moved over.
      db.exec(`ALTER TABLE ${q(member.table)} RENAME COLUMN ${q(c.name)} TO ${q(`${c.name}__OLD`)}`);
      db.exec(`ALTER TABLE ${q(member.table)} ADD COLUMN ${q(c.name)} ${sqliteDecl(c)}`);
      db.exec(`UPDATE ${q(member.table)} SET ${q(c.name)} = ${q(`${c.name}__OLD`)}`);
      db.exec(`ALTER TABLE ${q(member.table)} DROP COLUMN ${q(`${c.name}__OLD`)}`);
      continue;
    }
    db.exec(`ALTER TABLE ${q(member.table)} ADD COLUMN ${q(c.name)} ${sqliteDecl(c)}`);
    if (c.defaultValue !== null)
      db.prepare(`UPDATE ${q(member.table)} SET ${q(c.name)} = ?`).run(assign(c, c.defaultValue));
  }
}

const DIGITS = /^[+-]?(\d+)(?:\.(\d*))?$|^[+-]?\.(\d+)$/;

function decimalText(v: SqlValue): string | null {
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return null;
    const text = String(v);
    return text.includes('e') ? v.toFixed(20) : text;
  }
  if (typeof v === 'string') return v.trim();
  return null;
}

function toDate(v: string): string | null {
  const m =
    /^(\d{4})-(\d{2})-(\d{2})$/.exec(v) ??
    (/^(\d{2})\/(\d{2})\/(\d{4})$/.exec(v) && [v, v.slice(6), v.slice(0, 2), v.slice(3, 5)]) ??
    (/^(\d{2})\.(\d{2})\.(\d{4})$/.exec(v) && [v, v.slice(6), v.slice(3, 5), v.slice(0, 2)]);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  if (date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d || y < 1) return null;
  return `${m[1]}-${m[2]}-${m[3]}`;
}

/** Text less its trailing single- and double-byte blanks. */
function withoutTrailingBlanks(text: string): string {
  let end = text.length;
  while (end > 0 && (text.charCodeAt(end - 1) === 0x20 || text.charCodeAt(end - 1) === 0x3000)) end--;
  return end === text.length ? text : text.slice(0, end);
}

/** A value assigned to a column, checked and converted as Db2 for i assigns it (SQL0404, SQL0406, SQL0407, SQL0180). */
export function assign(c: ColumnSpec, v: SqlValue): SqlValue {
  if (c.type.kind === 'rowid' && v === null && c.generated) return newRowid();
  if (v === null) {
    if (!c.nullable) throw sqlError(-407, c.name);
    return null;
  }
  const t = c.type;
  switch (t.kind) {
    case 'char':
    case 'varchar':
    case 'graphic':
    case 'vargraphic': {
      const raw = withoutTrailingBlanks(Buffer.isBuffer(v) ? v.toString('latin1') : String(v));
      // ASCII the CCSID holds byte for byte (most names and codes): stored as it is, one byte each.
      if ((t.kind === 'char' || t.kind === 'varchar') && asciiRoundTrips(raw, t.ccsid)) {
        if (raw.length > t.length) throw sqlError(-404, c.name);
        return t.kind === 'char' && raw.length < t.length ? raw + ' '.repeat(t.length - raw.length) : raw;
      }
      // What the column's CCSID can hold: a character it lacks is stored as the substitution character.
      // Lengths count bytes (CHAR, VARCHAR: shift-out/shift-in and UTF-8 included) or two-byte units (GRAPHIC).
      const bytes = encodeText(raw, t.ccsid);
      const unit = t.kind === 'graphic' || t.kind === 'vargraphic' ? 2 : 1;
      if (bytes.length > t.length * unit) throw sqlError(-404, c.name);
      const text = decodeText(bytes, t.ccsid);
      // Fixed-length fields come back padded with the CCSID's blank, as Db2 returns them.
      if (t.kind === 'char') return text + ' '.repeat(t.length - bytes.length);
      if (t.kind === 'graphic') return text + graphicBlank(t.ccsid).repeat(t.length - bytes.length / 2);
      return text;
    }
    case 'packed':
    case 'zoned': {
      // A whole number at scale 0 (sequence numbers, counts): kept as it is when its digits fit.
      if (typeof v === 'number' && Number.isSafeInteger(v) && t.scale === 0) {
        if (v !== 0 && String(Math.abs(v)).length > t.precision) throw sqlError(-406, c.name);
        // Beyond 15 digits the column keeps exact text (see sqliteDecl), as canonicalDecimal writes it.
        if (t.precision > EXACT_DIGITS) return String(v === 0 ? 0 : v);
        return v === 0 ? 0 : v;
      }
      const text = decimalText(v);
      const m = text === null ? null : DIGITS.exec(text);
      if (!m || text === null) throw sqlError(-302, c.name);
      const whole = (m[1] ?? '').replace(/^0+/, '');
      if (whole.length > t.precision - t.scale) throw sqlError(-406, c.name);
      // Db2 truncates digits beyond the scale on assignment.
      const [w, f = ''] = text.replace(/^\+/, '').split('.');
      const exact = `${w === '' || w === '-' ? `${w}0` : w}.${(f + '0'.repeat(t.scale)).slice(0, t.scale) || '0'}`;
      // Beyond 15 digits a double would round: such columns keep the exact text (see sqliteDecl).
      return t.precision > EXACT_DIGITS ? canonicalDecimal(exact, t.scale) : Number(exact);
    }
    case 'binary': {
      const text = decimalText(v);
      if (t.scale) {
        // DDS B with decimal positions: a scaled integer, its digits limited as a decimal's.
        const m = text === null ? null : DIGITS.exec(text);
        if (!m || text === null) throw sqlError(-302, c.name);
        if ((m[1] ?? '').replace(/^0+/, '').length > binaryDigits[t.bytes] - t.scale)
          throw sqlError(-406, c.name);
        return Number(Number(text).toFixed(t.scale));
      }
      if (text === null || !/^[+-]?\d+(\.0*)?$/.test(text)) throw sqlError(-302, c.name);
      const n = BigInt(text.split('.')[0] ?? '0');
      const limit = 1n << BigInt(t.bytes * 8 - 1);
      if (n < -limit || n >= limit) throw sqlError(-406, c.name);
      return t.bytes === 8 ? n : Number(n);
    }
    case 'decfloat': {
      const text = typeof v === 'string' ? v.trim() : decimalText(v);
      if (text === null) throw sqlError(-302, c.name);
      try {
        return decodeDecfloat(encodeDecfloat(text, t.digits), t.digits);
      } catch {
        // More digits than the precision, or past the exponent's range (Db2 rounds digits; not here).
        throw sqlError(/^[+-]?[\d.]+(E[+-]?\d+)?$/i.test(text) ? -406 : -302, c.name);
      }
    }
    case 'float': {
      const n = Number(v);
      if (!Number.isFinite(n)) throw sqlError(-302, c.name);
      return t.bytes === 4 ? Math.fround(n) : n;
    }
    case 'date': {
      const d = toDate(String(v).trim().slice(0, 10));
      if (!d) throw sqlError(-180);
      return d;
    }
    case 'time': {
      const m = /^(\d{2})[.:](\d{2})(?:[.:](\d{2}))?$/.exec(String(v).trim());
      if (!m || Number(m[1]) > 24 || Number(m[2]) > 59 || Number(m[3] ?? 0) > 59) throw sqlError(-180);
      return `${m[1]}:${m[2]}:${m[3] ?? '00'}`;
    }
    case 'timestamp': {
      const m = /^(\d{4}-\d{2}-\d{2})[- T](\d{2})[.:](\d{2})[.:](\d{2})(?:\.(\d{1,12}))?$/.exec(
        String(v).trim(),
      );
      if (!m || !toDate(m[1] ?? '')) throw sqlError(-180);
      const precision = t.precision ?? 6;
      const fraction = precision ? `.${(m[5] ?? '').padEnd(precision, '0').slice(0, precision)}` : '';
      return `${m[1]} ${m[2]}:${m[3]}:${m[4]}${fraction}`;
    }
    case 'hex': {
      const bytes = Buffer.isBuffer(v) ? v : Buffer.from(String(v), 'latin1');
      if (bytes.length > t.length) throw sqlError(-404, c.name);
      return Buffer.concat([bytes, Buffer.alloc(t.length - bytes.length, 0)]);
    }
    case 'varhex': {
      const bytes = Buffer.isBuffer(v) ? v : Buffer.from(String(v), 'latin1');
      if (bytes.length > t.length) throw sqlError(-404, c.name);
      return bytes;
    }
    case 'rowid': {
      const bytes = Buffer.isBuffer(v) ? v : Buffer.from(String(v), 'latin1');
      if (bytes.length > ROWID_LENGTH) throw sqlError(-404, c.name);
      return bytes;
    }
    case 'boolean':
      return booleanOf(v) ? 1 : 0;
    case 'lob': {
      // A LOB's length attribute counts bytes (CLOB, BLOB, XML) or two-byte units (DBCLOB): SQL0404 past it.
      if (t.lob === 'BLOB') {
        const bytes = Buffer.isBuffer(v) ? v : Buffer.from(String(v), 'latin1');
        if (bytes.length > t.length) throw sqlError(-404, c.name);
        return bytes;
      }
      const text = Buffer.isBuffer(v) ? v.toString('utf8') : String(v);
      const bytes = encodeText(text, t.ccsid);
      const units = t.lob === 'DBCLOB' ? bytes.length / 2 : bytes.length;
      if (units > t.length) throw sqlError(-404, c.name);
      return decodeText(bytes, t.ccsid);
    }
    case 'unsupported':
      return Buffer.isBuffer(v) ? v : Buffer.from(String(v), 'utf8');
  }
}

/** A stored value as the record image holds it (the field's own representation). */
export function imageValue(c: ColumnSpec, v: SqlValue): FieldValue {
  if (v === null) return null;
  const t = c.type;
  switch (t.kind) {
    case 'packed':
    case 'zoned':
      return canonicalDecimal(v as string | number | bigint, t.scale);
    case 'binary':
      if (t.scale) return Number(v).toFixed(t.scale);
      return BigInt(typeof v === 'number' ? Math.trunc(v) : (v as bigint));
    case 'timestamp': {
      const s = String(v);
      return `${s.slice(0, 10)}-${s.slice(11, 13)}.${s.slice(14, 16)}.${s.slice(17, 19)}${s.slice(19)}`;
    }
    case 'hex':
    case 'varhex':
    case 'rowid':
    case 'unsupported':
      return new Uint8Array(v as Buffer);
    case 'boolean':
      return Number(v) !== 0;
    case 'lob':
      // The image holds a placeholder, not the value (recordEncode.ts): only its null-ness counts.
      return new Uint8Array(0);
    default:
      return typeof v === 'bigint' ? Number(v) : (v as string | number);
  }
}

// IBM i 7.5, "Boolean data type": these strings in any case, and numbers (0 is false).
const TRUE_TEXT = new Set(['T', 'TRUE', 'Y', 'YES', 'ON', '1']);
const FALSE_TEXT = new Set(['F', 'FALSE', 'N', 'NO', 'OFF', '0']);

/** A value assigned to a BOOLEAN column; a string that names no truth value is SQL0420. */
function booleanOf(v: Exclude<SqlValue, null>): boolean {
  if (typeof v === 'number' || typeof v === 'bigint') return Number(v) !== 0;
  const text = (Buffer.isBuffer(v) ? v.toString('latin1') : v).trim().toUpperCase();
  if (TRUE_TEXT.has(text)) return true;
  if (FALSE_TEXT.has(text)) return false;
  throw sqlError(-420);
}

let rowids = 0;
/**
 * A new row ID: unique in the system, 40 bytes of bit data. Db2 for i keeps its form to itself ("the
 * internal representation of a row ID value is transparent to the user"): here a time, a counter and
 * the system's name.
 */
function newRowid(): Buffer {
  const out = Buffer.alloc(ROWID_LENGTH, 0);
  out.writeBigUInt64BE(BigInt(Date.now()) * 1000n, 0);
  out.writeUInt32BE(++rowids, 8);
  out.write('SANDBOX', 12, 'latin1');
  return out;
}

export type Row = Record<string, SqlValue>;

export function readRecord(db: Database.Database, member: Member, rrn: number): Row | undefined {
  return db
    .prepare(`SELECT * FROM ${q(member.table)} WHERE __RRN = ?`)
    .safeIntegers(true)
    .get(rrn) as Row | undefined;
}

/** Writes a record at `rrn`: a new one (`add`) or over the one there; a duplicate key is SQL0803. */
/**
 * What SQL holds of a value: bytes a program wrote into a single-byte character field are the text
 * SQL reads, each byte the CCSID has no character for its substitution character (U+001A in UTF-16, as
 * IBM's enforced subset conversion gives it); the journal's image keeps the bytes as written.
 */
function sqlStored(c: PhysicalFile['columns'][number], value: unknown): unknown {
  if (!Buffer.isBuffer(value) || c.type.kind !== 'char' || ccsidKind(c.type.ccsid) !== 'single') return value;
  return decodeText(value, c.type.ccsid).replace(/\ufffd/g, '\u001a');
}

export function writeRecord(
  db: Database.Database,
  file: PhysicalFile,
  member: Member,
  rrn: number,
  row: Row,
  add: boolean,
): void {
  const names = file.columns.map((c) => c.name);
  const values = file.columns.map((c) => sqlStored(c, row[c.name] ?? null));
  try {
    if (add)
      db.prepare(
        `INSERT INTO ${q(member.table)} (__RRN, ${names.map(q).join(', ')}) VALUES (?, ${names.map(() => '?').join(', ')})`,
      ).run(rrn, ...values);
    else
      db.prepare(
        `UPDATE ${q(member.table)} SET ${names.map((n) => `${q(n)} = ?`).join(', ')} WHERE __RRN = ?`,
      ).run(...values, rrn);
  } catch (e) {
    if (e instanceof Error && /UNIQUE constraint/.test(e.message)) throw sqlError(-803);
    throw e;
  }
}

export function removeRecord(db: Database.Database, member: Member, rrn: number): void {
  db.prepare(`DELETE FROM ${q(member.table)} WHERE __RRN = ?`).run(rrn);
}

/** The slot a new record takes: the lowest deleted one in a REUSEDLT(*YES) file, else the end. */
export function nextSlot(file: PhysicalFile, member: Member): { rrn: number; reused: boolean } {
  if (file.reuseDeleted && member.deleted.length > 0) return { rrn: member.deleted[0] ?? 0, reused: true };
  return { rrn: member.nextRrn, reused: false };
}

export function takeSlot(member: Member, rrn: number): void {
  const i = member.deleted.indexOf(rrn);
  if (i >= 0) member.deleted.splice(i, 1);
  else member.nextRrn = Math.max(member.nextRrn, rrn + 1);
}

export function freeSlot(member: Member, rrn: number): void {
  member.deleted.push(rrn);
  member.deleted.sort((a, b) => a - b);
}

/**
 * RGZPFM: deleted records removed and the active ones renumbered from 1, in arrival order or, with
 * KEYFILE(*FILE), in key order. Answers how many records it kept.
 */
export function reorganize(
  db: Database.Database,
  file: PhysicalFile,
  member: Member,
  byKey: boolean,
): number {
  const order = byKey && file.key ? file.key.columns.map(q).join(', ') : '__RRN';
  const rrns = (
    db.prepare(`SELECT __RRN AS R FROM ${q(member.table)} ORDER BY ${order}`).all() as { R: number }[]
  ).map((r) => r.R);
  const offset = 1_000_000_000;
  const move = db.prepare(`UPDATE ${q(member.table)} SET __RRN = ? WHERE __RRN = ?`);
  db.transaction(() => {
    rrns.forEach((r, i) => move.run(offset + i + 1, r));
    rrns.forEach((_, i) => move.run(i + 1, offset + i + 1));
  })();
  member.deleted = [];
  member.nextRrn = rrns.length + 1;
  return rrns.length;
}
