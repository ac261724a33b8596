// Journals and journal receivers ("Journal management"): each entry takes the journal's next
// sequence number and lands in the attached receiver; CHGJRN attaches a new receiver (and can reset
// the sequence); a detached receiver can be deleted, and then its entries are gone for good.
import type { ObjectAuthority } from './authority';

export interface JournalEntry {
  seq: number;
  code: string;
  type: string;
  /** yyyy-mm-dd hh:mm:ss.ffffff, the system's local time. */
  timestamp: string;
  job: string;
  jobUser: string;
  jobNumber: string;
  program: string;
  programLibrary: string;
  object: string;
  library: string;
  member: string;
  objectType: string;
  rrn: number;
  commitCycle: number;
  userProfile: string;
  nullIndicators: string;
  data: Uint8Array;
  /** Entry specific data minimised (MINENTDTA): only part of the record image (JOMINESD '1'). */
  minimized: boolean;
  /** The image holds `*POINTER` for a LOB (the file has LOB columns): JOINCDAT '1'. */
  incomplete?: boolean;
  receiver: Receiver;
}

export interface Receiver {
  library: string;
  name: string;
  journal: Journal | null;
  entries: JournalEntry[];
  attached: string | null;
  detached: string | null;
  authority: ObjectAuthority;
  created: string;
  text: string;
}

export interface Journal {
  library: string;
  name: string;
  /** Receivers in the order they were attached; the last is the attached one. */
  receivers: Receiver[];
  nextSeq: number;
  manageReceivers: '*SYSTEM' | '*USER';
  deleteReceivers: boolean;
  /** MINENTDTA for files: *FILE and *FLDBDY let update entries carry part of the record only. */
  minimizeFiles: '*NONE' | '*FILE' | '*FLDBDY';
  /** Entries after which a system-managed journal changes receivers on its own (a size threshold). */
  threshold: number | null;
  authority: ObjectAuthority;
  created: string;
  text: string;
}

export const attachedReceiver = (j: Journal): Receiver | undefined => j.receivers.at(-1);

export const firstSeq = (r: Receiver) => r.entries[0]?.seq ?? null;
export const lastSeq = (r: Receiver) => r.entries.at(-1)?.seq ?? null;

/** CHGJRN JRNRCV(*GEN): the next name, the numeric suffix counted up (QSQJRN0001 → QSQJRN0002). */
export function generatedName(current: string): string {
  const m = /^(.*?)(\d+)$/.exec(current);
  if (!m) return `${current.slice(0, 6)}0001`;
  const digits = m[2] ?? '0';
  const next = String(Number(digits) + 1).padStart(digits.length, '0');
  return `${m[1] ?? ''}${next}`.slice(-10);
}

export type EntryFields = Omit<JournalEntry, 'seq' | 'receiver' | 'timestamp'>;

export function deposit(j: Journal, fields: EntryFields, timestamp: string): JournalEntry {
  const receiver = attachedReceiver(j);
  if (!receiver) throw new Error(`Journal ${j.library}/${j.name} has no receiver attached.`);
  const entry: JournalEntry = { ...fields, seq: j.nextSeq++, timestamp, receiver };
  receiver.entries.push(entry);
  return entry;
}

export interface CodeSelection {
  code: string;
  /** *IGNFILSLT: entries of this code are kept whatever the FILE selection. */
  ignoreFileSelection: boolean;
}

export interface EntrySelection {
  receivers: Receiver[];
  from: number | null;
  to: number | null;
  /**
   * Local times as entries carry them ("YYYY-MM-DD HH:MM:SS.ffffff", or a prefix): entries at or
   * after `fromTime`, and at or before `toTime`.
   */
  fromTime?: string | null;
  toTime?: string | null;
  files: { library: string; file: string; member: string | null }[] | null;
  codes: CodeSelection[] | null;
  types: string[] | null;
  max: number | null;
}

/**
 * DSPJRN's selection: the receiver range in order, from the first entry at or past FROMENT (or
 * FROMTIME) through the entry TOENT names (or the last at or before TOTIME), then the code, type and
 * file filters, at most NBRENT entries.
 */
export function selectEntries(s: EntrySelection): JournalEntry[] {
  const out: JournalEntry[] = [];
  const fromTime = s.fromTime ?? null;
  const toTime = s.toTime ?? null;
  let started = s.from === null && fromTime === null;
  for (const receiver of s.receivers) {
    const entries = receiver.entries;
    let i = 0;
    if (!started) {
      // A receiver's sequence numbers only grow: the first entry at or after FROMENT by bisection, so
      // reading a long journal batch by batch does not rescan what earlier batches read.
      i =
        fromTime === null
          ? firstAtOrAfter(entries, s.from ?? 0)
          : entries.findIndex((e) => e.timestamp >= fromTime);
      if (i < 0 || i === entries.length) continue;
      started = true;
    }
    for (; i < entries.length; i++) {
      const e = entries[i] as JournalEntry;
      if (toTime !== null && e.timestamp > toTime) return out;
      if (keep(e, s)) out.push(e);
      if ((s.max !== null && out.length >= s.max) || (s.to !== null && e.seq === s.to)) return out;
    }
  }
  return out;
}

/** The index of the first entry whose sequence number is `seq` or more (entries.length when none). */
function firstAtOrAfter(entries: readonly JournalEntry[], seq: number): number {
  let low = 0;
  let high = entries.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((entries[mid] as JournalEntry).seq < seq) low = mid + 1;
    else high = mid;
  }
  return low;
}

function keep(e: JournalEntry, s: EntrySelection): boolean {
  const code = s.codes?.find((c) => c.code === e.code);
  if (s.codes && !code) return false;
  if (s.types && !s.types.includes(e.type)) return false;
  if (!s.files || code?.ignoreFileSelection) return true;
  return s.files.some(
    // File-level entries (D: ALTER TABLE, DROP …) have no member and go with the file whatever the member selection.
    (f) =>
      f.library === e.library &&
      f.file === e.object &&
      (f.member === null || e.member === '' || f.member === e.member),
  );
}
