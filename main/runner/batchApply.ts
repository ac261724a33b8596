// Changes into the target with per-table isolation: a batch goes in whole, in one transaction with its
// checkpoint; refused for a reason no retry heals, it goes again table by table, so one table's refusal
// does not hold the others, and within a table the rows the target refuses are kept aside as
// exceptions (rowRefusals.ts). A table past its limit of rows kept aside is marked to be suspended.
import { pipelineFields } from '../../shared/agents/common';
import { fieldLabel } from '../../shared/config/parse';
import type { Change, Checkpoint, Row, SnapshotChunk } from '../agents/source';
import type { RefusedRow } from '../agents/spi';
import { copiedChanges, type Fence, type Target, type TargetTable } from '../agents/target';
import { atTarget, PermanentFailure } from './failures';
import { applyAround, type RefusedChange } from './rowRefusals';
import { DEFAULT_MAX_EXCEPTIONS, type RunContext } from './runContext';

/** What the row-by-row path needs of the runner: which errors refuse a row, and the target's marking. */
export const rowDepsOf = (run: RunContext) => ({ refusesRow: (e: unknown) => run.refusesRow(e), atTarget });

/** Applies rows with their checkpoint; rows the target refuses are kept aside, the others go in. */
async function applyKeeping(
  run: RunContext,
  target: Target,
  changes: readonly Change[],
  checkpoint: Checkpoint,
): Promise<RefusedChange[]> {
  const refused = await applyAround(target, changes, checkpoint, rowDepsOf(run));
  keepRefused(run, refused);
  return refused;
}

/**
 * A copy's chunk with its checkpoint: through the target's copy path where it has one (no change
 * object per row). When that refuses rows, or the target has none, the chunk goes as changes, its
 * refused rows kept aside and the rest committed (applyKeeping).
 */
export async function applyChunk(
  run: RunContext,
  target: Target,
  table: TargetTable,
  chunk: Pick<SnapshotChunk, 'rows' | 'unreadable' | 'replaced'>,
  position: string,
  checkpoint: Checkpoint,
): Promise<void> {
  const { rows } = chunk;
  // Rows the source could not read are kept aside, never applied; without a store to keep them in,
  // or when the DBA chose whole transactions, the pipeline stops before the copy moves past them.
  const unreadable = chunk.unreadable ?? [];
  if (unreadable[0] && (!run.o.onRowsRefused || run.stopsPipeline))
    throw new PermanentFailure(unreadable[0].reason);
  await applyCopied(run, target, table, rows, position, checkpoint);
  if (chunk.replaced)
    run.emit({ kind: 'values-replaced', table: table.source, values: chunk.replaced, by: 'source' });
  keepRefused(
    run,
    unreadable.map((u) => {
      const [change] = copiedChanges(table, [u.row], position);
      return {
        change: { ...(change as Change), unreadable: { reason: u.reason, raw: u.raw } },
        error: new Error(u.reason),
      };
    }),
  );
}

async function applyCopied(
  run: RunContext,
  target: Target,
  table: TargetTable,
  rows: readonly Row[],
  position: string,
  checkpoint: Checkpoint,
): Promise<void> {
  if (target.applyCopy) {
    try {
      await atTarget(target.applyCopy(table, rows, checkpoint));
      return;
    } catch (error) {
      if (rows.length === 0 || !run.refusesRow(error)) throw error;
    }
  }
  await applyKeeping(run, target, copiedChanges(table, rows, position), checkpoint);
}

/** Refused rows to the exceptions store, told per table; a table past maxExceptions is marked. */
export function keepRefused(run: RunContext, refused: readonly RefusedChange[]): void {
  if (refused.length === 0 || !run.o.onRowsRefused) return;
  const rows = refused.map(({ change, error }): RefusedRow => ({
    table: change.table,
    op: change.op,
    key: change.key,
    position: change.position,
    values: change.row,
    error: run.reason(error),
    ...(change.unreadable && { raw: change.unreadable.raw }),
  }));
  const kept = run.o.onRowsRefused(rows);
  const max = run.o.maxExceptions ?? DEFAULT_MAX_EXCEPTIONS;
  for (const table of new Set(rows.map((r) => r.table))) {
    const own = rows.filter((r) => r.table === table);
    const total = kept[table] ?? own.length;
    const error = own.at(-1)?.error ?? '';
    run.emit({ kind: 'rows-refused', table, rows: own.length, kept: total, error });
    if (total > max)
      run.overLimit.set(
        table,
        `${total} of its rows are kept as exceptions, more than the pipeline's limit (${fieldLabel(pipelineFields.maxExceptions)}, ${max}); the last refusal: ${error}`,
      );
    // A stream's consumers would apply the table's later changes past the row kept aside: it waits.
    const waits = refused.find((r) => r.change.table === table && run.target?.suspendsTable?.(r.error));
    if (waits)
      run.overLimit.set(
        table,
        `a row of it is kept as an exception (${run.reason(waits.error)}); the table waits, so that no later change of it reaches the stream before that row`,
      );
  }
}

/** What a batch's apply answers: the tables refused whole, with their errors, and the rows kept aside. */
export interface BatchOutcome {
  refused: Map<string, unknown>;
  kept: Set<Change>;
}

/**
 * A batch applied whole, in one transaction; when the target refuses it for a reason no retry heals,
 * applied again table by table, so one table's refusal does not hold the others, and within a table
 * the rows it refuses are kept aside. Answers the tables refused whole, with their errors, and the
 * rows kept aside (neither: the batch went in whole).
 */
export async function applyBatch(
  run: RunContext,
  target: Target,
  changes: readonly Change[],
  written: Checkpoint,
  fence?: Fence,
): Promise<BatchOutcome> {
  const kept = new Set<Change>();
  try {
    await atTarget(target.apply(changes, written, fence));
    return { refused: new Map(), kept };
  } catch (error) {
    if (!run.tableOwn(error)) throw error;
    // Positions and stops alone: no table's rows to tell apart.
    if (changes.length === 0) throw error;
    const byTable = new Map<string, Change[]>();
    for (const c of changes) {
      const own = byTable.get(c.table);
      if (own) own.push(c);
      else byTable.set(c.table, [c]);
    }
    const refused = new Map<string, unknown>();
    for (const [table, own] of byTable) {
      try {
        const position = written[table] === undefined ? {} : { [table]: written[table] };
        for (const r of await applyKeeping(run, target, own, position)) kept.add(r.change);
      } catch (tableError) {
        if (!run.tableOwn(tableError)) throw tableError;
        refused.set(table, tableError);
      }
    }
    // The positions of the tables without changes in this batch, and the batch's table stops.
    const rest = Object.fromEntries(Object.entries(written).filter(([t]) => !byTable.has(t)));
    if (Object.keys(rest).length > 0) await atTarget(target.apply([], rest));
    return { refused, kept };
  }
}
