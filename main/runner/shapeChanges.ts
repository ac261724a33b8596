// A source table's columns changed (ALTER TABLE, CHGPF, or while the pipeline was stopped): the table's
// schema-change policy decides what the target gets (schemaPolicy.ts), the target table is brought to
// that shape, and the table is copied again when the rows already there cannot carry the change
// (reshape.ts). What the policy withheld, or a suspension for review, is told in an event.
import type { DroppedColumns } from '../../shared/agents/common';
import { tableKey, type SourceAgent } from '../agents/source';
import type { Retyped, Target, TargetTable } from '../agents/target';
import type { StoredCheckpoint } from './copies';
import { atTarget } from './failures';
import { columnChanges, reshaped } from './reshape';
import type { RunContext } from './runContext';
import { schemaVerdict } from './schemaPolicy';
import { targetTableOf, type RunnerEntity } from './targetTables';
import { suspendTable } from './tableStops';

/**
 * The target table brought to the source's shape; an event says what changed, when anything did,
 * and the table is copied again when the rows already there cannot carry the change (reshape.ts).
 */
export async function reconcile(
  run: RunContext,
  table: TargetTable,
  reason: string,
  gone: string[] = [],
  retyped: Retyped[] = [],
  dropped: DroppedColumns = run.o.droppedColumns ?? 'keep',
): Promise<void> {
  const target = run.target as Target;
  // A target without tables has nothing to alter: the rows carry their columns.
  const reconciled = target.reconcile
    ? await atTarget(target.reconcile(table, dropped, retyped))
    : { added: [], done: [] };
  const { said, copy } = reshaped(table, reason, reconciled, gone, retyped);
  if (said) run.emit({ kind: 'schema-changed', table: table.source, reason: said });
  if (copy) run.copies.request(table.source, 'copy', copy);
}

/** After ALTER TABLE or CHGPF at the source: the table described again, the target altered as the policy says. */
export async function reshape(
  run: RunContext,
  source: SourceAgent,
  stored: StoredCheckpoint,
  changed: { table: string; reason: string },
): Promise<void> {
  const index = run.tables.findIndex((t) => t.source === changed.table);
  const entity = run.entities.find((e) => tableKey(e.source) === changed.table);
  const before = run.tables[index];
  if (!before || !entity) return;
  const shapes = await source.describe([entity.source]);
  const cannotShape = shapes[0]?.cannotShape;
  if (cannotShape !== undefined) {
    await suspendTable(run, stored, changed.table, cannotShape);
    return;
  }
  const described = targetTableOf(entity, shapes, run.target?.foldName);
  const added = described.columns
    .filter((c) => !before.columns.some((b) => b.name === c.name))
    .map((c) => c.name);
  const verdict = await policyFor(run, stored, entity, described, {
    added,
    gone: columnChanges(before, described).gone,
  });
  if (!verdict) return;
  const { gone, retyped } = columnChanges(before, verdict.table);
  run.tables[index] = verdict.table;
  await reconcile(run, verdict.table, changed.reason, gone, retyped, verdict.dropped);
}

/**
 * The table's schema-change policy applied to a change (its own, else the pipeline's; propagate once
 * after a review's resume): the table as the target gets it, or undefined when it was suspended for
 * review. What the policy withheld is told in an event.
 */
export async function policyFor(
  run: RunContext,
  stored: StoredCheckpoint,
  entity: RunnerEntity,
  table: TargetTable,
  change: { added: string[]; gone: string[] },
): Promise<{ table: TargetTable; dropped: DroppedColumns | undefined } | undefined> {
  const reviewed = run.reviewed.delete(table.source);
  const policy = reviewed ? 'propagate' : (entity.schemaChanges ?? run.o.schemaChanges ?? 'propagate');
  const verdict = schemaVerdict(policy, table, change);
  if (verdict.suspend) {
    await suspendTable(run, stored, table.source, verdict.suspend);
    return undefined;
  }
  if (verdict.withheld)
    run.emit({ kind: 'schema-change-withheld', table: table.source, reason: verdict.withheld });
  return { table: verdict.table, dropped: verdict.dropped };
}
