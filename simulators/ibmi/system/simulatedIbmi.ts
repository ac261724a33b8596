// The simulated IBM i: libraries, physical files, journals and receivers, user profiles, and the
// record-level changes every job makes, journaled as IBM documents them. This façade holds the
// system's state and sends each operation to the part that does it (objects.ts, journaling.ts,
// records.ts, access.ts); connections (session.ts) reach it through the IbmiConnection interface the
// ODBC code implements.
import { singleByteUnits } from '../../../lib/ibmi/ccsid';
import { registerLength } from './length';
import { registerBitData } from './bitData';
import Database from 'better-sqlite3';
import { newAuthority, type ObjectAuthority, type Right } from './authority';
import { type ColumnSpec, type Member, type PhysicalFile, type Row } from './files';
import { type Journal, type Receiver } from './journals';
import { QPGMR, QSECOFR, type UserProfile } from './users';

import { FaultQueue, type FaultKind } from '../../faults';
import * as access from './access';
import * as journaling from './journaling';
import * as objects from './objects';
import * as records from './records';
import { US_JOB_DATES, type JobDateSettings } from './jobDates';
import type { Alias, Job, Library, SystemState, Transaction } from './state';

export type { Alias, Job, Library, Transaction };

/** Job numbers count up from here; the simulated system's first job is one more. */
const FIRST_JOB_NUMBER = 100_000;

export interface SimulatedIbmiOptions {
  users?: UserProfile[];
  systemName?: string;
  /** Seam: the system clock. */
  now?: () => Date;
  /** The system's UTC offset in minutes (QUTCOFFSET); timestamps are local time. */
  utcOffsetMinutes?: number;
  /** QDATFMT, QDATSEP and QTIMSEP, which every job takes: how CL date and time values are read. */
  jobDates?: JobDateSettings;
  /**
   * QCCSID, the CCSID every job runs in: which characters stand for $, # and @ in the names the
   * catalog shows and the commands take (an EBCDIC single-byte CCSID; 37 unless given).
   */
  ccsid?: number;
}

const two = (n: number) => String(n).padStart(2, '0');

export class SimulatedIbmi implements SystemState {
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
  readonly jobDates: JobDateSettings;
  readonly ccsid: number;
  /** $, # and @ (X'5B', X'7B', X'7C') as this system's CCSID shows them: £, # and @ under 285. */
  readonly nameCharacters: string;
  private readonly nameRule: RegExp;
  private readonly now: () => Date;
  private jobs = FIRST_JOB_NUMBER;
  private lastStamp = '';
  private sameStamp = 0;

