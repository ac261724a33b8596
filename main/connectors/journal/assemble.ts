// Journal entries (a DSPJRN *TYPE5 outfile, in order) to changes. Record entries are held per commit
// cycle and released only at its C CM; a C RB drops them, so rolled-back work (and its DR, BR, UR
// entries) never reaches a target. Work outside commitment control (cycle 0) is released at once.
// A before image (UB) gives the columns an update changed, and the old key when the key changed.
// An F RG (RGZPFM) renumbers an RRN-identified file and an F CR (CLRPFM) empties any: both ask for a
// snapshot of the file instead of changes that would land on the wrong rows. An F EJ (ENDJRNPF) stops:
// the file's later changes are in no journal.
import { decodeRecord, ImageLengthError, recordLength, type FieldDef } from '../drivers/ibmi/recordImage';
import type { Change, Row } from '../source';
import type { JournalPosition } from './position';
import { formValue, type ValueForm } from './values';

export interface JournalEntryRow {
  sequence: number;
  code: string;
  type: string;
  /** JOTSTP: the system's local time. */
  timestamp: string;
  library: string;
  file: string;
  member: string;
  rrn: number;
  cycle: number;
  receiverLibrary: string;
  receiver: string;
  nullIndicators: string;
  data: Uint8Array;
  /** JOMINESD '1': the entry specific data is minimised (MINENTDTA), not the whole record. */
  minimized?: boolean;
  /**
   * The record image's own length (JOENTL less the outfile's positions before JOESD): JOESD is padded
   * to the longest entry read, so only this tells an image longer than its layout. Undefined when the
   * entry's data is incomplete (JOINCDAT) or the length is past JOENTL's five digits.
   */
  imageLength?: number;
}

/** RRN identification names the record number column so. */
export const RRN_COLUMN = 'RRN';
/** The member a row lives in, leading the key of a file with several members. */
export const MEMBER_COLUMN = 'MEMBER';

export interface TableReading {
  key: string;
  library: string;
  file: string;
  /** The members whose entries are read (the first alone for a file of one). */
  members: readonly string[];
  /** A file of several members: the member leads each row's key. */
  memberKey: boolean;
  fields: FieldDef[];
  /** Key columns, or the record number. */
  identify: string[] | 'rrn';
  /** Entries released at or before this position are applied already (null: none is). */
  appliedThrough: JournalPosition | null;
}

export interface Assembled {
  changes: Change[];
  /** Where the next read starts (inclusive); null when no entry was read. */
  restart: JournalPosition | null;
  /** The last entry consumed; null when none was. */
  consumed: JournalPosition | null;
  /** How many entries were consumed. */
  consumedCount: number;
  /** Tables that passed their applied position in this read. */
  passed: Set<string>;
  resnapshot: Map<string, string>;
  /** JOTSTP of the newest released entry. */
  newestTimestamp: string | null;
}

interface Pending {
  first: JournalPosition;
  items: JournalEntryRow[][];
}

export const positionOf = (e: JournalEntryRow): JournalPosition => ({
  library: e.receiverLibrary,
  receiver: e.receiver,
  sequence: e.sequence,
});

