// Journal entries (a DSPJRN *TYPE5 outfile, in order) to changes. Record entries are held per commit
// cycle and released only at its C CM; a C RB drops them, so rolled-back work (and its DR, BR, UR
// entries) never reaches a target. Work outside commitment control (cycle 0) is released at once.
// A before image (UB) gives the columns an update changed, and the old key when the key changed.
// An F RG (RGZPFM) renumbers an RRN-identified file and an F CR (CLRPFM) empties any: both ask for a
// snapshot of the file instead of changes that would land on the wrong rows. An F EJ (ENDJRNPF) stops:
// the file's later changes are in no journal.
import type { InvalidValue } from '../../../shared/controlApi';
import { journalConfiguration } from '../../../shared/agents/journal';
import { labelOf } from '../../../shared/config/parse';
import type { FieldDef } from '../../../lib/ibmi/recordImage';
import type { Change, ChangeOrigin, Row } from '../source';
import type { JournalPosition } from './position';
import { compileImageDecoder, type ImageDecoder } from './imageDecoder';
import { withColumnPolicies, type ValueForm } from './values';
import { ibmiFold } from '../../../shared/names';

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
  /** The job that wrote the entry (JOJOB, JOUSER, JONBR), its program (JOPGM) and user profile (JOUSPF). */
  origin?: ChangeOrigin;
}

/** RRN identification names the record number column so. */
export const RRN_COLUMN = 'RRN';
/** The member a row lives in, leading the key of a file with several members. */
export const MEMBER_COLUMN = 'MEMBER';

/**
 * A field of the file that has the name of a column the agent adds (RRN for RRN identification,
 * MEMBER for a file of several members), in words; null when none does. Such a file is refused at
 * the checks and the start: the target cannot hold two columns of one name.
 */
export function addedColumnClash(
  fields: readonly { name: string }[],
  added: { rrn: boolean; member: boolean },
): string | null {
  const taken = (name: string) => fields.some((f) => ibmiFold(f.name) === name);
  if (added.rrn && taken(RRN_COLUMN))
    return `has a field ${RRN_COLUMN}, the name of the column RRN identification adds for the record number: identify its rows by its primary key or a logical key instead`;
  if (added.member && taken(MEMBER_COLUMN))
    return `has a field ${MEMBER_COLUMN}, the name of the column that leads the key of each row of a file of several members: give the field another name, or replicate a copy of the file with one member`;
  return null;
}

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
  /** The entity's own decode policy per column (invalidValues), over the agent's settings. */
  invalidValues?: Readonly<Record<string, InvalidValue>>;
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

export const positionOf = (e: JournalEntryRow): JournalPosition => ({
  library: e.receiverLibrary,
  receiver: e.receiver,
  sequence: e.sequence,
});

// One decoder per layout and form: a layout change gives the table a new fields array.
const decoders = new WeakMap<readonly FieldDef[], { form: ValueForm; decoder: ImageDecoder }>();
function decoderOf(fields: readonly FieldDef[], form: ValueForm): ImageDecoder {
  const known = decoders.get(fields);
  if (
    known &&
    known.form.dateFormat === form.dateFormat &&
    known.form.timeFormat === form.timeFormat &&
    known.form.utcOffsetMinutes === form.utcOffsetMinutes &&
    known.form.invalid?.decimals === form.invalid?.decimals &&
    known.form.invalid?.dates === form.invalid?.dates &&
    known.form.invalid?.text === form.invalid?.text &&
    known.form.invalid?.columns === form.invalid?.columns
  )
    return known.decoder;
  const decoder = compileImageDecoder(fields, form);
  decoders.set(fields, { form, decoder });
  return decoder;
}

/** A record image read: its row, and what the decode policy replaced or could not read. */
interface ReadRow {
  row: Row;
  /** Why the row cannot be applied (fields no policy covers), with the image: kept aside by the runner. */
  unreadable?: { reason: string; raw: Uint8Array };
  replaced: number;
}

