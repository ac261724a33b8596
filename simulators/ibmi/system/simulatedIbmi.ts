// The simulated IBM i: libraries, physical files, journals and receivers, user profiles, and the
// record-level changes every job makes, journaled as IBM documents them. Connections (session.ts)
// reach it through the same IbmiConnection interface the ODBC code implements.
import Database from 'better-sqlite3';
import { encodeRecord } from '../../../main/agents/drivers/ibmi/recordEncode';
import { holds, newAuthority, type ObjectAuthority, type Right } from './authority';
import {
  discardingPending,
  alterMemberTable,
  createMemberTable,
  freeSlot,
  imageValue,
  nextSlot,
  q,
  readRecord,
  removeRecord,
  takeSlot,
  writeRecord,
  type ColumnSpec,
  type Member,
  type PhysicalFile,
  type Row,
} from './files';
import {
  attachedReceiver,
  deposit,
  generatedName,
  type Journal,
  type JournalEntry,
  type Receiver,
} from './journals';
import { FaultQueue, type FaultKind } from '../../faults';
import { cpf, sqlError } from './messages';
import { principal, QPGMR, QSECOFR, type UserProfile } from './users';

/** Job numbers count up from here; the simulated system's first job is one more. */
const FIRST_JOB_NUMBER = 100_000;

export interface Library {
  name: string;
  authority: ObjectAuthority;
  created: string;
  text: string;
  /** Made by CREATE SCHEMA (with its QSQJRN journal), not CRTLIB. */
  schema: boolean;
}

export interface Alias {
  library: string;
  name: string;
  target: { library: string; file: string; member: string | null };
  authority: ObjectAuthority;
}

/** A job as the host server runs it: QZDASOINIT under QUSER, with the signed-on profile as current user. */
export interface Job {
  name: string;
  user: string;
  number: string;
  profile: UserProfile;
  transaction: Transaction | null;
  /** Ended by a restart of the system: its connection answers CWBCO1047 from then on. */
  ended?: boolean;
}

type Undo =
  | { kind: 'insert'; file: PhysicalFile; member: Member; rrn: number }
  | { kind: 'update'; file: PhysicalFile; member: Member; rrn: number; before: Row }
  | { kind: 'delete'; file: PhysicalFile; member: Member; rrn: number; before: Row };

export interface Transaction {
  cycles: Map<Journal, number>;
  undo: Undo[];
}

export interface SimulatedIbmiOptions {
  users?: UserProfile[];
  systemName?: string;
  /** Seam: the system clock. */
  now?: () => Date;
  /** The system's UTC offset in minutes (QUTCOFFSET); timestamps are local time. */
  utcOffsetMinutes?: number;
}

const key = (library: string, name: string) => `${library}/${name}`;
const two = (n: number) => String(n).padStart(2, '0');

export class SimulatedIbmi {
  readonly db = new Database(':memory:');
  readonly users = new Map<string, UserProfile>();
  readonly libraries = new Map<string, Library>();
  readonly files = new Map<string, PhysicalFile>();
  readonly aliases = new Map<string, Alias>();
  readonly journals = new Map<string, Journal>();
  readonly receivers = new Map<string, Receiver>();
  /** Private authorities to CL commands (public *USE otherwise), as GRTOBJAUT on QSYS/cmd sets them. */
  readonly commands = new Map<string, ObjectAuthority>();
  readonly systemName: string;
  readonly utcOffsetMinutes: number;
  private readonly now: () => Date;
  private jobs = FIRST_JOB_NUMBER;
  private lastStamp = '';
  private sameStamp = 0;

