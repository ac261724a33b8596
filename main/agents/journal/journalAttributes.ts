// The journal-attributes check: what a journal does to its entries and receivers that can cost the
// agent data. Minimised entry data (MINENTDTA) makes an update's record image partial; system-managed
// receivers deleted by the system (MNGRCV(*SYSTEM) DLTRCV(*YES)) can go before the agent has read
// them; a receiver saved with its storage freed cannot be read until it is restored. One query for the
// journals, one for their receivers.
import type { CheckResult } from '../../../shared/controlApi';
import { type IbmiConnection, type IbmiRow, cellText as text } from '../../../lib/ibmi/connection';
import type { ObjectState } from './journals';
import type { JournalName } from './reader';

const key = (j: JournalName) => `${j.library}/${j.name}`;

/** The journals' rows of a QSYS2 journal view: its WHERE clause and parameters. */
function ofJournals(journals: readonly JournalName[]): { where: string; params: string[] } {
  return {
    where: journals.map(() => '(JOURNAL_LIBRARY = ? AND JOURNAL_NAME = ?)').join(' OR '),
    params: journals.flatMap((j) => [j.library, j.name]),
  };
}

/** A JOURNAL_INFO row's minimised entry data, in words with the CHGJRN that stops it; null when none. */
function minimised(r: IbmiRow): { message: string; fix: string } | null {
  const name = `${text(r.JOURNAL_LIBRARY)}/${text(r.JOURNAL_NAME)}`;
  const value = text(r.MINIMIZE_ESD_FOR_FILES);
  if (!value || value === 'NO') return null;
  return {
    message: `${name} minimises entry data for files (MINENTDTA ${value}): update entries carry part of the record, which the agent cannot apply.`,
    fix: `CHGJRN JRN(${name}) MINENTDTA(*NONE)`,
  };
}

/**
 * Why the agent refuses to read these journals, one line per journal that minimises entry data (with
 * the CHGJRN that stops it); empty when none does. Refused at the start, as the check refuses it, so
 * a copy never runs to fail at the first update.
 */
export async function minimisedJournals(
  c: IbmiConnection,
  journals: readonly JournalName[],
): Promise<string[]> {
  if (journals.length === 0) return [];
  const { where, params } = ofJournals(journals);
  const rows = await c.query(
    `SELECT JOURNAL_LIBRARY, JOURNAL_NAME, MINIMIZE_ESD_FOR_FILES FROM QSYS2.JOURNAL_INFO WHERE ${where}`,
    params,
  );
  return rows.flatMap((r) => {
    const m = minimised(r);
    return m ? [`${m.message} Run ${m.fix} first.`] : [];
  });
}

export async function journalAttributesCheck(
  c: IbmiConnection,
  files: readonly ObjectState[],
): Promise<CheckResult> {
  const journals = [
    ...new Map(files.flatMap((f) => (f.journal ? [[key(f.journal), f.journal] as const] : []))).values(),
  ];
  if (journals.length === 0)
    return {
      id: 'journal-attributes',
      status: 'passed',
      message: 'No journal to look at yet.',
      remedy: null,
    };
  const { where, params } = ofJournals(journals);
  const info = await c.query(
    `SELECT JOURNAL_LIBRARY, JOURNAL_NAME, MANAGE_RECEIVER_OPTION, DELETE_RECEIVER_OPTION, MINIMIZE_ESD_FOR_FILES FROM QSYS2.JOURNAL_INFO WHERE ${where}`,
    params,
  );
  const receivers = await c.query(
    `SELECT JOURNAL_LIBRARY, JOURNAL_NAME, JOURNAL_RECEIVER_LIBRARY, JOURNAL_RECEIVER_NAME, STATUS FROM QSYS2.JOURNAL_RECEIVER_INFO WHERE ${where}`,
    params,
  );
  const failed: string[] = [];
  const warned: string[] = [];
  const fixes: string[] = [];
  for (const r of info) {
    const name = `${text(r.JOURNAL_LIBRARY)}/${text(r.JOURNAL_NAME)}`;
    const m = minimised(r);
    if (m) {
      failed.push(m.message);
      fixes.push(m.fix);
    }
    if (text(r.MANAGE_RECEIVER_OPTION) === '*SYSTEM' && text(r.DELETE_RECEIVER_OPTION) === 'YES')
      warned.push(
        `${name} has system-managed receivers that the system deletes once detached (MNGRCV(*SYSTEM) DLTRCV(*YES)): ` +
          'a receiver can go before the agent has read it, and the files resuming in it are then copied again. ' +
          'IBM documents the choices: DLTRCV(*NO) and delete receivers yourself once every reader is past them, ' +
          'or an exit program on the delete-journal-receiver exit point (QIBM_QJO_DLT_JRNRCV) that keeps a receiver until it is read.',
      );
  }
  for (const r of receivers) {
    const status = text(r.STATUS);
    if (status === 'FREED' || status === 'PARTIAL')
      warned.push(
        `Receiver ${text(r.JOURNAL_RECEIVER_LIBRARY)}/${text(r.JOURNAL_RECEIVER_NAME)} of ${text(r.JOURNAL_LIBRARY)}/${text(r.JOURNAL_NAME)} ` +
          `is ${status}: its entries cannot be read until it is restored (RSTOBJ); a file resuming in it is copied again.`,
      );
  }
  const chain = `${journals.length} journal${journals.length === 1 ? '' : 's'}, ${receivers.length} receiver${receivers.length === 1 ? '' : 's'}`;
  return {
    id: 'journal-attributes',
    status: failed.length ? 'failed' : warned.length ? 'warning' : 'passed',
    message:
      [...failed, ...warned].join('\n') ||
      `Full entry data, receivers kept until deleted by hand (${chain}).`,
    remedy: failed.length
      ? 'Turn minimised entry data off for the journal; the command is below.'
      : warned.length
        ? 'Keep receivers until the agent has read them.'
        : null,
    fix: fixes.length ? fixes.join('\n') : null,
  };
}

