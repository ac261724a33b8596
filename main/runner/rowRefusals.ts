// A target's refusal of some rows (a value its type cannot hold, a constraint it enforces), told apart
// from a refusal of the whole table: the rows are applied again in halves until each refused one
// stands alone. The others commit, then the checkpoint; the refused ones are answered with their error
// for the exceptions store. k refused rows among n cost about k·log2(n) extra applies.
import type { Change, Checkpoint } from '../agents/source';
import type { Target } from '../agents/target';

export interface RefusedChange {
  change: Change;
  error: unknown;
}

export interface RowRefusalDeps {
  /** Whether an error refuses the rows applied (their values), rather than the table or the connection. */
  refusesRow(error: unknown): boolean;
  /** Marks what the target threw (the runner's atTarget). */
  atTarget<T>(work: Promise<T>): Promise<T>;
}

/**
 * Applies `changes` with `checkpoint` in one transaction; when the target refuses rows, applies all it
 * takes, keeps the checkpoint, and answers the rows refused. Any other refusal is thrown as it came.
 * A crash between the halves and the checkpoint replays them: upserts and deletes by key repeat alike.
 */
export async function applyAround(
  target: Target,
  changes: readonly Change[],
  checkpoint: Checkpoint,
  deps: RowRefusalDeps,
): Promise<RefusedChange[]> {
  try {
    await deps.atTarget(target.apply(changes, checkpoint));
    return [];
  } catch (error) {
    if (changes.length === 0 || !deps.refusesRow(error)) throw error;
  }
  const refused = await isolate(target, changes, deps);
  await deps.atTarget(target.apply([], checkpoint));
  return refused;
}

async function isolate(
  target: Target,
  changes: readonly Change[],
  deps: RowRefusalDeps,
): Promise<RefusedChange[]> {
  if (changes.length === 0) return [];
  try {
    await deps.atTarget(target.apply(changes, {}));
    return [];
  } catch (error) {
    if (!deps.refusesRow(error)) throw error;
    const only = changes.length === 1 ? changes[0] : undefined;
    if (only) return [{ change: only, error }];
  }
  const half = Math.ceil(changes.length / 2);
  // In order: a later change to a row applies after the earlier one, as in the stream.
  const first = await isolate(target, changes.slice(0, half), deps);
  return [...first, ...(await isolate(target, changes.slice(half), deps))];
}
