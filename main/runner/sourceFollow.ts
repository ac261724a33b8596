// The source's side of a step: the next batch read while the last one is applied (used only when it
// starts where the target committed), and the backlog measured at the source every backlogEveryMs —
// at once when a batch drained it, so a drained backlog never stays on the gauge.
import type { Checkpoint, SourceAgent, TableRef } from '../agents/source';
import type { ReadAhead, RunContext } from './runContext';

/** The least time between two backlog points when a batch drained the backlog (recordBacklog). */
const BACKLOG_DRAINED_GAP_MS = 1000;

/** A checkpoint as one comparable text, its tables in order. */
export const checkpointText = (c: Checkpoint): string =>
  JSON.stringify(Object.entries(c).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** A read of the batch after `from`, begun now; settles with it, or with null if the read failed. */
export async function startReadAhead(
  run: RunContext,
  source: SourceAgent,
  refs: TableRef[],
  from: Checkpoint,
): Promise<ReadAhead | null> {
  const startedAt = run.now();
  const batch = await source.readChanges(refs, from, { maxRows: run.o.maxRows }).catch(() => null);
  return batch && { from: checkpointText(from), startedAt, readAt: run.now(), batch };
}

/**
 * A backlog point every `backlogEveryMs`, and at once (at most once a second) when a batch reached the
 * source's end while the last point still counted rows: a drained backlog must not stay on the gauge.
 */
export async function recordBacklog(
  run: RunContext,
  source: SourceAgent,
  refs: TableRef[],
  checkpoint: Checkpoint,
  caughtUp: boolean,
): Promise<void> {
  if (!run.o.onBacklog) return;
  const since = run.now() - run.lastBacklog;
  const drained = caughtUp && run.lastBacklogRows !== 0 && since >= BACKLOG_DRAINED_GAP_MS;
  if (!drained && since < (run.o.backlogEveryMs ?? 10_000)) return;
  run.lastBacklog = run.now();
  const figure = await source.backlog(refs, checkpoint);
  run.lastBacklogRows = figure.rowsToRead;
  run.o.onBacklog(figure);
  const stream = run.o.onStreamFigures && (await run.target?.streamFigures?.());
  if (stream) run.o.onStreamFigures?.(stream);
}