  constructor(options: SimulatedIbmiOptions = {}) {
    this.systemName = options.systemName ?? 'SANDBOX';
    this.now = options.now ?? (() => new Date());
    this.utcOffsetMinutes = options.utcOffsetMinutes ?? 0;
    // Each system keeps its own copies: a test that disables a profile changes this system only.
    for (const u of [QSECOFR, QPGMR, ...(options.users ?? [])])
      this.users.set(u.name, { ...u, specialAuthorities: [...u.specialAuthorities] });
    for (const lib of ['QSYS', 'QSYS2', 'SYSIBM', 'QGPL', 'QTEMP'])
      this.libraries.set(lib, {
        name: lib,
        // QGPL and QTEMP take anyone's objects; the system libraries do not.
        authority: newAuthority('QSYS', lib === 'QGPL' || lib === 'QTEMP' ? '*CHANGE' : '*USE'),
        created: this.timestamp(),
        text: '',
        schema: false,
      });
  }

  close(): void {
    this.db.close();
  }

  newJob(profile: UserProfile): Job {
    return {
      name: 'QZDASOINIT',
      user: 'QUSER',
      number: String(++this.jobs).slice(-6),
      profile,
      transaction: null,
    };
  }

  /** Local time as Db2 for i shows a TIMESTAMP; never the same value twice, as journal timestamps are not. */
  timestamp(): string {
    const t = new Date(this.now().getTime() + this.utcOffsetMinutes * 60_000);
    const base =
      `${t.getUTCFullYear()}-${two(t.getUTCMonth() + 1)}-${two(t.getUTCDate())} ` +
      `${two(t.getUTCHours())}:${two(t.getUTCMinutes())}:${two(t.getUTCSeconds())}`;
    const ms = String(t.getUTCMilliseconds()).padStart(3, '0');
    const stamp = `${base}.${ms}`;
    this.sameStamp = stamp === this.lastStamp ? this.sameStamp + 1 : 0;
    this.lastStamp = stamp;
    return `${stamp}${String(Math.min(this.sameStamp, 999)).padStart(3, '0')}`;
  }

  // ---- faults (tests and fault drills arm them) ----------------------------------------------

  readonly faults = new FaultQueue();

  /**
   * The next `times` statements or commands, on any connection, fail as a dropped connection ('drop')
   * or answer `ms` late ('stall'). The mid-result kinds strike the next statements that answer two
   * rows or more, once they ran and while their rows are fetched: SQL0913, a row held by another job
   * ('fail-mid-result'), or the host server ending the job ('drop-mid-result'). With `matching`, only
   * statements or commands whose text matches are struck.
   */
  injectFaults(kind: FaultKind, times: number, ms = 0, matching?: RegExp): void {
    this.faults.inject(kind, times, ms, matching);
  }

  /** Faults armed that have not struck yet. */
  pendingFaults(): number {
    return this.faults.pending;
  }

  // ---- authority ----------------------------------------------------------------------------

  can(job: Job, auth: ObjectAuthority, needed: readonly Right[]): boolean {
    return holds(principal(job.profile), auth, needed);
  }

  /** The library, which the job may use (*EXECUTE), or CPF9810 / CPF9820. */
  useLibrary(job: Job, name: string, needed: readonly Right[] = ['*EXECUTE']): Library {
    const lib = this.libraries.get(name);
    if (!lib) throw cpf('CPF9810', name);
    if (!this.can(job, lib.authority, needed))
      throw needed.includes('*ADD') ? cpf('CPF2182', name) : cpf('CPF9820', name);
    return lib;
  }

  command(job: Job, name: string): void {
    const auth = this.commands.get(name);
    if (auth && !this.can(job, auth, ['*OBJOPR', '*EXECUTE'])) throw cpf('CPF9802', name, 'QSYS');
  }

  // ---- libraries ----------------------------------------------------------------------------

