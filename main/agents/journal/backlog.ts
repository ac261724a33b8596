// The backlog as source-agents.md defines it ("Monitoring the journal backlog") and decisions.md fixes
// it: ROWS_TO_READ is the highest LAST_SEQUENCE_NUMBER of the journal's receivers minus the sequence
// number in the checkpoint table; MIN_LEFT is ROWS_TO_READ / 10000 * 5 / 60 in decimal arithmetic.
// A DBA can run the same statement (BACKLOG_SQL, with the sync library and table filled in).
import type { IbmiConnection } from '../drivers/ibmi/connection';
import type { BacklogFigure } from '../spi';
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
