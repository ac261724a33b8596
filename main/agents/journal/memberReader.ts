// Reading a file's rows for a copy, member by member. SQL reads a file's first member; a file of
// several is read through an alias per member (CREATE ALIAS … FOR lib.file(member)) made once in the
// sync library. Chunks follow the relative record number within a member, then the next member, so
// the cursor is the last RRN copied, preceded by the member's index for a file of several members.
// WITH CS: the driver's autocommit runs at *NONE, which reads other jobs' uncommitted changes; a row
// copied from a transaction later rolled back would never be mended, so chunks read committed rows.
import { createHash } from 'node:crypto';
import { Buffer } from 'node:buffer';
import {
  IbmiError,
  ibmiName,
  sqlIdentifier as qi,
  type IbmiConnection,
  type IbmiRow,
  type IbmiValue,
} from '../../../lib/ibmi/connection';
import { logicalToVisual } from '../../../lib/ibmi/bidi';
import { BINARY_CCSID, decodeText, encodeText, padding } from '../../../lib/ibmi/ccsid';
import { binaryDigits, type FieldDef } from '../../../lib/ibmi/recordImage';
import type { Row, RowValue, SnapshotChunk } from '../source';
import { MEMBER_COLUMN, RRN_COLUMN } from './assemble';
import type { FileLayout } from './layout';
import { labelOf } from '../../../shared/config/parse';
import { formValue, inOrder, replacementOf, type ValueForm } from './values';
import { journalConfiguration } from '../../../shared/agents/journal';

/** A member alias's name: M and nine characters of a hash of the member's qualified name (IBM i names are 10). */
function memberAliasName(library: string, file: string, member: string): string {
  const hash = createHash('sha256').update(`${library}/${file}(${member})`).digest('hex');
  return `M${BigInt(`0x${hash.slice(0, 15)}`)
    .toString(36)
    .toUpperCase()
    .padStart(9, '0')
    .slice(-9)}`;
}

export class MemberReader {
  private readonly made = new Set<string>();

  constructor(
    readonly c: IbmiConnection,
    private readonly syncLibrary: () => Promise<string>,
  ) {}

  /** What SQL reads each of `members` through, in order: the file itself when it has one member. */
  async tables(l: FileLayout, members: readonly string[]): Promise<string[]> {
    if (l.members.length <= 1) return [`${l.library}.${l.file}`];
    const sync = await this.syncLibrary();
    const out: string[] = [];
    for (const member of members) {
      const alias = memberAliasName(l.library, l.file, member);
      if (!this.made.has(alias)) {
        await this.c
          .query(`CREATE ALIAS ${sync}.${alias} FOR ${l.library}.${l.file}(${ibmiName(member, 'Member')})`)
          .catch((error: unknown) => {
            // SQL0601: made by an earlier run.
            if (!(error instanceof IbmiError && error.messageId === 'SQL0601')) throw error;
          });
        this.made.add(alias);
      }
      out.push(`${sync}.${alias}`);
    }
    return out;
  }
}

export async function countMemberRows(
  members: MemberReader,
  l: FileLayout,
  read: readonly string[],
): Promise<number> {
  let total = 0;
  for (const from of await members.tables(l, read)) {
    const [row] = await members.c.query(`SELECT COUNT(*) AS N FROM ${from}`);
    total += Number(row?.N ?? 0);
  }
  return total;
}

/**
 * The result's own names: the record number as R, field i as Ci. Every select item is renamed so, so
 * no field's name (RRN_, R, K0, whatever a file holds) can shadow another's value.
 */
const RRN_ALIAS = 'R';
const fieldAlias = (i: number) => `C${i}`;

/**
 * A field as the copy reads it (and a pushed filter compares it), quoted. A DDS binary field with
 * decimal positions is an integer to SQL interfaces (IBM support, "Binary Fields Reported as Integer
 * Types"), so it is read through the cast to DECIMAL that IBM advises, its scale kept.
 */
export function fieldRead(f: FieldDef): string {
  const t = f.type;
  if (t.kind === 'binary' && t.scale)
    return `CAST(T.${qi(f.name)} AS DECIMAL(${binaryDigits[t.bytes]}, ${t.scale}))`;
  // A CCSID an entity forced over a wrong tag: the bytes as stored (a cast to bit data converts
  // nothing), decoded by the agent. A field tagged 65535 is bytes to SQL already.
  // Visual-order text likewise: the agent reorders the bytes as stored, whatever a driver would do.
  if (readAsBytes(f) && (t.kind === 'char' || t.kind === 'varchar'))
    return `CAST(T.${qi(f.name)} AS ${t.kind === 'char' ? 'CHAR' : 'VARCHAR'}(${t.length}) FOR BIT DATA)`;
  return `T.${qi(f.name)}`;
}