  createLibrary(job: Job, name: string, text: string, schema: boolean): Library {
    if (this.libraries.has(name)) throw schema ? sqlError(-601, name, 'QSYS', 'LIB') : cpf('CPF2111', name);
    const lib: Library = {
      name,
      authority: newAuthority(job.profile.name),
      created: this.timestamp(),
      text,
      schema,
    };
    lib.authority.public = new Set(['*OBJOPR', '*READ', '*ADD', '*UPD', '*DLT', '*EXECUTE']);
    this.libraries.set(name, lib);
    if (schema) {
      // CREATE SCHEMA makes the journal QSQJRN with receiver QSQJRN0001; tables created in the schema are journaled to it.
      this.createReceiver(job.profile.name, name, 'QSQJRN0001', '');
      this.createJournal(job, name, 'QSQJRN', this.receiver(name, 'QSQJRN0001'), '*SYSTEM', false);
    }
    return lib;
  }

  // ---- files ----------------------------------------------------------------------------------

  file(library: string, name: string): PhysicalFile | undefined {
    return this.files.get(key(library, name));
  }

  objectExists(library: string, name: string): boolean {
    const k = key(library, name);
    return this.files.has(k) || this.aliases.has(k) || this.journals.has(k) || this.receivers.has(k);
  }

  addFile(
    job: Job,
    file: Omit<PhysicalFile, 'members' | 'authority' | 'created' | 'journal'>,
    member: string | null,
  ): PhysicalFile {
    if (this.objectExists(file.library, file.name)) throw cpf('CPF5813', file.name, file.library);
    const full: PhysicalFile = {
      ...file,
      members: [],
      journal: null,
      authority: newAuthority(job.profile.name),
      created: this.timestamp(),
    };
    this.files.set(key(file.library, file.name), full);
    if (member) full.members.push(createMemberTable(this.db, full, member));
    return full;
  }

  addMember(file: PhysicalFile, member: string): Member {
    if (file.members.some((m) => m.name === member)) throw cpf('CPF3223', file.name, file.library, member);
    if (file.maxMembers !== null && file.members.length >= file.maxMembers) throw cpf('CPF3213', file.name);
    const m = createMemberTable(this.db, file, member);
    file.members.push(m);
    if (file.journal) this.journalFileEntry(null, file, m, 'F', 'JM');
    return m;
  }

  deleteFile(file: PhysicalFile): void {
    // A journaled file's deletion is its last entry: D DT ("Delete file").
    this.journalFileOperation(null, file, 'DT');
    for (const m of file.members) this.db.exec(`DROP TABLE ${q(discardingPending(m))}`);
    this.files.delete(key(file.library, file.name));
  }

  /**
   * RNMOBJ or MOVOBJ of a file: journaled first (D FN "Rename file", D FM "Move file") under the name
   * the entries so far carry; the file's members and journaling go with it.
   */
  relocateFile(job: Job, file: PhysicalFile, to: { library: string; name: string }): void {
    if (this.objectExists(to.library, to.name)) throw cpf('CPF2112', to.name, to.library, 'FILE');
    this.journalFileOperation(job, file, to.library === file.library ? 'FN' : 'FM');
    this.files.delete(key(file.library, file.name));
    file.library = to.library;
    file.name = to.name;
    this.files.set(key(file.library, file.name), file);
  }

  /** RMVM: the member's records go with it, journaled as F DM ("Remove member"). */
  removeMember(job: Job, file: PhysicalFile, member: Member): void {
    this.journalFileEntry(job, file, member, 'F', 'DM');
    this.db.exec(`DROP TABLE ${q(discardingPending(member))}`);
    file.members = file.members.filter((m) => m !== member);
  }

  /** The records a member holds (deleted slots not counted). */
  countRecords(member: Member): number {
    // Pending records are the member's only ones (its table was emptied when they were made).
    if (member.pending) return member.pending.count;
    return (this.db.prepare(`SELECT COUNT(*) AS n FROM ${q(member.table)}`).get() as { n: number }).n;
  }

  member(file: PhysicalFile, name: string | null): Member {
    const m =
      name === null || name === '*FIRST' ? file.members[0] : file.members.find((x) => x.name === name);
    if (!m) throw cpf('CPF9815', '', file.name, file.library, '', name ?? '*FIRST');
    return m;
  }