  constructor(options: SimulatedIbmiOptions = {}) {
    this.systemName = options.systemName ?? 'SANDBOX';
    this.now = options.now ?? (() => new Date());
    this.utcOffsetMinutes = options.utcOffsetMinutes ?? 0;
    this.jobDates = options.jobDates ?? US_JOB_DATES;
    this.ccsid = options.ccsid ?? 37;
    const units = singleByteUnits(this.ccsid);
    this.nameCharacters = String.fromCharCode(...[0x5b, 0x7b, 0x7c].map((b) => units[b] ?? 0));
    this.nameRule = new RegExp(`^[A-Z${this.nameCharacters}][A-Z0-9_${this.nameCharacters}.]{0,9}$`, 'u');
    registerLength(this.db);
    registerBitData(this.db);
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

  /** A system name: 1–10 characters, A–Z or $ # @ (as nameCharacters) first; `.` only where CL takes it. */
  isSystemName(name: string, withDot = false): boolean {
    return this.nameRule.test(name) && (withDot || !name.includes('.'));
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
   * ('fail-mid-result'), or the host server ending the job ('drop-mid-result'); 'governor' refuses a
   * statement before it runs, as the query governor does (CHGQRYA QRYTIMLMT: SQL0666). With `matching`, only
   * statements or commands whose text matches are struck.
   */
  injectFaults(kind: FaultKind, times: number, ms = 0, matching?: RegExp): void {
    this.faults.inject(kind, times, ms, matching);
  }

  /** Faults armed that have not struck yet. */
  pendingFaults(): number {
    return this.faults.pending;
  }

  // ---- the link (tests and benches set it) --------------------------------------------------

  /**
   * How late every statement and command answers, standing (not one-shot like a stall): a round
   * trip to an IBM i `ms` away. 0, the default, answers on the next turn.
   */
  linkDelayMs = 0;

  /** Statements and commands answered or refused since the system started: its round trips. */
  requests = 0;

  // ---- authority ----------------------------------------------------------------------------

  can(job: Job, auth: ObjectAuthority, needed: readonly Right[]): boolean {
    return access.can(this, job, auth, needed);
  }

  /** The library, which the job may use (*EXECUTE), or CPF9810 / CPF9820. */
  useLibrary(job: Job, name: string, needed: readonly Right[] = ['*EXECUTE']): Library {
    return access.useLibrary(this, job, name, needed);
  }

  command(job: Job, name: string): void {
    access.command(this, job, name);
  }

  // ---- libraries ----------------------------------------------------------------------------

  createLibrary(job: Job, name: string, text: string, schema: boolean): Library {
    return objects.createLibrary(this, job, name, text, schema);
  }

  // ---- files ----------------------------------------------------------------------------------

  file(library: string, name: string): PhysicalFile | undefined {
    return objects.file(this, library, name);
  }

  objectExists(library: string, name: string): boolean {
    return objects.objectExists(this, library, name);
  }

  addFile(
    job: Job,
    file: Omit<PhysicalFile, 'members' | 'authority' | 'created' | 'journal'>,
    member: string | null,
  ): PhysicalFile {
    return objects.addFile(this, job, file, member);
  }

  addMember(file: PhysicalFile, member: string): Member {
    return objects.addMember(this, file, member);
  }

  deleteFile(file: PhysicalFile): void {
    objects.deleteFile(this, file);
  }

  /**
   * RNMOBJ or MOVOBJ of a file: journaled first (D FN "Rename file", D FM "Move file") under the name
   * the entries so far carry; the file's members and journaling go with it.
   */
  relocateFile(job: Job, file: PhysicalFile, to: { library: string; name: string }): void {
    objects.relocateFile(this, job, file, to);
  }

  /** RMVM: the member's records go with it, journaled as F DM ("Remove member"). */
  removeMember(job: Job, file: PhysicalFile, member: Member): void {
    objects.removeMember(this, job, file, member);
  }

  /** The records a member holds (deleted slots not counted). */
  countRecords(member: Member): number {
    return objects.countRecords(this, member);
  }

  member(file: PhysicalFile, name: string | null): Member {
    return objects.member(this, file, name);
  }

  // ---- record-level changes, journaled ----------------------------------------------------------

  /** An entry about a file member (F JM, F RG, F CR …), outside any commit cycle. */
  journalFileEntry(job: Job | null, file: PhysicalFile, member: Member, code: string, type: string): void {
    journaling.journalFileEntry(this, job, file, member, code, type);
  }

  /**
   * ALTER TABLE: the file's columns become `columns` (each member's rows kept, a new column holding its
   * default), journaled as a D CG entry ("Change file") for the file, not a member.
   */
  alterFile(job: Job, file: PhysicalFile, columns: ColumnSpec[]): void {
    objects.alterFile(this, job, file, columns);
  }

  /** A D entry ("Database file operation"): about the file, not a member, outside any commit cycle. */
  journalFileOperation(job: Job | null, file: PhysicalFile, type: string): void {
    journaling.journalFileOperation(this, job, file, type);
  }

  insertRecord(job: Job, file: PhysicalFile, member: Member, row: Row): number {
    return records.insertRecord(this, job, file, member, row);
  }

  /**
   * A program's write (RPG, COBOL, CPYF FMTOPT(*NOCHK)): where a decimal, date or single-byte
   * character field is given bytes, they are written as they are, unchecked, as a native write does;
   * SQL then refuses to read the decimal or date (SQL0802, SQL0181) and reads the character field
   * with substitution characters, while the journal's record images carry the bytes. Adds a record, or replaces the
   * one at `rrn`; journaled as any change.
   */
  writeFromProgram(file: PhysicalFile, row: Row, rrn?: number): number {
    const job = this.newJob(QPGMR);
    const member = this.member(file, null);
    if (rrn === undefined) return records.insertRecord(this, job, file, member, row);
    records.updateRecord(this, job, file, member, rrn, row);
    return rrn;
  }

  updateRecord(job: Job, file: PhysicalFile, member: Member, rrn: number, row: Row): void {
    records.updateRecord(this, job, file, member, rrn, row);
  }

  deleteRecord(job: Job, file: PhysicalFile, member: Member, rrn: number): void {
    records.deleteRecord(this, job, file, member, rrn);
  }

  commit(job: Job): void {
    records.commit(this, job);
  }

  /** Rollback undoes each change, newest first, journaling DR, BR and UR as the system does, then C RB. */
  rollback(job: Job): void {
    records.rollback(this, job);
  }

  // ---- journals and receivers ------------------------------------------------------------------

  receiver(library: string, name: string): Receiver {
    return journaling.receiver(this, library, name);
  }

  journal(library: string, name: string): Journal {
    return journaling.journal(this, library, name);
  }

  createReceiver(owner: string, library: string, name: string, text: string): Receiver {
    return journaling.createReceiver(this, owner, library, name, text);
  }

  createJournal(
    job: Job,
    library: string,
    name: string,
    receiver: Receiver,
    manage: '*SYSTEM' | '*USER',
    deleteReceivers: boolean,
  ): Journal {
    return journaling.createJournal(this, job, library, name, receiver, manage, deleteReceivers);
  }

  /** CHGJRN: attaches `next` (or a generated receiver), journals J NR and J PR, and can reset the sequence. */
  changeReceiver(job: Job | null, j: Journal, next: Receiver | null, resetSequence: boolean): Receiver {
    return journaling.changeReceiver(this, job, j, next, resetSequence);
  }

  /** SNDJRNE: a user entry (journal code U) with no object, outside any commit cycle. */
  userEntry(job: Job, j: Journal, type: string, data: Uint8Array): void {
    journaling.depositEntry(this, job, j, { code: 'U', type, data }, 0);
  }

  deleteReceiver(r: Receiver): void {
    journaling.deleteReceiver(this, r);
  }

  startJournaling(job: Job, file: PhysicalFile, j: Journal, images: '*AFTER' | '*BOTH'): void {
    journaling.startJournaling(this, job, file, j, images);
  }

  endJournaling(job: Job, file: PhysicalFile): void {
    journaling.endJournaling(this, job, file);
  }

  readonly sessions = new Set<Job>();
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
}