/**
 * Warnings before loss, while the pipeline is behind: a journal that manages its receivers and deletes
 * each one it detaches (MNGRCV(*SYSTEM) DLTRCV(*YES)) can delete entries the pipeline has not read yet,
 * at its next receiver change (a size threshold, an IPL). One warning per such journal with unread
 * entries, naming the tables, the receiver they resume in and what to do; empty when none is behind.
 */
export async function receiversAtRisk(
  c: IbmiConnection,
  needs: readonly {
    table: string;
    journal: JournalName;
    receiver: { library: string; name: string };
    /** Entries after the table's position; null when not known. */
    unread: number | null;
  }[],
): Promise<string[]> {
  const behind = needs.filter((n) => (n.unread ?? 0) > 0);
  const journals = [...new Map(behind.map((n) => [key(n.journal), n.journal])).values()];
  if (journals.length === 0) return [];
  const { where, params } = ofJournals(journals);
  const info = await c.query(
    `SELECT JOURNAL_LIBRARY, JOURNAL_NAME, MANAGE_RECEIVER_OPTION, DELETE_RECEIVER_OPTION FROM QSYS2.JOURNAL_INFO WHERE ${where}`,
    params,
  );
  const deleting = new Set(
    info
      .filter((r) => text(r.MANAGE_RECEIVER_OPTION) === '*SYSTEM' && text(r.DELETE_RECEIVER_OPTION) === 'YES')
      .map((r) => `${text(r.JOURNAL_LIBRARY)}/${text(r.JOURNAL_NAME)}`),
  );
  return journals.flatMap((j) => {
    if (!deleting.has(key(j))) return [];
    const mine = behind.filter((n) => key(n.journal) === key(j));
    const furthest = mine.reduce((a, b) => ((b.unread ?? 0) > (a.unread ?? 0) ? b : a));
    const tables = mine.map((n) => n.table);
    const which =
      tables.length === 1
        ? tables[0]
        : `${tables.length} tables (${tables.slice(0, 3).join(', ')}${tables.length > 3 ? '…' : ''})`;
    return [
      `Journal ${key(j)} deletes each receiver it detaches (MNGRCV(*SYSTEM) DLTRCV(*YES)), and ${which} ` +
        `${tables.length === 1 ? 'has' : 'have'} up to ${furthest.unread} entries not read yet, from receiver ` +
        `${furthest.receiver.library}/${furthest.receiver.name} on: a receiver change before the pipeline reads them deletes them, ` +
        `and those tables are copied again. Let the pipeline catch up, or keep receivers meanwhile: CHGJRN JRN(${key(j)}) DLTRCV(*NO).`,
    ];
  });
}

/** Whether any journal on the system manages its receivers and deletes each one it detaches. */
export async function anyJournalDeletesReceivers(c: IbmiConnection): Promise<boolean> {
  const rows = await c.query(
    "SELECT JOURNAL_NAME FROM QSYS2.JOURNAL_INFO WHERE MANAGE_RECEIVER_OPTION = '*SYSTEM' AND DELETE_RECEIVER_OPTION = 'YES' FETCH FIRST 1 ROWS ONLY",
  );
  return rows.length > 0;
}
