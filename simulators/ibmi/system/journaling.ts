// Journals and receivers, and the entries the system deposits: record images, file and member
// operations, commit cycles, and receivers changed when the system manages them.
import { encodeRecord } from '../../../lib/ibmi/recordEncode';
import { fieldSpan } from '../../../lib/ibmi/recordImage';
import { newAuthority } from './authority';
import { imageValue, type Member, type PhysicalFile, type Row } from './files';
import {
  attachedReceiver,
  deposit,
  generatedName,
  type Journal,
  type JournalEntry,
  type Receiver,
} from './journals';
import { cpf, sqlError } from './messages';
import { QSECOFR } from './users';

import { objectKey as key, type Job, type SystemState, type Transaction } from './state';

export function journalOf(s: SystemState, file: PhysicalFile): Journal | undefined {
  return file.journal ? s.journals.get(key(file.journal.library, file.journal.name)) : undefined;
}

export function cycleFor(s: SystemState, job: Job, file: PhysicalFile, journal: Journal | undefined): number {
  const tx = job.transaction;
  if (!tx) return 0;
  // Commitment control needs the file journaled (SQL7008 reason code 3).
  if (!journal) throw sqlError(-7008, file.name, file.library, '3');
  let cycle = tx.cycles.get(journal);
  if (cycle === undefined) {
    // The commit cycle is known by the sequence number of its C SC entry, which carries it too.
    const start = depositEntry(s, job, journal, { code: 'C', type: 'SC' }, 0);
    cycle = start.seq;
    start.commitCycle = cycle;
    tx.cycles.set(journal, cycle);
  }
  return cycle;
}

export function depositEntry(
  s: SystemState,
  job: Job | null,
  journal: Journal,
  e: Partial<Omit<JournalEntry, 'seq' | 'receiver' | 'timestamp'>> & { code: string; type: string },
  cycle: number,
): JournalEntry {
  const entry = deposit(
    journal,
    {
      job: job?.name ?? 'QSYSARB',
      jobUser: job?.user ?? 'QSYS',
      jobNumber: job?.number ?? '000000',
      program: job ? 'QZDASOINIT' : 'QSYS',
      programLibrary: 'QSYS',
      object: '',
      library: '',
      member: '',
      objectType: '',
      rrn: 0,
      nullIndicators: '',
      data: new Uint8Array(0),
      minimized: false,
      userProfile: job?.profile.name ?? 'QSYS',
      ...e,
      commitCycle: cycle,
    },
    s.timestamp(),
  );
  if (journal.manageReceivers === '*SYSTEM' && journal.threshold !== null) {
    const r = attachedReceiver(journal);
    if (r && r.entries.length >= journal.threshold && e.code !== 'J')
      s.changeReceiver(job, journal, null, false);
  }
  return entry;
}

/** Field kinds a program may fill with any bytes (SQL would refuse them): decimals and dates. */
const PROGRAM_BYTES: Partial<Record<string, string>> = {
  char: '',
  packed: '0',
  zoned: '0',
  date: '2000-01-01',
  time: '00:00:00',
  timestamp: '2000-01-01-00.00.00.000000',
};

/**
 * The record's image: each field encoded from its value, except bytes a program wrote into a decimal,
 * date or character field (writeFromProgram), which the image carries as they are — blanks, zeros, a
 * bad sign, a byte the field's CCSID has no character for.
 */
export function recordImage(s: SystemState, file: PhysicalFile, row: Row) {
  const raw = new Map<number, Buffer>();
  const values = Object.fromEntries(
    file.columns.map((c, i) => {
      const v = row[c.name] ?? null;
      const placeholder = PROGRAM_BYTES[c.type.kind];
      if (!Buffer.isBuffer(v) || placeholder === undefined) return [c.name, imageValue(c, v)];
      raw.set(i, v);
      return [c.name, placeholder];
    }),
  );
  const encoded = encodeRecord(file.columns, values);
  let offset = 0;
  file.columns.forEach((c, i) => {
    const bytes = raw.get(i);
    const span = fieldSpan(c.type, offset);
    if (bytes) encoded.image.set(bytes.subarray(0, span), offset);
    offset += span;
  });
  return encoded;
}

export function journalRecord(
  s: SystemState,
  job: Job,
  file: PhysicalFile,
  member: Member,
  type: string,
  rrn: number,
  row: Row,
  cycle: number,
  before?: Row,
) {
  const journal = journalOf(s, file);
  if (!journal) return;
  const { image, nullIndicators } = recordImage(s, file, row);
  // MINENTDTA: an update entry may carry the record only up to its last changed byte, when shorter.
  const minimized =
    before && journal.minimizeFiles !== '*NONE'
      ? changedPrefix(image, recordImage(s, file, before).image)
      : null;
  depositEntry(
    s,
    job,
    journal,
    {
      code: 'R',
      type,
      object: file.name,
      library: file.library,
      member: member.name,
      objectType: '*QDDS',
      rrn,
      nullIndicators,
      data: minimized ?? image,
      minimized: minimized !== null,
      incomplete: file.columns.some((c) => c.type.kind === 'lob'),
    },
    cycle,
  );
}

