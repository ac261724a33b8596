// Where tables without a position start when the configuration names a point (`startAt`): a journal
// position, the entry itself included, or the first entry at or after a time, found through
// QSYS2.DISPLAY_JOURNAL (a TIMESTAMP argument: no job date format to guess, unlike DSPJRN FROMTIME).
// A point the journal no longer holds is refused with the earliest one it does, never moved.
import { JOURNAL_POSITION, type JournalConfiguration } from '../../../shared/agents/journal';
import { isStartTime, localTimeOf, refuseForward, StartUnavailable, startAtWithoutCopy } from '../startPoint';
import { cellText, type IbmiConnection } from '../../../lib/ibmi/connection';
import type { Checkpoint } from '../source';
import {
  chainIndex,
  chainOrder,
  journalEnd,
  journalKey,
  receiverChains,
  type JournalName,
  type ReceiverInfo,
} from './reader';
import {
  formatJournalPosition,
  formatPosition,
  parseJournalPosition,
  parsePosition,
  type JournalPosition,
  type TablePosition,
} from './position';

export type StartPoint =
  | { kind: 'position'; position: JournalPosition; said: string }
  /** `local`: the IBM i's local time, "YYYY-MM-DD HH:MM:SS.ffffff", as journal entries carry it. */
  | { kind: 'time'; local: string; said: string };

export { StartUnavailable };

/** The configuration's point, checked at Start: a copy reads the table as it is now, so none with it. */
export function startPointOf(
  configuration: JournalConfiguration,
  utcOffsetMinutes: number,
): StartPoint | undefined {
  const startAt = startAtWithoutCopy(configuration, 'in the journal');
  if (startAt === undefined) return undefined;
  return parseStartAt(startAt, utcOffsetMinutes);
}

const distinctJournals = (journals: readonly JournalName[]) => [
  ...new Map(journals.map((j) => [journalKey(j), j])).values(),
];

/**
 * Where each journal's tables start, by journal: its end, or `point` (two queries a journal). The
 * receiver chains come in one query, unless the caller read them already.
 */
export async function startsIn(
  c: IbmiConnection,
  journals: readonly JournalName[],
  point: StartPoint | undefined,
  read?: Map<string, ReceiverInfo[]>,
): Promise<Map<string, TablePosition>> {
  const distinct = distinctJournals(journals);
  const chains = read ?? (await receiverChains(c, distinct));
  const starts = new Map<string, TablePosition>();
  for (const journal of distinct) {
    const chain = chains.get(journalKey(journal)) ?? [];
    if (point) {
      starts.set(journalKey(journal), await startIn(c, journal, chain, point));
      continue;
    }
    const end = journalEnd(chain);
    if (!end) throw new Error(`Journal ${journalKey(journal)} has no receiver attached.`);
    starts.set(journalKey(journal), { restart: end, applied: end });
  }
  return starts;
}

/** A point as startAt, stopAt and a rewind take one; a time with a zone is moved into the IBM i's local time. */
export function parseStartAt(
  text: string,
  utcOffsetMinutes: number,
  field: 'startAt' | 'stopAt' | 'to' = 'startAt',
): StartPoint {
  if (JOURNAL_POSITION.test(text))
    return { kind: 'position', position: parseJournalPosition(text), said: `journal position ${text}` };
  if (!isStartTime(text))
    throw new StartUnavailable(`${field} "${text}" is neither a journal position nor a time.`);
  return { kind: 'time', ...localTimeOf(text, utcOffsetMinutes, "the IBM i's local time", field) };
}

/** Reading from `restart` inclusive: the entry before it counts as applied. */
const from = (restart: JournalPosition): TablePosition => ({
  restart,
  applied: { ...restart, sequence: restart.sequence - 1 },
});

interface Entry {
  timestamp: string;
  position: JournalPosition;
}