function rowOf(t: TableReading, e: JournalEntryRow, form: ValueForm): ReadRow {
  // The decoded record becomes the row in place: one object per entry, not two.
  if (e.minimized)
    throw new PermanentImageError(
      `Journal entry ${e.sequence} (${e.code} ${e.type}) of ${t.library}/${t.file} in receiver ${e.receiverLibrary}/${e.receiver} ` +
        'holds minimised entry data (the journal has MINENTDTA): part of the record, which cannot be applied. ' +
        'Run CHGJRN … MINENTDTA(*NONE) on the journal (the journal-attributes check names it), then copy the file again.',
    );
  const decoder = decoderOf(t.fields, withColumnPolicies(form, t.invalidValues));
  // A shorter image was written with another layout, or minimised: never read past its end. A DSPJRN
  // outfile pads JOESD to its longest entry, so only the entry's own length tells a longer one.
  const tooLong = e.imageLength !== undefined && e.imageLength > decoder.length;
  if (tooLong || e.data.length < decoder.length)
    throw new PermanentImageError(
      `Journal entry ${e.sequence} (${e.code} ${e.type}) of ${t.library}/${t.file} in receiver ${e.receiverLibrary}/${e.receiver}: ` +
        `The record image is ${tooLong ? e.imageLength : e.data.length} bytes; its layout takes ${decoder.length}. ` +
        `The file's layout changed since, the journal minimises entry data (MINENTDTA), or SQL describes ` +
        `its DDS fields otherwise than they are stored (turn DDS discovery on): an image is never read by a layout it does not fit.`,
    );
  const read = decodeImage(t, e, decoder);
  if (t.identify === 'rrn') read.row[RRN_COLUMN] = e.rrn;
  if (t.memberKey) read.row[MEMBER_COLUMN] = e.member;
  return read;
}

/**
 * The image decoded; one the fast decoder refuses (data SQL could not map either: blanks in a packed
 * field, 00/00/00 in a date) is read field by field under the decode policy. Never a row skipped.
 */
function decodeImage(t: TableReading, e: JournalEntryRow, decoder: ImageDecoder): ReadRow {
  try {
    return { row: decoder.decode(e.data, e.nullIndicators), replaced: 0 };
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
  }
  const { row, unread, replaced } = decoder.decodeLenient(e.data, e.nullIndicators);
  if (unread.length === 0) return { row, replaced };
  const listed = (text: boolean) =>
    unread
      .filter((u) => u.text === text)
      .map((u) => `${u.field}: ${u.error.replace(/\.$/, '')}`)
      .join('; ');
  const [data, text] = [listed(false), listed(true)];
  const settings = [
    ...(data ? ['invalidDecimals', 'invalidDates'] : []),
    ...(text ? ['invalidText'] : []),
  ] as const;
  return {
    row,
    replaced,
    unreadable: {
      reason:
        `Journal entry ${e.sequence} (${e.code} ${e.type}) of ${t.library}/${t.file} in receiver ${e.receiverLibrary}/${e.receiver} ` +
        [
          data && `holds data no SQL reader maps (${data}), as a program or CPYF FMTOPT(*NOCHK) can write it`,
          text && `holds text with no character in its CCSID (${text})`,
        ]
          .filter(Boolean)
          .join(', and ') +
        `. Correct the record at the source, or set ${settings.map((k) => `"${labelOf(journalConfiguration, k)}"`).join(' or ')} to write a value in its place.`,
      raw: e.data.slice(0, decoder.length),
    },
  };
}

/** The columns that identify a table's rows: the member first in a file of several. */
function keyColumnsOf(t: TableReading): string[] {
  const ids = t.identify === 'rrn' ? [RRN_COLUMN] : t.identify;
  return t.memberKey ? [MEMBER_COLUMN, ...ids] : ids;
}

function keyOf(columns: readonly string[], row: Row): Row {
  const key: Row = {};
  for (const k of columns) key[k] = row[k] ?? null;
  return key;
}

const same = (a: Row[string], b: Row[string]) =>
  a instanceof Uint8Array && b instanceof Uint8Array ? Buffer.from(a).equals(Buffer.from(b)) : a === b;

