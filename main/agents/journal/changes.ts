// Reading the journals from a checkpoint: per journal, DSPJRN chunk after chunk, assembled into
// complete commit cycles, each table's position moved on. A file that lost its journal, its receiver
// or the profile's authority leaves the batch alone; the others read on.
import type { Entity } from '../../../shared/controlApi';
import type { IbmiConnection } from '../../../lib/ibmi/connection';
import { recordLength } from '../../../lib/ibmi/recordImage';
import { tableKey, type Change, type ChangeBatch, type Checkpoint, type TableRef } from '../source';
import { assemble, type JournalEntryRow, type TableReading } from './assemble';
import type { ReadingRate } from './backlog';
import type { FileLayout } from './layout';
import { screenFileEntries } from './layoutChanges';
import { withLobs } from './lobValues';
import type { MemberReader } from './memberReader';
import { formatPosition, parsePosition, type JournalPosition, type TablePosition } from './position';
import {
  chainIndex,
  chainOrder,
  earliest,
  entriesPerRead,
  journalEnd,
  journalKey,
  notAuthorizedReason,
  readJournal,
  receiverChains,
  receiverGoneReason,
  refusedFile,
  type JournalName,
  type ReceiverInfo,
} from './reader';
import { isOwnHeartbeat } from './heartbeat';
import { refuseSyncJournal } from './journals';
import type { JournalStop } from './stopAt';
import type { SyncLibrary } from './syncLibrary';
import { localInstant, type ValueForm } from './values';

/** A file with no journal (a plain Error to the runner: no retry heals it). */
export class NotJournaled extends Error {
  constructor(
    message: string,
    readonly table: string,
  ) {
    super(message);
  }
}

/** A commit cycle longer than MAX_ENTRIES is refused rather than held. */
const MAX_ENTRIES = 1_000_000;

/** What reading changes needs of the source: its connection, its files and how it decodes them. */
export interface JournalFiles {
  readonly c: IbmiConnection;
  readonly sync: SyncLibrary;
  readonly members: MemberReader;
  readonly form: ValueForm;
  readonly rate: ReadingRate;
  /** Per table, the journal's end just before its layout was read (JournalSource.layoutSince). */
  readonly layoutSince: ReadonlyMap<string, JournalPosition>;
  /** The system's offset from UTC in minutes, which JOTSTP is local to. */
  readonly utcOffset: number;
  readonly stop: JournalStop | undefined;
  /** The user profile the agent signs on as, as IBM i names it. */
  readonly profile: string;
  /** With the heartbeat on, the data of the agent's own heartbeat entries (heartbeat.ts). */
  readonly heartbeatTag?: string;
  layoutsOf(tables: readonly TableRef[]): Promise<FileLayout[]>;
  /** Each table's journal; NotJournaled for a file without one. */
  journalsOf(tables: readonly TableRef[]): Promise<JournalName[]>;
  /** Forgets a table's layout, read again when the runner describes it anew. */
  forgetLayout(table: string): void;
  membersRead(layout: FileLayout): string[];
  identify(layout: FileLayout): string[] | 'rrn';
  entity(ref: TableRef): Entity | undefined;
}