/** Whether the copy reads the field as its bytes (fieldRead): a forced CCSID, or visual-order text. */
const readAsBytes = (f: FieldDef) =>
  ((f.taggedCcsid !== undefined && f.taggedCcsid !== BINARY_CCSID) || f.logicalOrder === true) &&
  (f.type.kind === 'char' || f.type.kind === 'varchar');

/**
 * A key column as SQL matches it by value. A field read as its bytes is matched as its bytes, and the
 * value is bound as the source stores it (keyParam): SQL compares what the file holds, not what the
 * agent read it as.
 */
export const keySql = (f: FieldDef | undefined, name: string): string =>
  f && readAsBytes(f) ? fieldRead(f) : `T.${qi(name)}`;

/** A key value to bind against keySql: text of a field read as bytes written back in its CCSID, in
 * visual order where it is read in logical order, blank-padded to a CHAR's length. */
export function keyParam(f: FieldDef | undefined, v: RowValue): IbmiValue {
  const t = f?.type;
  if (!f || !t || !readAsBytes(f) || typeof v !== 'string' || !('ccsid' in t)) return bindableKey(v);
  const bytes = encodeText(f.logicalOrder ? logicalToVisual(v, t.ccsid) : v, t.ccsid);
  const pad = padding(t.ccsid)[0] as number;
  return t.kind === 'char' && bytes.length < t.length
    ? Buffer.concat([bytes, Buffer.alloc(t.length - bytes.length, pad)])
    : Buffer.from(bytes);
}

/** A field in the select list, named by its position. */
const selected = (f: FieldDef, i: number) => `${fieldRead(f)} AS ${qi(fieldAlias(i))}`;

/** The select list of a copy or a re-read: the record number, then every field. */
const selectList = (layout: FileLayout) =>
  `RRN(T) AS ${qi(RRN_ALIAS)}, ${layout.fields.map(selected).join(', ')}`;

/** What reading rows found past the decode policy: rows kept aside, and values the policy replaced. */
export interface ReadOutcome {
  unreadable: UnreadableRow[];
  replaced: number;
}

/** A row SQL answered whose bytes the agent could not decode (text a forced CCSID lacks). */
export interface UnreadableRow {
  row: Row;
  reason: string;
  /** The undecodable fields' bytes, one after another. */
  raw: Uint8Array;
}

/**
 * A row as SQL answered it, in the agent's form, with its member (files of several) and RRN (when it
 * identifies). A field it cannot decode (bytes a forced CCSID has no character for) takes the decode
 * policy's value, or sends the row to `outcome.unreadable` (answered null).
 */
function rowOf(
  layout: FileLayout,
  r: IbmiRow,
  member: string | null,
  byRrn: boolean,
  form: ValueForm,
  outcome: ReadOutcome,
): Row | null {
  const row: Row = {};
  if (member !== null) row[MEMBER_COLUMN] = member;
  if (byRrn) row[RRN_COLUMN] = Number(r[RRN_ALIAS]);
  const { fields } = layout;
  const aliases = aliasesOf(fields.length);
  let unread: { field: string; error: string; bytes: Uint8Array }[] | null = null;
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i] as FieldDef;
    const value = r[aliases[i] as string] ?? null;
    try {
      row[f.name] = formValue(f, value, form);
    } catch (error) {
      if (!(error instanceof RangeError) || !(value instanceof Uint8Array) || !('ccsid' in f.type))
        throw error;
      const ccsid = f.type.ccsid;
      const replacement = replacementOf(f, form, () => inOrder(f, decodeText(value, ccsid)));
      row[f.name] = replacement ? replacement.value : null;
      if (replacement) outcome.replaced++;
      else (unread ??= []).push({ field: f.name, error: error.message, bytes: value });
    }
  }
  if (!unread) return row;
  const where = ` RRN ${Number(r[RRN_ALIAS])}${member !== null ? ` of member ${member}` : ''}`;
  outcome.unreadable.push({
    row,
    reason:
      `The record at${where} of ${layout.library}/${layout.file} holds text with no character in its CCSID ` +
      `(${unread.map((u) => `${u.field}: ${u.error.replace(/\.$/, '')}`).join('; ')}). ` +
      `Correct the record at the source, or set "${labelOf(journalConfiguration, 'invalidText')}" to write a value in its place.`,
    raw: Buffer.concat(unread.map((u) => u.bytes)),
  });
  return null;
}

/** The fields' aliases C0 … Cn-1, made once per width: a copy reads millions of rows. */
const aliasLists: string[][] = [];
function aliasesOf(width: number): readonly string[] {
  const known = aliasLists[width];
  if (known) return known;
  const made = Array.from({ length: width }, (_, i) => fieldAlias(i));
  aliasLists[width] = made;
  return made;
}