interface Reading {
  table: TableReading;
  keyColumns: string[];
  /** LOB columns: their images hold a placeholder, so an update always counts them as changed. */
  lobColumns: string[];
}

/** What the commit that released a change says of it: its transaction and when it committed. */
interface Commit {
  transactionId?: string;
  commitTime?: Date;
}

/**
 * The operation each record entry that becomes a change of its own stands for (IBM i journal entry
 * types, journal code R): PT a record added, PX one added at a relative record number, UP an update's
 * after image, DL a delete.
 */
const OPERATION_OF_ENTRY: Readonly<Record<string, Change['op']>> = {
  PT: 'insert',
  PX: 'insert',
  UP: 'update',
  DL: 'delete',
};

/** One released record change (an update may come with its before image) as changes, added to `out`. */
function addChanges(
  r: Reading,
  before: JournalEntryRow | undefined,
  last: JournalEntryRow,
  form: ValueForm,
  commit: Commit,
  out: Change[],
): void {
  const t = r.table;
  const table = t.key;
  const position = `${last.receiverLibrary}/${last.receiver}/${last.sequence}`;
  const read = rowOf(t, last, form);
  const { row } = read;
  const key = keyOf(r.keyColumns, row);
  const tell = {
    ...(read.unreadable && { unreadable: read.unreadable }),
    ...(read.replaced > 0 && { replaced: read.replaced }),
    ...(last.origin && { origin: last.origin }),
  };
  if (read.unreadable) {
    // Kept aside whole: neither a key change nor the columns changed can be told from a row not read.
    out.push({
      table,
      position,
      op: OPERATION_OF_ENTRY[last.type] ?? 'update',
      key,
      row,
      changedColumns: null,
      ...tell,
      ...commit,
    });
    return;
  }
  // A DL entry's image is the record as it was: the delete's before image.
  if (last.type === 'DL')
    out.push({
      table,
      position,
      op: 'delete',
      key,
      row: null,
      changedColumns: null,
      before: row,
      ...tell,
      ...commit,
    });
  else if (last.type === 'PT' || last.type === 'PX')
    out.push({ table, position, op: 'insert', key, row, changedColumns: null, ...tell, ...commit });
  else if (!before)
    out.push({ table, position, op: 'update', key, row, changedColumns: null, ...tell, ...commit });
  else {
    const oldRead = rowOf(t, before, form);
    // A before image not read (bad data before the change) says nothing of what changed: all did.
    if (oldRead.unreadable) {
      out.push({ table, position, op: 'update', key, row, changedColumns: null, ...tell, ...commit });
      return;
    }
    const old = oldRead.row;
    const oldKey = keyOf(r.keyColumns, old);
    if (r.keyColumns.some((k) => !same(key[k] ?? null, oldKey[k] ?? null))) {
      out.push({
        table,
        position,
        op: 'delete',
        key: oldKey,
        row: null,
        changedColumns: null,
        before: old,
        ...commit,
      });
      out.push({ table, position, op: 'insert', key, row, changedColumns: null, ...tell, ...commit });
      return;
    }
    // A LOB column's image is a placeholder on both sides: it counts as changed, and is read anew.
    const changed = Object.keys(row).filter(
      (c) => r.lobColumns.includes(c) || !same(row[c] ?? null, old[c] ?? null),
    );
    out.push({
      table,
      position,
      op: 'update',
      key,
      row,
      changedColumns: changed,
      before: old,
      ...tell,
      ...commit,
    });
  }
}

/** A record's slot: its before image (UB) waits there for the update (UP) that follows it. */
const slotOf = (t: TableReading, e: JournalEntryRow) => `${t.key}#${e.member}#${e.rrn}`;

/** Orders two positions of one journal: negative, zero or positive. */
export type PositionOrder = (a: JournalPosition, b: JournalPosition) => number;

/** A record change waiting for its commit: the entry and, for an update, its before image. */
interface Item {
  before: JournalEntryRow | undefined;
  last: JournalEntryRow;
}

