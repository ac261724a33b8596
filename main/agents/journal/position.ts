// Where a table's changes resume in a journal. A sequence number alone is not enough (CHGJRN
// SEQOPT(*RESET) starts again at 1), so a position names its receiver. A table's checkpoint holds two:
// `restart`, the entry reading starts from (inclusive) — the start of the oldest commit cycle still
// open when the batch ended — and `applied`, the last entry whose effect the target holds. Entries
// released at or before `applied` are skipped on the way, so nothing is applied twice.
import { JOURNAL_POSITION } from '../../../shared/agents/journal';

export interface JournalPosition {
  library: string;
  receiver: string;
  sequence: number;
}

export interface TablePosition {
  restart: JournalPosition;
  applied: JournalPosition;
}

/** `LIBRARY/RECEIVER/SEQUENCE`. */
export const formatJournalPosition = (p: JournalPosition) => `${p.library}/${p.receiver}/${p.sequence}`;

export const samePosition = (a: JournalPosition, b: JournalPosition) =>
  a.sequence === b.sequence && a.receiver === b.receiver && a.library === b.library;

/** `LIB/RCV/SEQ`, or `LIB/RCV/SEQ>LIB/RCV/SEQ` (restart, then applied) when they differ. */
export function formatPosition(p: TablePosition): string {
  return samePosition(p.restart, p.applied)
    ? formatJournalPosition(p.restart)
    : `${formatJournalPosition(p.restart)}>${formatJournalPosition(p.applied)}`;
}

/** `LIBRARY/RECEIVER/SEQUENCE`, or a RangeError. */
export function parseJournalPosition(text: string): JournalPosition {
  const m = JOURNAL_POSITION.exec(text);
  if (!m) throw new RangeError(`"${text}" is not a journal position (LIBRARY/RECEIVER/SEQUENCE).`);
  return { library: m[1] ?? '', receiver: m[2] ?? '', sequence: Number(m[3]) };
}

export function parsePosition(text: string): TablePosition {
  const [restart = '', applied] = text.split('>');
  const r = parseJournalPosition(restart);
  return { restart: r, applied: applied === undefined ? r : parseJournalPosition(applied) };
}