function rowOf(t: TableReading, e: JournalEntryRow, form: ValueForm): Row {
  // The decoded record becomes the row in place: one object per entry, not two.
  if (e.minimized)
    throw new PermanentImageError(
      `Journal entry ${e.sequence} (${e.code} ${e.type}) of ${t.library}/${t.file} in receiver ${e.receiverLibrary}/${e.receiver} ` +
        'holds minimised entry data (the journal has MINENTDTA): part of the record, which cannot be applied. ' +
        'Run CHGJRN … MINENTDTA(*NONE) on the journal (the journal-attributes check names it), then copy the file again.',
    );
  let decoded;
  try {
    const expected = recordLength(t.fields);
    if (e.imageLength !== undefined && e.imageLength > expected)
      throw new ImageLengthError(`The record image is ${e.imageLength} bytes; its layout takes ${expected}.`);
    decoded = decodeRecord(t.fields, e.data, e.nullIndicators);
  } catch (error) {
    if (!(error instanceof ImageLengthError)) throw error;
    throw new PermanentImageError(
      `Journal entry ${e.sequence} (${e.code} ${e.type}) of ${t.library}/${t.file} in receiver ${e.receiverLibrary}/${e.receiver}: ` +
        `${error.message} The file's layout changed since, the journal minimises entry data (MINENTDTA), or SQL describes ` +
        `its DDS fields otherwise than they are stored (turn DDS discovery on): an image is never read by a layout it does not fit.`,
    );
  }
  const row: Row = decoded;
  for (const f of t.fields) row[f.name] = formValue(f, decoded[f.name] ?? null, form);
  if (t.identify === 'rrn') row[RRN_COLUMN] = e.rrn;
  if (t.memberKey) row[MEMBER_COLUMN] = e.member;
  return row;
}

function keyOf(t: TableReading, row: Row): Row {
  const key: Row = {};
  const ids = t.identify === 'rrn' ? [RRN_COLUMN] : t.identify;
  for (const k of t.memberKey ? [MEMBER_COLUMN, ...ids] : ids) key[k] = row[k] ?? null;
  return key;
}

const same = (a: Row[string], b: Row[string]) =>
  a instanceof Uint8Array && b instanceof Uint8Array ? Buffer.from(a).equals(Buffer.from(b)) : a === b;

/** One released record change (an update may come with its before image) as changes. */
function toChanges(t: TableReading, entries: JournalEntryRow[], form: ValueForm): Change[] {
  const last = entries[entries.length - 1];
  if (!last) return [];
  const table = t.key;
  const position = `${last.receiverLibrary}/${last.receiver}/${last.sequence}`;
  const row = rowOf(t, last, form);
  const key = keyOf(t, row);
  if (last.type === 'DL') return [{ table, position, op: 'delete', key, row: null, changedColumns: null }];
  if (last.type === 'PT' || last.type === 'PX')
    return [{ table, position, op: 'insert', key, row, changedColumns: null }];
  const base = { table, position };
  const before = entries.length > 1 && entries[0] ? rowOf(t, entries[0], form) : null;
  if (!before) return [{ ...base, op: 'update', key, row, changedColumns: null }];
  const oldKey = keyOf(t, before);
  if (Object.keys(key).some((k) => !same(key[k] ?? null, oldKey[k] ?? null)))
    return [
      { ...base, op: 'delete', key: oldKey, row: null, changedColumns: null },
      { ...base, op: 'insert', key, row, changedColumns: null },
    ];
  // A LOB column's image is a placeholder on both sides: it counts as changed, and is read anew.
  const lobs = t.fields.filter((f) => f.type.kind === 'lob').map((f) => f.name);
  const changed = Object.keys(row).filter(
    (c) => lobs.includes(c) || !same(row[c] ?? null, before[c] ?? null),
  );
  return [{ ...base, op: 'update', key, row, changedColumns: changed }];
}

/** Orders two positions of one journal: negative, zero or positive. */
export type PositionOrder = (a: JournalPosition, b: JournalPosition) => number;

