// A rewind of a running pipeline: every table read (with a position) goes back to a point the DBA
// names and its changes since are applied again, by key, so the target ends equal to the source.
// The source places the point and refuses one it no longer holds or one ahead of a table; the
// target stores the positions in one write (a stream in a new epoch, so nothing re-sent is dropped).
import { tableKey, type Checkpoint, type SourceAgent, type TableRef } from '../agents/source';
import type { Target } from '../agents/target';
import { StartUnavailable } from '../agents/startPoint';
import { storedCheckpoint, type StoredCheckpoint } from './copies';
import { atTarget } from './failures';
import type { RunContext } from './runContext';

/** Takes the rewind asked for, if any, before the step reads: `stored` then holds the new positions. */
export async function takeRewind(
  run: RunContext,
  scene: { source: SourceAgent; target: Target; refs: readonly TableRef[] },
  stored: StoredCheckpoint,
): Promise<void> {
  const to = run.rewindTo;
  if (to === null) return;
  const { source, target } = scene;
  const refuse = (reason: string) => {
    run.rewindTo = null;
    run.emit({ kind: 'rewind-refused', to, reason });
  };
  if (!source.positionsAt) return refuse('this source cannot be rewound');
  // Engines sharing the source: only the tables this one holds are its to move; the others' engines
  // commit theirs, and a rewind of theirs would race them.
  const held = source.sharedAmongEngines === true ? new Set(source.heldTables?.() ?? []) : null;
  const tables = scene.refs.filter(
    (r) => stored.positions[tableKey(r)] !== undefined && (!held || held.has(tableKey(r))),
  );
  if (tables.length === 0)
    return refuse(held ? 'this engine holds no table with a position yet' : 'no table has a position yet');
  let positions: Map<string, string>;
  try {
    positions = await source.positionsAt(tables, to, stored.positions);
  } catch (error) {
    // Anything else (a lost connection) is retried with the request kept.
    if (!(error instanceof StartUnavailable)) throw error;
    return refuse(error.message);
  }
  const moved: Checkpoint = {};
  for (const r of tables) {
    const position = positions.get(tableKey(r));
    if (position !== undefined) moved[tableKey(r)] = position;
  }
  const checkpoint = storedCheckpoint(moved, stored.copies);
  await atTarget(
    target.rewind ? target.rewind(Object.keys(moved), checkpoint) : target.apply([], checkpoint),
  );
  Object.assign(stored.positions, moved);
  await source.saveCheckpoint(stored.positions);
  // A batch read ahead from the old positions is not this one's.
  run.readAhead = null;
  run.rewindTo = null;
  run.emit({
    kind: 'rewound',
    to,
    tables: Object.keys(moved).length,
    reason:
      held && held.size < scene.refs.length
        ? "the changes since are read and applied again by key (the tables this engine holds; the other engines' tables are theirs to rewind)"
        : 'the changes since are read and applied again by key',
  });
}
