// Libraries, physical files and their members: made, found, moved and removed, each operation
// journaled where the file is.
import { newAuthority } from './authority';
import {
  discardingPending,
  alterMemberTable,
  createMemberTable,
  q,
  type ColumnSpec,
  type Member,
  type PhysicalFile,
} from './files';
import { cpf, sqlError } from './messages';

import { objectKey as key, type Library, type Job, type SystemState } from './state';

export function createLibrary(
  s: SystemState,
  job: Job,
  name: string,
  text: string,
  schema: boolean,
): Library {
  if (s.libraries.has(name)) throw schema ? sqlError(-601, name, 'QSYS', 'LIB') : cpf('CPF2111', name);
  const lib: Library = {
    name,
    authority: newAuthority(job.profile.name),
    created: s.timestamp(),
    text,
    schema,
  };
  lib.authority.public = new Set(['*OBJOPR', '*READ', '*ADD', '*UPD', '*DLT', '*EXECUTE']);
  s.libraries.set(name, lib);
  if (schema) {
    // CREATE SCHEMA makes the journal QSQJRN with receiver QSQJRN0001; tables created in the schema are journaled to it.
    s.createReceiver(job.profile.name, name, 'QSQJRN0001', '');
    s.createJournal(job, name, 'QSQJRN', s.receiver(name, 'QSQJRN0001'), '*SYSTEM', false);
  }
  return lib;
}

export function file(s: SystemState, library: string, name: string): PhysicalFile | undefined {
  return s.files.get(key(library, name));
}

export function objectExists(s: SystemState, library: string, name: string): boolean {
  const k = key(library, name);
  return s.files.has(k) || s.aliases.has(k) || s.journals.has(k) || s.receivers.has(k);
}

export function addFile(
  s: SystemState,
  job: Job,
  file: Omit<PhysicalFile, 'members' | 'authority' | 'created' | 'journal'>,
  member: string | null,
): PhysicalFile {
  if (s.objectExists(file.library, file.name)) throw cpf('CPF5813', file.name, file.library);
  const full: PhysicalFile = {
    ...file,
    members: [],
    journal: null,
    authority: newAuthority(job.profile.name),
    created: s.timestamp(),
  };
  s.files.set(key(file.library, file.name), full);
  if (member) full.members.push(createMemberTable(s.db, full, member));
  return full;
}

export function addMember(s: SystemState, file: PhysicalFile, member: string): Member {
  if (file.members.some((m) => m.name === member)) throw cpf('CPF3223', file.name, file.library, member);
  if (file.maxMembers !== null && file.members.length >= file.maxMembers) throw cpf('CPF3213', file.name);
  const m = createMemberTable(s.db, file, member);
  file.members.push(m);
  if (file.journal) s.journalFileEntry(null, file, m, 'F', 'JM');
  return m;
}

export function deleteFile(s: SystemState, file: PhysicalFile): void {
  // A journaled file's deletion is its last entry: D DT ("Delete file").
  s.journalFileOperation(null, file, 'DT');
  for (const m of file.members) s.db.exec(`DROP TABLE ${q(discardingPending(m))}`);
  s.files.delete(key(file.library, file.name));
}

/**
 * RNMOBJ or MOVOBJ of a file: journaled first (D FN "Rename file", D FM "Move file") under the name
 * the entries so far carry; the file's members and journaling go with it.
 */
export function relocateFile(
  s: SystemState,
  job: Job,
  file: PhysicalFile,
  to: { library: string; name: string },
): void {
  if (s.objectExists(to.library, to.name)) throw cpf('CPF2112', to.name, to.library, 'FILE');
  s.journalFileOperation(job, file, to.library === file.library ? 'FN' : 'FM');
  s.files.delete(key(file.library, file.name));
  file.library = to.library;
  file.name = to.name;
  s.files.set(key(file.library, file.name), file);
}

/** RMVM: the member's records go with it, journaled as F DM ("Remove member"). */
export function removeMember(s: SystemState, job: Job, file: PhysicalFile, member: Member): void {
  s.journalFileEntry(job, file, member, 'F', 'DM');
  s.db.exec(`DROP TABLE ${q(discardingPending(member))}`);
  file.members = file.members.filter((m) => m !== member);
}

/** The records a member holds (deleted slots not counted). */
export function countRecords(s: SystemState, member: Member): number {
  // Pending records are the member's only ones (its table was emptied when they were made).
  if (member.pending) return member.pending.count;
  return (s.db.prepare(`SELECT COUNT(*) AS n FROM ${q(member.table)}`).get() as { n: number }).n;
}

export function member(s: SystemState, file: PhysicalFile, name: string | null): Member {
  const m = name === null || name === '*FIRST' ? file.members[0] : file.members.find((x) => x.name === name);
  if (!m) throw cpf('CPF9815', '', file.name, file.library, '', name ?? '*FIRST');
  return m;
}

/**
 * ALTER TABLE: the file's columns become `columns` (each member's rows kept, a new column holding its
 * default), journaled as a D CG entry ("Change file") for the file, not a member.
 */
export function alterFile(s: SystemState, job: Job, file: PhysicalFile, columns: ColumnSpec[]): void {
  for (const m of file.members) alterMemberTable(s.db, file, m, columns);
  file.columns = columns;
  s.journalFileOperation(job, file, 'CG');
}