export function assemble(
  entries: readonly JournalEntryRow[],
  tables: readonly TableReading[],
  maxRows: number,
  form: ValueForm,
  order: PositionOrder,
  /**
   * Changes already decoded, by their last entry: a reader that assembles a growing list of entries
   * again (a long commit cycle over several DSPJRN chunks) decodes each record image once.
   */
  decoded: WeakMap<JournalEntryRow, Change[]> = new WeakMap(),
): Assembled {
  const byFile = new Map(tables.map((t) => [`${t.library}/${t.file}`, t]));
  const passed = new Set(tables.filter((t) => t.appliedThrough === null).map((t) => t.key));
  const pending = new Map<number, Pending>();
  const befores = new Map<string, JournalEntryRow>();
  const resnapshot = new Map<string, string>();
  const changes: Change[] = [];
  let consumed: JournalPosition | null = null;
  let consumedCount = 0;
  let newestTimestamp: string | null = null;

  const release = (items: JournalEntryRow[][]) => {
    for (const item of items) {
      const head = item[item.length - 1];
      const t = head && byFile.get(`${head.library}/${head.file}`);
      if (!t || !passed.has(t.key)) continue;
      let made = decoded.get(head);
      if (!made) decoded.set(head, (made = toChanges(t, item, form)));
      for (const change of made) changes.push(change);
      newestTimestamp = head.timestamp;
    }
  };

  for (const e of entries) {
    const at = positionOf(e);
    // A table's entries count from the first one past its applied position (FILE selection means
    // the entry at that position itself may belong to another file and never show).
    for (const r of tables)
      if (r.appliedThrough && !passed.has(r.key) && order(at, r.appliedThrough) > 0) passed.add(r.key);
    const t = byFile.get(`${e.library}/${e.file}`);
    if (e.code === 'C') {
      if (e.type === 'SC') pending.set(e.cycle, { first: at, items: [] });
      else if (e.type === 'CM') release(pending.get(e.cycle)?.items ?? []);
      if (e.type === 'CM' || e.type === 'RB') pending.delete(e.cycle);
    } else if (e.code === 'R' && t && t.members.includes(e.member)) {
      const slot = `${t.key}#${e.member}#${e.rrn}`;
      if (e.type === 'UB') befores.set(slot, e);
      else if (e.type === 'PT' || e.type === 'PX' || e.type === 'UP' || e.type === 'DL') {
        const before = e.type === 'UP' ? befores.get(slot) : undefined;
        befores.delete(slot);
        const item = before ? [before, e] : [e];
        if (e.cycle === 0) release([item]);
        else {
          const open = pending.get(e.cycle) ?? { first: at, items: [] };
          open.items.push(item);
          pending.set(e.cycle, open);
        }
      }
      // BR, UR, DR belong to a rolled-back cycle: its C RB drops the cycle whole.
    } else if (e.code === 'F' && t && passed.has(t.key)) {
      if (e.type === 'RG' && t.identify === 'rrn')
        resnapshot.set(t.key, 'the file was reorganised (RGZPFM): its relative record numbers changed');
      if (e.type === 'CR') resnapshot.set(t.key, 'the member was cleared (CLRPFM) without record entries');
      // Its rows are now the saved copy's: the changes between the save and the restore are undone.
      if (e.type === 'MR') resnapshot.set(t.key, 'a member was restored from a save (RSTOBJ, F MR)');
      // A member read is gone or has another name: its rows at the target no longer match the file.
      if (e.type === 'DM' || e.type === 'MN')
        resnapshot.set(
          t.key,
          `a member was ${e.type === 'DM' ? 'removed (RMVM, F DM)' : 'renamed (RNMM, F MN)'}`,
        );
      // ENDJRNPF: the file's changes from here on are in no journal; going on would miss them silently.
      if (e.type === 'EJ')
        throw new PermanentImageError(
          `Journaling of ${t.library}/${t.file} ended (ENDJRNPF, journal entry ${e.sequence} in ${e.receiverLibrary}/${e.receiver}): ` +
            'its changes from then on are not journaled, so the agent stops rather than miss them. ' +
            'Journal the file again (STRJRNPF … IMAGES(*BOTH)) and copy it again (a re-snapshot).',
        );
    }
    consumed = at;
    consumedCount++;
    if (changes.length >= maxRows) break;
  }
  const oldestOpen = pending.values().next().value;
  return {
    changes: changes.filter((c) => !resnapshot.has(c.table)),
    restart: oldestOpen?.first ?? consumed,
    consumed,
    consumedCount,
    passed,
    resnapshot,
    newestTimestamp,
  };
}

/** A record image that does not fit the file's layout: retrying reads the same entry again. */
export class PermanentImageError extends Error {}