  // ---- record-level changes, journaled ----------------------------------------------------------

  private journalOf(file: PhysicalFile): Journal | undefined {
    return file.journal ? this.journals.get(key(file.journal.library, file.journal.name)) : undefined;
  }

  private cycleFor(job: Job, file: PhysicalFile, journal: Journal | undefined): number {
    const tx = job.transaction;
    if (!tx) return 0;
    // Commitment control needs the file journaled (SQL7008 reason code 3).
    if (!journal) throw sqlError(-7008, file.name, file.library, '3');
    let cycle = tx.cycles.get(journal);
    if (cycle === undefined) {
      // The commit cycle is known by the sequence number of its C SC entry, which carries it too.
      const start = this.deposit(job, journal, { code: 'C', type: 'SC' }, 0);
      cycle = start.seq;
      start.commitCycle = cycle;
      tx.cycles.set(journal, cycle);
    }
    return cycle;
  }

  private deposit(
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
      this.timestamp(),
    );
    if (journal.manageReceivers === '*SYSTEM' && journal.threshold !== null) {
      const r = attachedReceiver(journal);
      if (r && r.entries.length >= journal.threshold && e.code !== 'J')
        this.changeReceiver(job, journal, null, false);
    }
    return entry;
  }

  private image(file: PhysicalFile, row: Row) {
    const values = Object.fromEntries(file.columns.map((c) => [c.name, imageValue(c, row[c.name] ?? null)]));
    return encodeRecord(file.columns, values);
  }

  private journalRecord(
    job: Job,
    file: PhysicalFile,
    member: Member,
    type: string,
    rrn: number,
    row: Row,
    cycle: number,
    before?: Row,
  ) {
    const journal = this.journalOf(file);
    if (!journal) return;
    const { image, nullIndicators } = this.image(file, row);
    // MINENTDTA: an update entry may carry the record only up to its last changed byte, when shorter.
    const minimized =
      before && journal.minimizeFiles !== '*NONE'
        ? changedPrefix(image, this.image(file, before).image)
        : null;
    this.deposit(
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
  journalFileEntry(job: Job | null, file: PhysicalFile, member: Member, code: string, type: string): void {
    const journal = this.journalOf(file);
    if (!journal) return;
    this.deposit(
      job,
      journal,
      { code, type, object: file.name, library: file.library, member: member.name, objectType: '*QDDS' },
      0,
    );
  }

  /**
   * ALTER TABLE: the file's columns become `columns` (each member's rows kept, a new column holding its
   * default), journaled as a D CG entry ("Change file") for the file, not a member.
   */
  alterFile(job: Job, file: PhysicalFile, columns: ColumnSpec[]): void {
    for (const m of file.members) alterMemberTable(this.db, file, m, columns);
    file.columns = columns;
    this.journalFileOperation(job, file, 'CG');
  }

  /** A D entry ("Database file operation"): about the file, not a member, outside any commit cycle. */
  journalFileOperation(job: Job | null, file: PhysicalFile, type: string): void {
    const journal = this.journalOf(file);
    if (!journal) return;
    const entry = {
      code: 'D',
      type,
      object: file.name,
      library: file.library,
      member: '',
      objectType: '*QDDS',
    };
    this.deposit(job, journal, entry, 0);
  }

  insertRecord(job: Job, file: PhysicalFile, member: Member, row: Row): number {
    const journal = this.journalOf(file);
    const cycle = this.cycleFor(job, file, journal);
    const { rrn, reused } = nextSlot(file, member);
    writeRecord(this.db, file, member, rrn, row, true);
    takeSlot(member, rrn);
    // A record added into a deleted record's slot is added "directly by RRN" (PX).
    this.journalRecord(job, file, member, reused ? 'PX' : 'PT', rrn, row, cycle);
    job.transaction?.undo.push({ kind: 'insert', file, member, rrn });
    return rrn;
  }

  updateRecord(job: Job, file: PhysicalFile, member: Member, rrn: number, row: Row): void {
    const before = readRecord(this.db, member, rrn);
    if (!before) throw new Error(`No record at RRN ${rrn}.`);
    const journal = this.journalOf(file);
    const cycle = this.cycleFor(job, file, journal);
    writeRecord(this.db, file, member, rrn, row, false);
    // *AFTER journaling writes no before-image (UB).
    if (file.journal?.images === '*BOTH') this.journalRecord(job, file, member, 'UB', rrn, before, cycle);
    this.journalRecord(job, file, member, 'UP', rrn, row, cycle, before);
    job.transaction?.undo.push({ kind: 'update', file, member, rrn, before });
  }

  deleteRecord(job: Job, file: PhysicalFile, member: Member, rrn: number): void {
    const before = readRecord(this.db, member, rrn);
    if (!before) throw new Error(`No record at RRN ${rrn}.`);
    const journal = this.journalOf(file);
    const cycle = this.cycleFor(job, file, journal);
    removeRecord(this.db, member, rrn);
    freeSlot(member, rrn);
    this.journalRecord(job, file, member, 'DL', rrn, before, cycle);
    job.transaction?.undo.push({ kind: 'delete', file, member, rrn, before });
  }

  commit(job: Job): void {
    const tx = job.transaction;
    if (!tx) return;
    for (const [journal, cycle] of tx.cycles) this.deposit(job, journal, { code: 'C', type: 'CM' }, cycle);
    job.transaction = { cycles: new Map(), undo: [] };
  }

  /** Rollback undoes each change, newest first, journaling DR, BR and UR as the system does, then C RB. */
  rollback(job: Job): void {
    const tx = job.transaction;
    if (!tx) return;
    for (const step of tx.undo.reverse()) {
      const { file, member, rrn } = step;
      const journal = this.journalOf(file);
      const cycle = journal ? (tx.cycles.get(journal) ?? 0) : 0;
      if (step.kind === 'insert') {
        const current = readRecord(this.db, member, rrn) ?? {};
        removeRecord(this.db, member, rrn);
        freeSlot(member, rrn);
        this.journalRecord(job, file, member, 'DR', rrn, current, cycle);
      } else {
        const current = readRecord(this.db, member, rrn);
        writeRecord(this.db, file, member, rrn, step.before, step.kind === 'delete');
        if (step.kind === 'delete') takeSlot(member, rrn);
        if (current && file.journal?.images === '*BOTH')
          this.journalRecord(job, file, member, 'BR', rrn, current, cycle);
        this.journalRecord(job, file, member, 'UR', rrn, step.before, cycle);
      }
    }
    for (const [journal, cycle] of tx.cycles) this.deposit(job, journal, { code: 'C', type: 'RB' }, cycle);
    job.transaction = { cycles: new Map(), undo: [] };
  }

  // ---- journals and receivers ------------------------------------------------------------------

  receiver(library: string, name: string): Receiver {
    const r = this.receivers.get(key(library, name));
    if (!r) throw cpf('CPF9801', '', name, library);
    return r;
  }

  journal(library: string, name: string): Journal {
    const j = this.journals.get(key(library, name));
    if (!j) throw cpf('CPF9801', '', name, library);
    return j;
  }

  createReceiver(owner: string, library: string, name: string, text: string): Receiver {
    if (this.objectExists(library, name)) throw cpf('CPF7010', name, library, 'JRNRCV');
    const r: Receiver = {
      library,
      name,
      journal: null,
      entries: [],
      attached: null,
      detached: null,
      authority: newAuthority(owner),
      created: this.timestamp(),
      text,
    };
    this.receivers.set(key(library, name), r);
    return r;
  }

  createJournal(
    job: Job,
    library: string,
    name: string,
    receiver: Receiver,
    manage: '*SYSTEM' | '*USER',
    deleteReceivers: boolean,
  ): Journal {
    if (this.objectExists(library, name)) throw cpf('CPF7010', name, library, 'JRN');
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
      created: this.timestamp(),
      text: '',
    };
    this.journals.set(key(library, name), j);
    receiver.journal = j;
    receiver.attached = this.timestamp();
    j.receivers.push(receiver);
    return j;
  }

  /** CHGJRN: attaches `next` (or a generated receiver), journals J NR and J PR, and can reset the sequence. */
  changeReceiver(job: Job | null, j: Journal, next: Receiver | null, resetSequence: boolean): Receiver {
    const old = attachedReceiver(j);
    if (!old) throw new Error('No receiver attached.');
    if (resetSequence && [...this.openTransactions()].some((tx) => tx.cycles.has(j))) throw cpf('CPF70D9');
    const receiver =
      next ??
      this.createReceiver(
        job?.profile.name ?? QSECOFR.name,
        old.library,
        this.freeName(old.library, generatedName(old.name)),
        old.text,
      );
    this.deposit(job, j, { code: 'J', type: 'NR', object: receiver.name, library: receiver.library }, 0);
    old.detached = this.timestamp();
    receiver.journal = j;
    receiver.attached = this.timestamp();
    j.receivers.push(receiver);
    if (resetSequence) j.nextSeq = 1;
    this.deposit(job, j, { code: 'J', type: 'PR', object: old.name, library: old.library }, 0);
    if (j.deleteReceivers) this.deleteReceiver(old);
    return receiver;
  }

  private freeName(library: string, name: string): string {
    let n = name;
    while (this.objectExists(library, n)) n = generatedName(n);
    return n;
  }

  deleteReceiver(r: Receiver): void {
    const j = r.journal;
    if (j && attachedReceiver(j) === r) throw cpf('CPF7040', r.name, r.library);
    if (j) j.receivers = j.receivers.filter((x) => x !== r);
    this.receivers.delete(key(r.library, r.name));
  }

  startJournaling(job: Job, file: PhysicalFile, j: Journal, images: '*AFTER' | '*BOTH'): void {
    if (file.journal) throw cpf('CPF7030', file.name, file.library);
    file.journal = { library: j.library, name: j.name, images, since: this.timestamp() };
    for (const m of file.members) this.journalFileEntry(job, file, m, 'F', 'JM');
  }

  endJournaling(job: Job, file: PhysicalFile): void {
    if (!file.journal) throw cpf('CPF7032', file.name, file.library, 'FILE');
    for (const m of file.members) this.journalFileEntry(job, file, m, 'F', 'EJ');
    file.journal = null;
  }

  private readonly sessions = new Set<Job>();
  register(job: Job): void {
    this.sessions.add(job);
  }
  /** Jobs started so far: one per sign-on. */
  get signOns(): number {
    return this.jobs - FIRST_JOB_NUMBER;
  }
  /** Jobs running now: one per open connection. */
  get activeJobs(): number {
    return this.sessions.size;
  }

  private down = false;
  /** The host servers are down (a restart under way): sign-ons are refused. */
  get isDown(): boolean {
    return this.down;
  }
  /** A restart begins: every job ends, its uncommitted work rolled back; sign-ons refused until up(). */
  endAllJobs(): void {
    this.down = true;
    for (const job of this.sessions) {
      this.rollback(job);
      job.ended = true;
    }
    this.sessions.clear();
  }
  up(): void {
    this.down = false;
  }
  unregister(job: Job): void {
    this.sessions.delete(job);
  }
  private *openTransactions(): Iterable<Transaction> {
    for (const j of this.sessions) if (j.transaction && j.transaction.undo.length > 0) yield j.transaction;
  }
}

/** The image up to its last byte that differs from the before image; null when that saves nothing. */
function changedPrefix(after: Uint8Array, before: Uint8Array): Uint8Array | null {
  let last = after.length - 1;
  while (last >= 0 && after[last] === before[last]) last--;
  return last + 1 < after.length ? after.slice(0, last + 1) : null;
}