interface Pending {
  first: JournalPosition;
  items: Item[];
}

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
  decoded?: WeakMap<JournalEntryRow, Change[]>,
  /** A journal timestamp (JOTSTP, the system's local time) as an instant; undefined when it cannot say. */
  instant?: (local: string) => Date | undefined,
): Assembled {
  // Tables by library, then file: no name is built per entry to find its table.
  const byFile = new Map<string, Map<string, Reading>>();
  for (const t of tables) {
    const files = byFile.get(t.library) ?? new Map<string, Reading>();
    files.set(t.file, {
      table: t,
      keyColumns: keyColumnsOf(t),
      lobColumns: t.fields.filter((f) => f.type.kind === 'lob').map((f) => f.name),
    });
    byFile.set(t.library, files);
  }
  const passed = new Set(tables.filter((t) => t.appliedThrough === null).map((t) => t.key));
  let waiting = tables.length - passed.size;
  const pending = new Map<number, Pending>();
  const befores = new Map<string, JournalEntryRow>();
  const resnapshot = new Map<string, string>();
  const changes: Change[] = [];
  let consumedEntry: JournalEntryRow | null = null;
  let consumedCount = 0;
  let newestTimestamp: string | null = null;

  /** `at`: the commit entry (C CM) that releases changes, or a change's own entry outside commitment control. */
  const commitOf = (at: JournalEntryRow): Commit => {
    const commitTime = instant?.(at.timestamp);
    return { ...(at.cycle !== 0 && { transactionId: String(at.cycle) }), ...(commitTime && { commitTime }) };
  };

  const release = (r: Reading, item: Item, commit: Commit) => {
    if (!passed.has(r.table.key)) return;
    newestTimestamp = item.last.timestamp;
    if (!decoded) return addChanges(r, item.before, item.last, form, commit, changes);
    let made = decoded.get(item.last);
    if (!made) {
      addChanges(r, item.before, item.last, form, commit, (made = []));
      decoded.set(item.last, made);
    }
    for (const change of made) changes.push(change);
  };

  for (const e of entries) {
    // A table's entries count from the first one past its applied position (FILE selection means
    // the entry at that position itself may belong to another file and never show).
    if (waiting > 0) {
      const at = positionOf(e);
      for (const t of tables)
        if (t.appliedThrough && !passed.has(t.key) && order(at, t.appliedThrough) > 0) {
          passed.add(t.key);
          waiting--;
        }
    }
    const r = byFile.get(e.library)?.get(e.file);
    const t = r?.table;
    if (e.code === 'C') {
      if (e.type === 'SC') pending.set(e.cycle, { first: positionOf(e), items: [] });
      else if (e.type === 'CM') {
        // One commit, one time and id for all it releases.
        const commit = commitOf(e);
        for (const item of pending.get(e.cycle)?.items ?? []) {
          const owner = byFile.get(item.last.library)?.get(item.last.file);
          if (owner) release(owner, item, commit);
        }
      }
      if (e.type === 'CM' || e.type === 'RB') pending.delete(e.cycle);
    } else if (e.code === 'R' && r && t && t.members.includes(e.member)) {
      const type = e.type;
      if (type === 'UB') befores.set(slotOf(t, e), e);
      else if (type === 'PT' || type === 'PX' || type === 'UP' || type === 'DL') {
        let before: JournalEntryRow | undefined;
        if (befores.size > 0) {
          const slot = slotOf(t, e);
          if (type === 'UP') before = befores.get(slot);
          befores.delete(slot);
        }
        const item = { before, last: e };
        if (e.cycle === 0) release(r, item, commitOf(e));
        else {
          let open = pending.get(e.cycle);
          if (!open) pending.set(e.cycle, (open = { first: positionOf(e), items: [] }));
          open.items.push(item);
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
    consumedEntry = e;
    consumedCount++;
    if (changes.length >= maxRows) break;
  }
  const oldestOpen = pending.values().next().value;
  const consumed = consumedEntry && positionOf(consumedEntry);
  return {
    changes: resnapshot.size ? changes.filter((c) => !resnapshot.has(c.table)) : changes,
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
