// Record-level changes and commitment control: each insert, update and delete journaled in its
// commit cycle, a commit's C CM, and a rollback undoing each change with DR, BR and UR entries.
import {
  freeSlot,
  nextSlot,
  readRecord,
  removeRecord,
  takeSlot,
  writeRecord,
  type Member,
  type PhysicalFile,
  type Row,
} from './files';

import type { Job, SystemState } from './state';
import { cycleFor, depositEntry, journalOf, journalRecord } from './journaling';

export function insertRecord(s: SystemState, job: Job, file: PhysicalFile, member: Member, row: Row): number {
  const journal = journalOf(s, file);
  const cycle = cycleFor(s, job, file, journal);
  const { rrn, reused } = nextSlot(file, member);
  writeRecord(s.db, file, member, rrn, row, true);
  takeSlot(member, rrn);
  // A record added into a deleted record's slot is added "directly by RRN" (PX).
  journalRecord(s, job, file, member, reused ? 'PX' : 'PT', rrn, row, cycle);
  job.transaction?.undo.push({ kind: 'insert', file, member, rrn });
  return rrn;
}

export function updateRecord(
  s: SystemState,
  job: Job,
  file: PhysicalFile,
  member: Member,
  rrn: number,
  row: Row,
): void {
  const before = readRecord(s.db, member, rrn);
  if (!before) throw new Error(`No record at RRN ${rrn}.`);
  const journal = journalOf(s, file);
  const cycle = cycleFor(s, job, file, journal);
  writeRecord(s.db, file, member, rrn, row, false);
  // *AFTER journaling writes no before-image (UB).
  if (file.journal?.images === '*BOTH') journalRecord(s, job, file, member, 'UB', rrn, before, cycle);
  journalRecord(s, job, file, member, 'UP', rrn, row, cycle, before);
  job.transaction?.undo.push({ kind: 'update', file, member, rrn, before });
}

export function deleteRecord(
  s: SystemState,
  job: Job,
  file: PhysicalFile,
  member: Member,
  rrn: number,
): void {
  const before = readRecord(s.db, member, rrn);
  if (!before) throw new Error(`No record at RRN ${rrn}.`);
  const journal = journalOf(s, file);
  const cycle = cycleFor(s, job, file, journal);
  removeRecord(s.db, member, rrn);
  freeSlot(member, rrn);
  journalRecord(s, job, file, member, 'DL', rrn, before, cycle);
  job.transaction?.undo.push({ kind: 'delete', file, member, rrn, before });
}

export function commit(s: SystemState, job: Job): void {
  const tx = job.transaction;
  if (!tx) return;
  for (const [journal, cycle] of tx.cycles) depositEntry(s, job, journal, { code: 'C', type: 'CM' }, cycle);
  job.transaction = { cycles: new Map(), undo: [] };
}

/** Rollback undoes each change, newest first, journaling DR, BR and UR as the system does, then C RB. */
export function rollback(s: SystemState, job: Job): void {
  const tx = job.transaction;
  if (!tx) return;
  for (const step of tx.undo.reverse()) {
    const { file, member, rrn } = step;
    const journal = journalOf(s, file);
    const cycle = journal ? (tx.cycles.get(journal) ?? 0) : 0;
    if (step.kind === 'insert') {
      const current = readRecord(s.db, member, rrn) ?? {};
      removeRecord(s.db, member, rrn);
      freeSlot(member, rrn);
      journalRecord(s, job, file, member, 'DR', rrn, current, cycle);
    } else {
      const current = readRecord(s.db, member, rrn);
      writeRecord(s.db, file, member, rrn, step.before, step.kind === 'delete');
      if (step.kind === 'delete') takeSlot(member, rrn);
      if (current && file.journal?.images === '*BOTH')
        journalRecord(s, job, file, member, 'BR', rrn, current, cycle);
      journalRecord(s, job, file, member, 'UR', rrn, step.before, cycle);
    }
  }
  for (const [journal, cycle] of tx.cycles) depositEntry(s, job, journal, { code: 'C', type: 'RB' }, cycle);
  job.transaction = { cycles: new Map(), undo: [] };
}
