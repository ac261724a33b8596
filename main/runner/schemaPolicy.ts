// The DBA's schema-change policy for a table whose columns changed at the source (the pipeline's
// schemaChanges setting, or the entity's own): what reaches the target, what is withheld and said, and
// when the table waits for review instead. Worked out from the columns added and dropped at the source
// against what the target holds.
import type { DroppedColumns, SchemaChanges } from '../../shared/agents/common';
import type { TargetTable } from '../agents/target';

export interface SchemaVerdict {
  /** The table as the target gets it: under ignore-new-columns, without the columns it left out. */
  table: TargetTable;
  /** How dropped columns are treated: the pipeline's setting under propagate, kept otherwise. */
  dropped: DroppedColumns | undefined;
  /** What the policy withheld, in words (an event), or null. */
  withheld: string | null;
  /** Why the table waits for review (suspend-table), or null. */
  suspend: string | null;
}

const list = (names: readonly string[]) => names.join(', ');

export function schemaVerdict(
  policy: SchemaChanges,
  table: TargetTable,
  change: { added: readonly string[]; gone: readonly string[] },
): SchemaVerdict {
  const { added, gone } = change;
  // Under any policy but propagate a column is never dropped at the target, even when nothing changed
  // this time (a change told twice, at a start and by the journal's D CG, must not drop what was kept).
  const none = {
    table,
    dropped: policy === 'propagate' ? undefined : ('keep' as const),
    withheld: null,
    suspend: null,
  };
  if (policy === 'propagate' || (added.length === 0 && gone.length === 0)) return none;
  const said = [
    added.length ? `added: ${list(added)}` : null,
    gone.length ? `dropped: ${list(gone)}` : null,
  ].filter(Boolean);
  if (policy === 'suspend-table')
    return {
      ...none,
      suspend: `its columns changed at the source (${said.join('; ')}) and its schema-change policy is "suspend-table": review the change, then resume the table to apply it`,
    };
  const keptNote = gone.length
    ? `column ${list(gone)} kept at the target (the policy "${policy}" drops no column; null in rows written from now on)`
    : null;
  if (policy === 'add-columns-only') return { ...none, dropped: 'keep', withheld: keptNote };
  // ignore-new-columns
  const ignored = added.length
    ? `column ${list(added)} added at the source left out of the target (the policy "ignore-new-columns")`
    : null;
  return {
    table: { ...table, columns: table.columns.filter((c) => !added.includes(c.name)) },
    dropped: 'keep',
    withheld: [ignored, keptNote].filter(Boolean).join('; ') || null,
    suspend: null,
  };
}