export async function readJournalChanges(
  files: JournalFiles,
  tables: readonly TableRef[],
  checkpoint: Checkpoint,
  options: { maxRows?: number } = {},
): Promise<ChangeBatch> {
  const maxRows = options.maxRows ?? 10_000;
  const fresh = tables.filter((t) => checkpoint[tableKey(t)] === undefined);
  const batch: ChangeBatch = {
    changes: [],
    checkpoint: {},
    resnapshot: fresh.map((t) => ({ table: tableKey(t), reason: 'first run' })),
    newestCommitTime: null,
  };
  let reading = tables.filter((t) => checkpoint[tableKey(t)] !== undefined);
  // A file no longer journaled (ENDJRNPF while the pipeline was stopped) stops alone: its changes
  // since are in no journal, and the others read on.
  for (;;) {
    if (reading.length === 0) return batch;
    const missing = await files.journalsOf(reading).then(
      () => null,
      (error: unknown) => {
        if (error instanceof NotJournaled) return error;
        throw error;
      },
    );
    if (!missing) break;
    (batch.stopped ??= []).push({
      table: missing.table,
      reason: `${missing.table} is no longer journaled: its changes since are in no journal. Journal it again (STRJRNPF … IMAGES(*BOTH)), then copy it again`,
    });
    reading = reading.filter((t) => tableKey(t) !== missing.table);
  }
  // Cleared by a journal whose read stopped at the batch's limit before the journal's end.
  batch.caughtUp = true;
  const layouts = await files.layoutsOf(reading);
  const journals = await files.journalsOf(reading);
  refuseSyncJournal(files.sync.library, reading, journals);
  const { stop } = files;
  // Cleared by a journal that has not read up to the stop point.
  let atStop = stop !== undefined && reading.length === tables.length;
  await stop?.beforeRead(files.c);
  const chains = await receiverChains(files.c, journals);
  // Per journal read, the newest own heartbeat the batch reads past (null: none).
  const beats: (Date | null)[] = [];
  const groups = new Map<string, number[]>();
  journals.forEach((j, i) => groups.set(journalKey(j), [...(groups.get(journalKey(j)) ?? []), i]));
  for (const [key, members] of groups) {
    const journal = journals[members[0] ?? 0] as JournalName;
    const chain = chains.get(key) ?? [];
    stop?.refuseOutside(
      key,
      chain,
      members.map((i) => tableKey(reading[i] as TableRef)),
    );
    // A table whose receiver is gone has lost its position: the runner copies it again (or stops, as
    // the snapshot mode says); the journal's other tables read on.
    const lost = members.filter((i) => {
      const t = tableKey(reading[i] as TableRef);
      const restart = parsePosition(checkpoint[t] ?? '').restart;
      if (chainIndex(chain, restart) >= 0) return false;
      batch.resnapshot.push({ table: t, reason: receiverGoneReason(restart, t) });
      return true;
    });
    if (lost.length === members.length) continue;
    members.splice(0, members.length, ...members.filter((i) => !lost.includes(i)));
    const positions = members.map((i) => parsePosition(checkpoint[tableKey(reading[i] as TableRef)] ?? ''));
    const start = earliest(
      chain,
      positions.map((p) => p.restart),
    );
    // The journal's end before this read: where a table with nothing pending stands once the read
    // reaches it, so an idle file's position follows the journal and never stays in an old receiver.
    const end = journalEnd(chain);
    const readings: TableReading[] = members.map((i, k) => {
      const l = layouts[i] as FileLayout;
      return {
        key: tableKey(l.ref),
        library: l.library,
        file: l.file,
        members: files.membersRead(l),
        memberKey: l.members.length > 1,
        fields: l.fields,
        identify: files.identify(l),
        appliedThrough: (positions[k] as TablePosition).applied,
        invalidValues: files.entity(l.ref)?.invalidValues,
      };
    });
    const remaining = maxRows - batch.changes.length;
    // A file the profile lost its authority to waits at its position, suspended; the others read on.
    let assembled: Awaited<ReturnType<typeof readAssembled>> | null = null;
    while (readings.length > 0 && !assembled) {
      try {
        assembled = await readAssembled(files, journal, chain, readings, start, Math.max(1, remaining));
      } catch (error) {
        const denied = refusedFile(error, readings);
        if (!denied) throw error;
        (batch.refusedTables ??= []).push({
          table: denied.file.key,
          reason: notAuthorizedReason(denied.file, files.profile, 'DSPJRN', denied.byLibrary),
        });
        const at = readings.indexOf(denied.file);
        readings.splice(at, 1);
        members.splice(at, 1);
        positions.splice(at, 1);
      }
    }
    if (!assembled) continue;
    const order = chainOrder(chain);
    const reached = stop?.reached(assembled.beyond !== undefined, assembled.exhausted, end, order) ?? false;
    if (!reached) atStop = false;
    // At the stop, a table with nothing pending stands at the point, not at the journal's end past it.
    const idleAt = (reached && stop?.cap(assembled.beyond)) || (end && { restart: end, applied: end });
    batch.changes.push(
      ...(await withLobs(
        files.members,
        members.map((i) => layouts[i] as FileLayout),
        (l) => files.identify(l),
        files.form,
        assembled.changes,
      )),
    );
    const settled = assembled.exhausted && assembled.restart === assembled.consumed;
    if (!assembled.exhausted) batch.caughtUp = false;
    const nextRestarts: JournalPosition[] = [];
    members.forEach((i, k) => {
      const t = tableKey(reading[i] as TableRef);
      const old = positions[k] as TablePosition;
      let next: TablePosition =
        assembled.restart && assembled.consumed
          ? {
              restart: assembled.restart,
              applied: assembled.passed.has(t) ? assembled.consumed : old.applied,
            }
          : old;
      // Read to the end with no commit cycle open: nothing of the table lies before the end.
      if (settled && idleAt && order(idleAt.restart, next.restart) > 0) next = idleAt;
      batch.checkpoint[t] = formatPosition(next);
      nextRestarts.push(next.restart);
    });
    if (files.heartbeatTag !== undefined)
      beats.push(
        newestBeat(assembled.heartbeats, start, earliest(chain, nextRestarts), order, files.utcOffset),
      );
    for (const [table, reason] of assembled.stopped) {
      // Gone for good under its name: nothing to copy again, and its layout is forgotten.
      assembled.resnapshot.delete(table);
      files.forgetLayout(table);
      (batch.stopped ??= []).push({ table, reason });
    }
    for (const [table, reason] of assembled.resnapshot) batch.resnapshot.push({ table, reason });
    for (const [table, reason] of assembled.layoutChanged) {
      // Read again (with the journal's end) when the runner describes the table anew.
      files.forgetLayout(table);
      (batch.layoutChanged ??= []).push({ table, reason });
    }
    if (assembled.newestTimestamp)
      batch.newestCommitTime = localInstant(assembled.newestTimestamp, files.utcOffset) ?? new Date();
  }
  // Every table read up to it: none to copy (new, or its receiver gone), refused or described again.
  const everyTable =
    batch.resnapshot.length === 0 &&
    !batch.layoutChanged?.length &&
    !batch.stopped?.length &&
    !batch.refusedTables?.length;
  if (atStop && everyTable && stop) batch.stoppedAt = stop.said;
  // A quiet batch past a heartbeat in every journal it read: the oldest of them is how fresh it is.
  if (batch.changes.length === 0 && batch.caughtUp && beats.length > 0)
    batch.heartbeatAt = beats.every((b) => b !== null)
      ? new Date(Math.min(...beats.map((b) => (b as Date).getTime())))
      : null;
  return batch;
}

