// One table's replication held while the pipeline's other tables go on: suspended at its position for
// a failure of its own (resumed from there), or stopped because it is gone at the source (copied again
// once back). The stop is committed at the target with the table's checkpoint entry, so a restart
// keeps it, and told in an event with what the DBA does about it.
import { pipelineFields } from '../../shared/agents/common';
import { fieldLabel } from '../../shared/config/parse';
import type { Target, TargetTable } from '../agents/target';
import { storedPosition, storedStop, type StoredCheckpoint, type TableStop } from './copies';
import { atTarget } from './failures';
import type { RunContext } from './runContext';

/**
 * A table suspended for a failure of its own: it waits at its position (and its copy at its cursor),
 * its reason kept and told; the pipeline's other tables go on.
 */
export async function suspendTable(
  run: RunContext,
  stored: StoredCheckpoint,
  table: string,
  reason: string,
  /** What the DBA does about it, when the cause asks more than waiting: the table is never copied. */
  unstarted?: { remedy: string },
): Promise<void> {
  if (run.stopped.has(table)) return;
  const position = stored.positions[table];
  const stop: TableStop = {
    reason: `${table} was suspended: ${reason}`,
    at: new Date(run.now()).toISOString(),
    ...(position !== undefined && { resumeFrom: storedPosition(position, stored.copies.get(table)) }),
    ...(position === undefined && unstarted && { suspended: true }),
  };
  await atTarget((run.target as Target).apply([], { [table]: storedStop(stop) }));
  recordStop(
    run,
    stored,
    table,
    stop,
    position !== undefined
      ? 'resume it once the cause is fixed: it reads on from where it stood'
      : (unstarted?.remedy ?? 'copy it again (re-snapshot) once the cause is fixed'),
  );
}

/**
 * One table's replication ends, with its reason kept at the target (so a restart keeps it stopped)
 * and told in an event; the pipeline's other tables go on. A re-snapshot takes it up again.
 */
export async function stopTable(
  run: RunContext,
  stored: StoredCheckpoint,
  table: string,
  reason: string,
  remedy = `ask for a re-snapshot of ${table} once it is back`,
): Promise<void> {
  const stop = droppedStop(run, reason);
  await atTarget((run.target as Target).apply([], { [table]: storedStop(stop) }));
  recordStop(run, stored, table, stop, remedy);
}

/** A table dropped at the source, stopped as droppedTables says: suspended with "suspend". */
export function droppedStop(run: RunContext, reason: string): TableStop {
  const suspended = run.o.droppedTables === 'suspend';
  return { reason, at: new Date(run.now()).toISOString(), ...(suspended && { suspended: true }) };
}

/** With droppedTables "drop", a table dropped at the source is dropped at the target too. */
export async function dropAtTarget(run: RunContext, table: string, known?: TargetTable): Promise<void> {
  const t = known ?? run.tables.find((x) => x.source === table);
  if (run.o.droppedTables !== 'drop' || !t || !run.target?.dropTable) return;
  await atTarget(run.target.dropTable(t));
  run.emit({
    kind: 'schema-changed',
    table,
    reason: `${t.name} dropped at the target too, as "${fieldLabel(pipelineFields.droppedTables)}" says`,
  });
}

/** A stop committed at the target, taken into what the step holds and told. */
export function recordStop(
  run: RunContext,
  stored: StoredCheckpoint,
  table: string,
  stop: TableStop,
  remedy = `ask for a re-snapshot of ${table} once it is back`,
): void {
  stored.positions = Object.fromEntries(Object.entries(stored.positions).filter(([t]) => t !== table));
  stored.copies.delete(table);
  stored.stopped.set(table, stop);
  run.stopped.set(table, stop);
  run.takingUp.delete(table);
  run.tables = run.tables.filter((t) => t.source !== table);
  run.overLimit.delete(table);
  run.emit({
    kind: stop.resumeFrom === undefined && !stop.suspended ? 'table-stopped' : 'table-suspended',
    table,
    reason: `${stop.reason}. The pipeline's other tables go on; ${remedy}.`,
  });
}