/**
 * The rows of `keys` as they are now (verify's re-reads): per member, one statement per 200 keys
 * matching the RRN or the key columns; a key without a row is left out.
 */
export async function readMemberRows(
  members: MemberReader,
  layout: FileLayout,
  read: readonly string[],
  identify: readonly string[] | 'rrn',
  form: ValueForm,
  keys: readonly Row[],
): Promise<Row[]> {
  const several = layout.members.length > 1;
  const sources = await members.tables(layout, read);
  const rows: Row[] = [];
  for (const [index, from] of sources.entries()) {
    const member = read[index] ?? '';
    const mine = several ? keys.filter((k) => k[MEMBER_COLUMN] === member) : keys;
    const keyFields = identify === 'rrn' ? [] : identify.map((k) => layout.fields.find((f) => f.name === k));
    for (let at = 0; at < mine.length; at += 200) {
      const slice = mine.slice(at, at + 200);
      const matches = slice.map((k) =>
        identify === 'rrn'
          ? []
          : identify.map((c, i) => ({
              sql: keySql(keyFields[i], c),
              param: keyParam(keyFields[i], k[c] ?? null),
            })),
      );
      const where =
        identify === 'rrn'
          ? `RRN(T) IN (${slice.map(() => '?').join(', ')})`
          : matches.map((m) => `(${m.map((x) => `${x.sql} = ?`).join(' AND ')})`).join(' OR ');
      const params =
        identify === 'rrn'
          ? slice.map((k) => Number(k[RRN_COLUMN]))
          : matches.flatMap((m) => m.map((x) => x.param));
      const page = await members.c.query(
        `SELECT ${selectList(layout)} FROM ${from} T WHERE ${where} WITH CS`,
        params,
      );
      const outcome: ReadOutcome = { unreadable: [], replaced: 0 };
      for (const r of page) {
        const row = rowOf(layout, r, several ? member : null, identify === 'rrn', form, outcome);
        if (row) rows.push(row);
      }
      // A re-read (verify, a retry of a row kept aside) never applies a row it could not read.
      const [first] = outcome.unreadable;
      if (first) throw new Error(first.reason);
    }
  }
  return rows;
}

/** A key value bound back as the driver takes it: bytes as a Buffer, a boolean as 1 or 0. */
function bindableKey(v: RowValue): IbmiValue {
  if (v instanceof Uint8Array) return Buffer.from(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v instanceof Date) return v.toISOString();
  return v;
}

/**
 * One chunk: up to `limit` rows after the cursor, across members when one ends. RRNs only grow along a
 * member, and a row written below the cursor later (a deleted record reused) arrives by its journal entry.
 */
export async function readMemberChunk(
  members: MemberReader,
  layout: FileLayout,
  read: readonly string[],
  byRrn: boolean,
  form: ValueForm,
  cursor: string | null,
  limit: number,
  /** A row filter's part Db2 decides (filterPushdown.ts), with its values in order. */
  pushed?: { sql: string; params: readonly IbmiValue[] },
): Promise<SnapshotChunk> {
  const several = layout.members.length > 1;
  const m = /^(?:(\d+):)?(\d+)$/.exec(cursor ?? '0');
  if (!m) throw new RangeError(`"${cursor}" is not an RRN cursor.`);
  let index = Number(m[1] ?? 0);
  let after = Number(m[2]);
  const sources = await members.tables(layout, read);
  const rows: Row[] = [];
  const outcome: ReadOutcome = { unreadable: [], replaced: 0 };
  const wanted = Math.max(1, Math.floor(limit));
  while (index < sources.length && rows.length < wanted) {
    const room = wanted - rows.length;
    const page = await members.c.query(
      `SELECT ${selectList(layout)} FROM ${sources[index]} T WHERE RRN(T) > ?${pushed ? ` AND ${pushed.sql}` : ''} ` +
        `ORDER BY RRN(T) FETCH FIRST ${room} ROWS ONLY WITH CS`,
      [after, ...(pushed?.params ?? [])],
    );
    for (const r of page) {
      const row = rowOf(layout, r, several ? (read[index] ?? null) : null, byRrn, form, outcome);
      if (row) rows.push(row);
    }
    const last = page.at(-1);
    if (last && page.length >= room) after = Number(last[RRN_ALIAS]);
    else {
      // This member is read to its end: the next one from its start.
      index++;
      after = 0;
    }
  }
  return {
    rows,
    next: index >= sources.length ? null : several ? `${index}:${after}` : String(after),
    ...(outcome.unreadable.length > 0 && { unreadable: outcome.unreadable }),
    ...(outcome.replaced > 0 && { replaced: outcome.replaced }),
  };
}
