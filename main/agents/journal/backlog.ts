// The backlog as source-agents.md defines it ("Monitoring the journal backlog") and decisions.md fixes
// it: ROWS_TO_READ is the highest LAST_SEQUENCE_NUMBER of the journal's receivers minus the sequence
// number in the checkpoint table; MIN_LEFT is ROWS_TO_READ / 10000 * 5 / 60 in decimal arithmetic.
// A DBA can run the same statement (BACKLOG_SQL, with the sync library and table filled in).
// The running agent counts from the receiver chains instead (journalBacklog), with its reading rate.
import type { IbmiConnection } from '../../../lib/ibmi/connection';
import { tableKey, type Checkpoint, type TableRef } from '../source';
import type { BacklogFigure } from '../spi';
import { parsePosition, type JournalPosition } from './position';
import { chainIndex, journalKey, type JournalName, type ReceiverInfo } from './reader';
import type { SyncLibrary } from './syncLibrary';

/** MIN_LEFT of a ROWS_TO_READ: / 10000 * 5 / 60. */
export const minutesLeft = (rowsToRead: number): number => ((rowsToRead / 10000) * 5) / 60;

export const backlogSql = (checkpointTable: string): string =>
  'SELECT C.TABLEKEY, C.JRNLIB, C.JRN, ' +
  '(SELECT MAX(R.LAST_SEQUENCE_NUMBER) FROM QSYS2.JOURNAL_RECEIVER_INFO R ' +
  'WHERE R.JOURNAL_LIBRARY = C.JRNLIB AND R.JOURNAL_NAME = C.JRN) - C.SEQNBR AS ROWS_TO_READ, ' +
  '((SELECT MAX(R.LAST_SEQUENCE_NUMBER) FROM QSYS2.JOURNAL_RECEIVER_INFO R ' +
  'WHERE R.JOURNAL_LIBRARY = C.JRNLIB AND R.JOURNAL_NAME = C.JRN) - C.SEQNBR) / 10000.0 * 5 / 60 AS MIN_LEFT ' +
  `FROM ${checkpointTable} C WHERE C.AGENT = ?`;

export async function backlogQuery(c: IbmiConnection, sync: SyncLibrary): Promise<BacklogFigure> {
  const rows = await c.query(backlogSql(sync.qualified), [sync.agent]);
  // Tables of one journal wait on the same entries: a journal counts once, by its furthest-behind table.
  const journals = new Map<string, { rows: number; minutes: number }>();
  const perTable = rows.map((r) => {
    const rowsToRead = Math.max(0, Number(r.ROWS_TO_READ ?? 0));
    const k = `${String(r.JRNLIB).trim()}/${String(r.JRN).trim()}`;
    const seen = journals.get(k);
    if (!seen || seen.rows < rowsToRead)
      journals.set(k, { rows: rowsToRead, minutes: Math.max(0, Number(r.MIN_LEFT ?? 0)) });
    return { table: String(r.TABLEKEY), rowsToRead };
  });
  const all = [...journals.values()];
  return {
    rowsToRead: all.reduce((n, j) => n + j.rows, 0),
    minutesLeft: all.reduce((n, j) => n + j.minutes, 0),
    versionsBehind: null,
    perTable,
  };
}

/** Entries after a position, across receivers (sequence resets included); null when its receiver is gone. */
export function entriesAfter(chain: readonly ReceiverInfo[], p: JournalPosition): number | null {
  const at = chainIndex(chain, p);
  if (at < 0) return null;
  let n = Math.max(0, (chain[at]?.lastSequence ?? 0) - p.sequence);
  for (const r of chain.slice(at + 1)) n += r.lastSequence > 0 ? r.lastSequence - r.firstSequence + 1 : 0;
  return n;
}

type Chains = ReadonlyMap<string, readonly ReceiverInfo[]>;

/**
 * The running agent's backlog from the receiver chains: per table, the entries after its checkpoint;
 * in all, each journal once, by its furthest-behind table (tables of one journal wait on the same
 * entries). Null in all when a table has no position yet or its receiver is gone.
 */
export function journalBacklog(
  tables: readonly TableRef[],
  checkpoint: Checkpoint,
  journals: readonly JournalName[],
  chains: Chains,
): { rowsToRead: number | null; perTable: { table: string; rowsToRead: number | null }[] } {
  const perTable = tables.map((t, i) => {
    const saved = checkpoint[tableKey(t)];
    const chain = chains.get(journalKey(journals[i] as JournalName)) ?? [];
    return {
      table: tableKey(t),
      rowsToRead: saved ? entriesAfter(chain, parsePosition(saved).restart) : null,
    };
  });
  const byJournal = new Map<string, number>();
  perTable.forEach((p, i) => {
    const k = journalKey(journals[i] as JournalName);
    if (p.rowsToRead !== null) byJournal.set(k, Math.max(byJournal.get(k) ?? 0, p.rowsToRead));
  });
  const known = perTable.every((p) => p.rowsToRead !== null);
  return { rowsToRead: known ? [...byJournal.values()].reduce((a, b) => a + b, 0) : null, perTable };
}

/** Per table read, the receiver its position needs and the entries not read yet (for the loss warnings). */
export function receiversNeeded(
  tables: readonly TableRef[],
  checkpoint: Checkpoint,
  journals: readonly JournalName[],
  chains: Chains,
) {
  return tables.flatMap((t, i) => {
    const saved = checkpoint[tableKey(t)];
    const journal = journals[i];
    if (!saved || !journal) return [];
    const { restart } = parsePosition(saved);
    const chain = chains.get(journalKey(journal)) ?? [];
    const receiver = { library: restart.library, name: restart.receiver };
    return [{ table: tableKey(t), journal, receiver, unread: entriesAfter(chain, restart) }];
  });
}

/** The rate the agent consumed entries at between two backlog readings: minutes left at that rate. */
export class ReadingRate {
  /** Entries consumed since the source opened. */
  consumed = 0;
  private last: { at: number; consumed: number } | null = null;

  /** Minutes to read `rows` entries at the rate entries were consumed since the previous call. */
  minutesFor(rows: number | null): number | null {
    const now = performance.now();
    const last = this.last;
    this.last = { at: now, consumed: this.consumed };
    if (!last || rows === null || now - last.at < 1) return null;
    const perMinute = ((this.consumed - last.consumed) / (now - last.at)) * 60_000;
    if (rows === 0) return 0;
    return perMinute > 0 ? rows / perMinute : null;
  }
}