/** The first entry of the journal's chain at or after `local` (or its very first, for null). */
async function firstEntry(
  c: IbmiConnection,
  journal: JournalName,
  local: string | null,
): Promise<Entry | null> {
  const [row] = await c.query(
    'SELECT ENTRY_TIMESTAMP, SEQUENCE_NUMBER, JOURNAL_RECEIVER_LIBRARY, JOURNAL_RECEIVER_NAME ' +
      "FROM TABLE(QSYS2.DISPLAY_JOURNAL(?, ?, '', '*CURCHAIN', ?, NULL, '', '', '', '')) X " +
      'ORDER BY SEQUENCE_NUMBER FETCH FIRST 1 ROW ONLY',
    [journal.library, journal.name, local],
  );
  if (!row) return null;
  return {
    timestamp: cellText(row.ENTRY_TIMESTAMP).trim(),
    position: {
      library: cellText(row.JOURNAL_RECEIVER_LIBRARY).trim(),
      receiver: cellText(row.JOURNAL_RECEIVER_NAME).trim(),
      sequence: Number(row.SEQUENCE_NUMBER),
    },
  };
}

/** Where the journal's tables start for `point`, or StartUnavailable naming what it holds. */
export async function startIn(
  c: IbmiConnection,
  journal: JournalName,
  chain: readonly ReceiverInfo[],
  point: StartPoint,
): Promise<TablePosition> {
  const key = journalKey(journal);
  const oldest = chain[0];
  const earliest = oldest
    ? formatJournalPosition({
        library: oldest.library,
        receiver: oldest.name,
        sequence: oldest.firstSequence,
      })
    : 'none (no receiver attached)';
  if (point.kind === 'position') {
    const at = chainIndex(chain, point.position);
    const receiver = chain[at];
    if (!receiver)
      throw new StartUnavailable(
        `${point.said} is not in the receiver chain of journal ${key} (its receiver was deleted, or belongs to ` +
          `another journal); the earliest entry the journal holds is ${earliest}.`,
      );
    const last = receiver.status === 'ATTACHED' ? receiver.lastSequence + 1 : receiver.lastSequence;
    if (point.position.sequence < receiver.firstSequence || point.position.sequence > last)
      throw new StartUnavailable(
        `${point.said} is outside receiver ${receiver.library}/${receiver.name}, which holds sequences ` +
          `${receiver.firstSequence} to ${receiver.lastSequence} of journal ${key}; the earliest entry the journal holds is ${earliest}.`,
      );
    return from(point.position);
  }
  const first = await firstEntry(c, journal, null);
  // A chain that no longer starts at sequence 1 lost its older receivers: before its first entry
  // there were changes it cannot give. One that does holds everything since the journal began.
  if (first && first.timestamp > point.local && (oldest?.firstSequence ?? 1) > 1)
    throw new StartUnavailable(
      `Journal ${key} holds entries from ${first.timestamp} (${formatJournalPosition(first.position)}) on; the receivers ` +
        `before it were deleted, so changes at ${point.said} cannot be read.`,
    );
  const found = await firstEntry(c, journal, point.local);
  if (found) return from(found.position);
  const end = journalEnd(chain);
  if (!end) throw new StartUnavailable(`Journal ${key} has no receiver attached.`);
  return { restart: end, applied: end };
}

/**
 * A rewind: the tables (by key, each of `journals[i]`) at `point`, never forward past where one has
 * applied (`current`), compared along its journal's receiver chain.
 */
export async function rewoundPositions(
  c: IbmiConnection,
  keys: readonly string[],
  journals: readonly JournalName[],
  point: StartPoint,
  current: Checkpoint,
): Promise<Map<string, string>> {
  // One read of the chains serves both the start and the comparison.
  const chains = await receiverChains(c, distinctJournals(journals));
  const starts = await startsIn(c, journals, point, chains);
  const positions = new Map<string, string>();
  const behind: { table: string; at: string }[] = [];
  keys.forEach((key, i) => {
    const journal = journalKey(journals[i] as JournalName);
    const then = starts.get(journal) as TablePosition;
    positions.set(key, formatPosition(then));
    const now = current[key];
    if (now === undefined) return;
    const applied = parsePosition(now).applied;
    if (chainOrder(chains.get(journal) ?? [])(then.applied, applied) > 0)
      behind.push({ table: key, at: formatJournalPosition(applied) });
  });
  refuseForward(behind, point.said);
  return positions;
}