/**
 * The newest heartbeat read past `from` up to where the journal's reading resumes next (`to`): each is
 * in exactly one batch's window, so it is told once, and only once nothing before it is left to read.
 */
function newestBeat(
  heartbeats: readonly JournalEntryRow[],
  from: JournalPosition,
  to: JournalPosition,
  order: (a: JournalPosition, b: JournalPosition) => number,
  utcOffset: number,
): Date | null {
  let newest: Date | null = null;
  for (const e of heartbeats) {
    const at = { library: e.receiverLibrary, receiver: e.receiver, sequence: e.sequence };
    if (order(at, from) > 0 && order(at, to) <= 0) newest = localInstant(e.timestamp, utcOffset) ?? newest;
  }
  return newest;
}

/** DSPJRN chunk after chunk until the batch is full or the journal read to its end. */
async function readAssembled(
  files: JournalFiles,
  journal: JournalName,
  chain: readonly ReceiverInfo[],
  readings: TableReading[],
  start: JournalPosition,
  maxRows: number,
) {
  const journaledFiles = readings.map((r) => ({ library: r.library, file: r.file, allMembers: r.memberKey }));
  // Entries per read by the widest record of the files read (entriesPerRead).
  const chunkEntries = entriesPerRead(Math.max(0, ...readings.map((r) => recordLength(r.fields))));
  const mostFields = Math.max(1, ...readings.map((r) => r.fields.length));
  const entries: JournalEntryRow[] = [];
  const heartbeats: JournalEntryRow[] = [];
  const decoded = new WeakMap<JournalEntryRow, Change[]>();
  let from = start;
  for (;;) {
    const library = await files.sync.ready();
    const chunk = await readJournal(
      files.c,
      library,
      journal,
      journaledFiles,
      from,
      chunkEntries,
      mostFields,
      files.heartbeatTag !== undefined,
    );
    const last = entries.at(-1);
    const first = chunk[0];
    // Each chunk starts with the entry the previous one ended on.
    if (last && first && first.sequence === last.sequence && first.receiver === last.receiver) chunk.shift();
    const order = chainOrder(chain);
    const read = chunk.length;
    // Nothing past the stop point is read: the first entry beyond it ends this journal's reading.
    const kept = files.stop ? files.stop.keptOf(chunk, order) : chunk.length;
    const beyond = kept < chunk.length ? chunk[kept] : undefined;
    const taken = kept < chunk.length ? chunk.slice(0, kept) : chunk;
    entries.push(...taken);
    const tag = files.heartbeatTag;
    if (tag !== undefined) for (const e of taken) if (isOwnHeartbeat(e, tag)) heartbeats.push(e);
    const screened = screenFileEntries(entries, readings, files.layoutSince, order);
    const assembled = assemble(
      screened.entries,
      readings,
      maxRows,
      files.form,
      order,
      decoded,
      (local) => localInstant(local, files.utcOffset) ?? undefined,
    );
    for (const [table, reason] of screened.resnapshot) assembled.resnapshot.set(table, reason);
    const end = entries.at(-1);
    const toEnd = read < chunkEntries - 1 || beyond !== undefined;
    if (screened.cut || assembled.changes.length >= maxRows || toEnd || !end) {
      files.rate.consumed += assembled.consumedCount;
      const exhausted = !screened.cut && assembled.changes.length < maxRows && toEnd;
      return {
        ...assembled,
        layoutChanged: screened.layoutChanged,
        stopped: screened.stopped,
        heartbeats,
        exhausted,
        // Only once the entries before it were all taken: a batch cut short reads them first.
        beyond: exhausted ? beyond : undefined,
      };
    }
    if (entries.length > MAX_ENTRIES)
      throw new Error(
        `More than ${MAX_ENTRIES} journal entries hold no complete commit cycle of the tables: a transaction this long is not replicated.`,
      );
    from = { library: end.receiverLibrary, receiver: end.receiver, sequence: end.sequence };
  }
}
