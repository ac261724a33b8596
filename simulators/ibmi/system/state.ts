// The simulated IBM i's state and what its parts ask of each other: the objects (objects.ts), the
// journals (journaling.ts), record changes under commitment control (records.ts) and authority
// (access.ts) each take the system as this interface, which SimulatedIbmi (the façade) implements.
import type Database from 'better-sqlite3';
import type { ObjectAuthority, Right } from './authority';
import type { ColumnSpec, Member, PhysicalFile, Row } from './files';
import type { Journal, Receiver } from './journals';
import type { UserProfile } from './users';

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

/** The system as its parts see it: its objects, its clock, its jobs, and the façade's operations. */
export interface SystemState {
  readonly db: Database.Database;
  readonly users: Map<string, UserProfile>;
  readonly libraries: Map<string, Library>;
  readonly files: Map<string, PhysicalFile>;
  readonly aliases: Map<string, Alias>;
  readonly journals: Map<string, Journal>;
  readonly receivers: Map<string, Receiver>;
  /** Private authorities to CL commands (public *USE otherwise), as GRTOBJAUT on QSYS/cmd sets them. */
  readonly commands: Map<string, ObjectAuthority>;
  /** The jobs signed on now. */
  readonly sessions: Set<Job>;
  /** Local time as Db2 for i shows a TIMESTAMP; never the same value twice. */
  timestamp(): string;
  can(job: Job, auth: ObjectAuthority, needed: readonly Right[]): boolean;
  useLibrary(job: Job, name: string, needed?: readonly Right[]): Library;
  command(job: Job, name: string): void;
  createLibrary(job: Job, name: string, text: string, schema: boolean): Library;
  file(library: string, name: string): PhysicalFile | undefined;
  objectExists(library: string, name: string): boolean;
  addFile(
    job: Job,
    file: Omit<PhysicalFile, 'members' | 'authority' | 'created' | 'journal'>,
    member: string | null,
  ): PhysicalFile;
  addMember(file: PhysicalFile, member: string): Member;
  deleteFile(file: PhysicalFile): void;
  relocateFile(job: Job, file: PhysicalFile, to: { library: string; name: string }): void;
  removeMember(job: Job, file: PhysicalFile, member: Member): void;
  countRecords(member: Member): number;
  member(file: PhysicalFile, name: string | null): Member;
  journalFileEntry(job: Job | null, file: PhysicalFile, member: Member, code: string, type: string): void;
  alterFile(job: Job, file: PhysicalFile, columns: ColumnSpec[]): void;
  journalFileOperation(job: Job | null, file: PhysicalFile, type: string): void;
  insertRecord(job: Job, file: PhysicalFile, member: Member, row: Row): number;
  updateRecord(job: Job, file: PhysicalFile, member: Member, rrn: number, row: Row): void;
  deleteRecord(job: Job, file: PhysicalFile, member: Member, rrn: number): void;
  commit(job: Job): void;
  rollback(job: Job): void;
  receiver(library: string, name: string): Receiver;
  journal(library: string, name: string): Journal;
  createReceiver(owner: string, library: string, name: string, text: string): Receiver;
  createJournal(
    job: Job,
    library: string,
    name: string,
    receiver: Receiver,
    manage: '*SYSTEM' | '*USER',
    deleteReceivers: boolean,
  ): Journal;
  changeReceiver(job: Job | null, j: Journal, next: Receiver | null, resetSequence: boolean): Receiver;
  deleteReceiver(r: Receiver): void;
  startJournaling(job: Job, file: PhysicalFile, j: Journal, images: '*AFTER' | '*BOTH'): void;
  endJournaling(job: Job, file: PhysicalFile): void;
}

/** The key of an object in its library, as the maps hold it. */
export const objectKey = (library: string, name: string) => `${library}/${name}`;
