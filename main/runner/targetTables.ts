// The target table of each entity: its source table's shape found (as the source compares names), the
// columns chosen (key columns always), and the names two entities or two columns would share refused.
import type { SchemaChanges } from '../../shared/agents/common';
import type { ColumnShaping, Shard, TableMode } from '../../shared/shaping';
import { tableKey, type TableRef, type TableShape } from '../agents/source';
import type { TargetTable } from '../agents/target';
import { PermanentFailure } from './failures';

export interface RunnerEntity {
  source: TableRef;
  target: { schema?: string; table: string };
  /** A column selection (the key columns are always kept); all columns when left out. */
  columns?: string[];
  /** This table's schema-change policy, over the pipeline's. */
  schemaChanges?: SchemaChanges;
  /** The entity's shaping (docs/shaping.md): masks and target names, a row filter, deletes skipped. */
  columnShaping?: Record<string, ColumnShaping>;
  rowFilter?: string;
  skipOperations?: readonly 'delete'[];
  tableMode?: TableMode;
  shard?: Shard;
}

/** An entity's shape: the one described for its ref, or (a source that answers names in its own case) the one named alike. */
export function shapeOf(shapes: readonly TableShape[], ref: TableRef): TableShape | undefined {
  const key = tableKey(ref);
  return (
    shapes.find((s) => tableKey(s.ref) === key) ??
    shapes.find((s) => tableKey(s.ref).toLowerCase() === key.toLowerCase())
  );
}

/** Two entities whose tables the source takes for one (its collation, its system names), in words. */
export function sameSourceTable(
  entities: readonly RunnerEntity[],
  shapes: readonly TableShape[],
): string | null {
  const seen = new Map<string, string>();
  for (const e of entities) {
    const identity = shapeOf(shapes, e.source)?.identity;
    if (identity === undefined) continue;
    const first = seen.get(identity);
    const key = tableKey(e.source);
    if (first !== undefined)
      return `${first} and ${key} name the same source table (${identity}), as the source compares names: a table is replicated by one entity of a pipeline. Remove one of them.`;
    seen.set(identity, key);
  }
  return null;
}

/**
 * The target table of an entity: its name, the selected columns (key columns always), the key. Two
 * columns whose names the target takes for one (`fold`) are refused, naming both.
 */
export function targetTableOf(
  e: RunnerEntity,
  shapes: readonly TableShape[],
  fold?: (name: string) => string,
): TargetTable {
  const key = tableKey(e.source);
  const shape = shapeOf(shapes, e.source);
  if (!shape)
    throw new PermanentFailure(`The source table ${key} does not exist, or the login cannot see it.`);
  if (shape.key.length === 0)
    throw new PermanentFailure(`IllegalArgumentException: Missing primary keys for entities... ${key}`);
  const wanted = e.columns?.map((c) => c.toLowerCase());
  const columns = shape.columns.filter(
    (c) =>
      !wanted ||
      c.provenance ||
      wanted.includes((c.shapedFrom ?? c.name).toLowerCase()) ||
      shape.key.includes(c.name),
  );
  const unknown = (e.columns ?? []).filter(
    (c) => !shape.columns.some((x) => (x.shapedFrom ?? x.name).toLowerCase() === c.toLowerCase()),
  );
  if (unknown.length > 0) throw new PermanentFailure(`${key} has no column ${unknown.join(', ')}.`);
  if (fold) {
    const seen = new Map<string, string>();
    for (const c of columns) {
      const other = seen.get(fold(c.name));
      if (other !== undefined)
        throw new PermanentFailure(
          `${key} has columns ${other} and ${c.name}, which the target takes for one column: leave one out of the entity's columns, or rename it at the source.`,
        );
      seen.set(fold(c.name), c.name);
    }
  }
  return {
    source: key,
    schema: e.target.schema,
    name: e.target.table,
    columns,
    key: shape.key,
    ...(shape.softDelete && { softDelete: shape.softDelete }),
    ...(shape.history && { history: shape.history }),
    ...(e.shard && { shard: { column: e.shard.column, value: e.shard.value } }),
  };
}
