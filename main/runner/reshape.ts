// What a table's reconciliation with its source's new shape tells the user and asks of the copies,
// worked out from what the target did: one `schema-changed` sentence, and the reason to copy the
// table again when the rows already there cannot carry the change (a NOT NULL or defaulted column
// added, a renamed column, a column the target made again for a new type).
import type { Reconciled, Retyped, TargetTable } from '../agents/target';

export interface Reshaped {
  /** The `schema-changed` reason, or null when the target changed nothing. */
  said: string | null;
  /** Why the table must be copied again, or null. */
  copy: string | null;
}

/** The columns of `before` that `after` lacks, and those whose source type changed. */
export function columnChanges(
  before: TargetTable | undefined,
  after: TargetTable,
): { gone: string[]; retyped: Retyped[] } {
  const old = before?.columns ?? [];
  return {
    gone: old.filter((c) => !after.columns.some((n) => n.name === c.name)).map((c) => c.name),
    retyped: old.flatMap((c) => {
      const now = after.columns.find((n) => n.name === c.name);
      return now && now.sourceType !== c.sourceType ? [{ name: c.name, from: c.sourceType }] : [];
    }),
  };
}

export function reshaped(
  table: TargetTable,
  reason: string,
  reconciled: Reconciled,
  gone: readonly string[] = [],
  retyped: readonly Retyped[] = [],
): Reshaped {
  const { added } = reconciled;
  // A column dropped at the source and kept at the target: the target had nothing to change when it
  // was nullable already, but the user is told once, when it happens.
  const done = [
    ...reconciled.done,
    ...gone
      .filter((name) => !reconciled.done.some((d) => d.startsWith(`column ${name} `)))
      .map(
        (name) =>
          `column ${name} kept at the target (no longer at the source: null in rows written from now on)`,
      ),
  ];
  // A source that does not say whether a nullable column added had a default (ADD … DEFAULT) may
  // have filled the rows already there; no change says so.
  const nullable = table.columns
    .filter((c) => c.nullable && c.defaulted === undefined && !c.renamedFrom && added.includes(c.name))
    .map((c) => c.name);
  const hint = nullable.length
    ? ` The rows already there hold null in ${nullable.join(', ')}; if the source gave them a default (ADD … DEFAULT), ask for a re-snapshot of ${table.source}.`
    : '';
  const said = done.length ? `${reason}: ${done.join('; ')}.${hint}` : null;
  const remade = reconciled.remade ?? [];
  if (remade.length) {
    const changes = remade.map((name) => {
      const from = retyped.find((r) => r.name === name)?.from ?? '?';
      const to = table.columns.find((c) => c.name === name)?.sourceType ?? '?';
      return `${name} from ${from} to ${to}`;
    });
    return {
      said,
      copy: `column ${changes.join(', ')} changed type at the source, which the target cannot follow in place: the column was made again, empty, and the table is copied again`,
    };
  }
  const renamed = table.columns.filter((c) => c.renamedFrom !== undefined && added.includes(c.name));
  if (renamed.length)
    return {
      said,
      copy: `column ${renamed.map((c) => `${c.renamedFrom ?? ''} renamed to ${c.name}`).join(', ')} at the source: the rows already there hold its values under the new name`,
    };
  const filled = table.columns.filter(
    (c) => (!c.nullable || c.defaulted) && c.renamedFrom === undefined && added.includes(c.name),
  );
  if (filled.length)
    return {
      said,
      copy: `column ${filled.map((c) => c.name).join(', ')} added ${filled.every((c) => !c.nullable) ? 'NOT NULL' : 'with a default'}: the rows already there took its default at the source`,
    };
  return { said, copy: null };
}
