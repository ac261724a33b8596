// A table copy's progress kept at the target: in the table's checkpoint row, after its stream position,
// as ` copy ` and the state's JSON. Positions never hold a space, so the two part cleanly; a row
// without the mark is a table whose copy is complete (or that never needed one). Keeping both in one
// row means a chunk's rows, the copy's cursor and the table's position commit in one transaction.
// A table whose replication stopped on its own (dropped or renamed at the source, or suspended for a
// failure of its own) keeps, instead of a position, `stopped ` and its reason's JSON (with, for a
// suspended table, the entry it had): it stays stopped across restarts until resumed or copied again.
import { safeJson } from '../../shared/config/parse';
import { z } from 'zod';
import { copyStateSchema, type CopyState, type TableSnapshot } from '../../shared/snapshots';
import type { Checkpoint } from '../agents/source';

const MARK = ' copy ';
const STOPPED = 'stopped ';

const tableStopSchema = z.object({
  reason: z.string(),
  at: z.string(),
  /**
   * A suspended table (a failure of its own, not its disappearance): its checkpoint entry as it stood,
   * position and copy cursor, which a resume puts back so the table reads on from there.
   */
  resumeFrom: z.string().optional(),
  /** Suspended without a position to go back to (a table dropped at the source, droppedTables "suspend"). */
  suspended: z.literal(true).optional(),
});
/** Why a table's replication stopped while the pipeline's other tables go on. */
export type TableStop = z.infer<typeof tableStopSchema>;

export function storedStop(stop: TableStop): string {
  return `${STOPPED}${JSON.stringify(stop)}`;
}

export function storedPosition(position: string, copy: CopyState | undefined): string {
  return copy ? `${position}${MARK}${JSON.stringify(copy)}` : position;
}

export interface StoredCheckpoint {
  /** Per table, the stream position alone: what the source reads from. */
  positions: Checkpoint;
  /** Per table, the copy in progress (or cancelled) with its cursor. */
  copies: Map<string, CopyState>;
  /** Tables stopped on their own, with why: not read until copied again. */
  stopped: Map<string, TableStop>;
}

export function parseStored(stored: Checkpoint): StoredCheckpoint {
  const positions: Checkpoint = {};
  const copies = new Map<string, CopyState>();
  const stopped = new Map<string, TableStop>();
  for (const [table, value] of Object.entries(stored)) {
    if (value.startsWith(STOPPED)) {
      const stop = tableStopSchema.safeParse(safeJson(value.slice(STOPPED.length)));
      stopped.set(
        table,
        stop.success ? stop.data : { reason: 'it stopped (the reason kept was unreadable)', at: '' },
      );
      continue;
    }
    const at = value.indexOf(MARK);
    if (at < 0) {
      positions[table] = value;
      continue;
    }
    positions[table] = value.slice(0, at);
    const parsed = copyStateSchema.safeParse(safeJson(value.slice(at + MARK.length)));
    // A mangled state (edited by hand) cannot say where the copy stood: it starts again.
    const fallback: CopyState = {
      cursor: null,
      rowsDone: 0,
      rowsTotal: null,
      reason: 'its saved progress was unreadable',
      startedAt: '',
    };
    copies.set(table, parsed.success ? parsed.data : fallback);
  }
  return { positions, copies, stopped };
}

/** The checkpoint entries to store for these positions, each with its table's copy when one runs. */
export function storedCheckpoint(positions: Checkpoint, copies: ReadonlyMap<string, CopyState>): Checkpoint {
  return Object.fromEntries(
    Object.entries(positions).map(([table, position]) => [
      table,
      storedPosition(position, copies.get(table)),
    ]),
  );
}

/** Rows per second over this run of a copy, and the time left at that rate. */
export function copyRate(
  copy: CopyState,
  run: { since: number; rows: number } | undefined,
  now: number,
): Pick<TableSnapshot, 'rowsPerSecond' | 'secondsLeft'> {
  const seconds = run ? (now - run.since) / 1000 : 0;
  const rowsPerSecond = run && run.rows > 0 && seconds > 0 ? Math.round(run.rows / seconds) : null;
  const left = copy.rowsTotal === null ? null : Math.max(0, copy.rowsTotal - copy.rowsDone);
  return {
    rowsPerSecond,
    secondsLeft: rowsPerSecond && left !== null ? Math.ceil(left / rowsPerSecond) : null,
  };
}