/** An entry about a file member (F JM, F RG, F CR …), outside any commit cycle. */
export function journalFileEntry(
  s: SystemState,
  job: Job | null,
  file: PhysicalFile,
  member: Member,
  code: string,
  type: string,
): void {
  const journal = journalOf(s, file);
  if (!journal) return;
  depositEntry(
    s,
    job,
    journal,
    { code, type, object: file.name, library: file.library, member: member.name, objectType: '*QDDS' },
    0,
  );
}

/** A D entry ("Database file operation"): about the file, not a member, outside any commit cycle. */
export function journalFileOperation(
  s: SystemState,
  job: Job | null,
  file: PhysicalFile,
  type: string,
): void {
  const journal = journalOf(s, file);
  if (!journal) return;
  const entry = {
    code: 'D',
    type,
    object: file.name,
    library: file.library,
    member: '',
    objectType: '*QDDS',
  };
  depositEntry(s, job, journal, entry, 0);
}

export function receiver(s: SystemState, library: string, name: string): Receiver {
  const r = s.receivers.get(key(library, name));
  if (!r) throw cpf('CPF9801', '', name, library);
  return r;
}

export function journal(s: SystemState, library: string, name: string): Journal {
  const j = s.journals.get(key(library, name));
  if (!j) throw cpf('CPF9801', '', name, library);
  return j;
}

export function createReceiver(
  s: SystemState,
  owner: string,
  library: string,
  name: string,
  text: string,
): Receiver {
  if (s.objectExists(library, name)) throw cpf('CPF7010', name, library, 'JRNRCV');
  const r: Receiver = {
    library,
    name,
    journal: null,
    entries: [],
    attached: null,
    detached: null,
    authority: newAuthority(owner),
    created: s.timestamp(),
    text,
  };
  s.receivers.set(key(library, name), r);
  return r;
}

export function createJournal(
  s: SystemState,
  job: Job,
  library: string,
  name: string,
  receiver: Receiver,
  manage: '*SYSTEM' | '*USER',
  deleteReceivers: boolean,
): Journal {
  if (s.objectExists(library, name)) throw cpf('CPF7010', name, library, 'JRN');
  const j: Journal = {
    library,
    name,
    receivers: [],
    nextSeq: 1,
    manageReceivers: manage,
    deleteReceivers,
    minimizeFiles: '*NONE',
    threshold: null,
    authority: newAuthority(job.profile.name),
    created: s.timestamp(),
    text: '',
  };
  s.journals.set(key(library, name), j);
  receiver.journal = j;
  receiver.attached = s.timestamp();
  j.receivers.push(receiver);
  return j;
}

/** CHGJRN: attaches `next` (or a generated receiver), journals J NR and J PR, and can reset the sequence. */
export function changeReceiver(
  s: SystemState,
  job: Job | null,
  j: Journal,
  next: Receiver | null,
  resetSequence: boolean,
): Receiver {
  const old = attachedReceiver(j);
  if (!old) throw new Error('No receiver attached.');
  if (resetSequence && [...openTransactions(s)].some((tx) => tx.cycles.has(j))) throw cpf('CPF70D9');
  const receiver =
    next ??
    s.createReceiver(
      job?.profile.name ?? QSECOFR.name,
      old.library,
      freeName(s, old.library, generatedName(old.name)),
      old.text,
    );
  depositEntry(s, job, j, { code: 'J', type: 'NR', object: receiver.name, library: receiver.library }, 0);
  old.detached = s.timestamp();
  receiver.journal = j;
  receiver.attached = s.timestamp();
  j.receivers.push(receiver);
  if (resetSequence) j.nextSeq = 1;
  depositEntry(s, job, j, { code: 'J', type: 'PR', object: old.name, library: old.library }, 0);
  if (j.deleteReceivers) s.deleteReceiver(old);
  return receiver;
}

export function freeName(s: SystemState, library: string, name: string): string {
  let n = name;
  while (s.objectExists(library, n)) n = generatedName(n);
  return n;
}

export function deleteReceiver(s: SystemState, r: Receiver): void {
  const j = r.journal;
  if (j && attachedReceiver(j) === r) throw cpf('CPF7040', r.name, r.library);
  if (j) j.receivers = j.receivers.filter((x) => x !== r);
  s.receivers.delete(key(r.library, r.name));
}

export function startJournaling(
  s: SystemState,
  job: Job,
  file: PhysicalFile,
  j: Journal,
  images: '*AFTER' | '*BOTH',
): void {
  if (file.journal) throw cpf('CPF7030', file.name, file.library);
  file.journal = { library: j.library, name: j.name, images, since: s.timestamp() };
  for (const m of file.members) s.journalFileEntry(job, file, m, 'F', 'JM');
}

export function endJournaling(s: SystemState, job: Job, file: PhysicalFile): void {
  if (!file.journal) throw cpf('CPF7032', file.name, file.library, 'FILE');
  for (const m of file.members) s.journalFileEntry(job, file, m, 'F', 'EJ');
  file.journal = null;
}

export function* openTransactions(s: SystemState): Iterable<Transaction> {
  for (const j of s.sessions) if (j.transaction && j.transaction.undo.length > 0) yield j.transaction;
}

/** The image up to its last byte that differs from the before image; null when that saves nothing. */
function changedPrefix(after: Uint8Array, before: Uint8Array): Uint8Array | null {
  let last = after.length - 1;
  while (last >= 0 && after[last] === before[last]) last--;
  return last + 1 < after.length ? after.slice(0, last + 1) : null;
}
