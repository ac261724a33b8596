// What tells the change-tracking agent that a table's columns changed at the source while it runs:
// per batch, a cheap signal per table (its object id, sys.objects.modify_date — which "ALTER TABLE"
// moves — and its column count and highest column id), in bounded slices of tables; and, when a
// table is described, its columns by id, so a column renamed (same id, new name) is told apart from
// one dropped and another added.
import type sql from 'mssql';
import type { TableRef, TableShape } from '../source';
import { perSlice, qualified } from '../drivers/mssql/names';

/** A statement with bound inputs, its first recordset back (on a transaction or the pool). */
export type RunQuery = <T>(statement: string, bind?: (request: sql.Request) => void) => Promise<T[]>;

export interface Signal {
  objectId: number;
  modified: string;
  columns: number;
  lastColumnId: number;
}

export interface Structure extends Signal {
  /** Column id → name, as the table was described. */
  names: Map<number, string>;
}

type SignalRow = { i: number; object_id: number; modified: Date | string; n: number; m: number };

/**
 * The signals of `count` tables named by `@t0…`, one row each tagged `i`; a table no longer there has
 * no row. Bound by the caller, so a batch's first request can carry it beside its other questions.
 */
export const signalsStatement = (count: number): string =>
  Array.from(
    { length: count },
    (_, i) =>
      `SELECT ${i} AS i, o.object_id, o.modify_date AS modified, COUNT(*) AS n, MAX(c.column_id) AS m
      FROM sys.objects o JOIN sys.columns c ON c.object_id = o.object_id
      WHERE o.object_id = OBJECT_ID(@t${i}) GROUP BY o.object_id, o.modify_date`,
  ).join(' UNION ALL ');

/** A signals statement's rows, per table in order: its signal, or null when it is gone. */
export function decodeSignals(rows: readonly SignalRow[], count: number): (Signal | null)[] {
  const byIndex = new Map(rows.map((r) => [Number(r.i), r]));
  return Array.from({ length: count }, (_, i) => {
    const r = byIndex.get(i);
    return r
      ? {
          objectId: Number(r.object_id),
          modified: r.modified instanceof Date ? r.modified.toISOString() : String(r.modified),
          columns: Number(r.n),
          lastColumnId: Number(r.m),
        }
      : null;
  });
}

/** Per table, in order: its signal now, or null when no table has that name (dropped or renamed). */
export async function readSignals(run: RunQuery, tables: readonly TableRef[]): Promise<(Signal | null)[]> {
  return perSlice(tables, async (slice) =>
    decodeSignals(
      await run<SignalRow>(signalsStatement(slice.length), (r) =>
        slice.forEach((t, i) => r.input(`t${i}`, qualified(t))),
      ),
      slice.length,
    ),
  );
}

/** Per table, in order: its signal and its columns by id, or null when it is not there. */
export async function readStructures(
  run: RunQuery,
  tables: readonly TableRef[],
): Promise<(Structure | null)[]> {
  const signals = await readSignals(run, tables);
  const names = await perSlice(tables, async (slice, offset) => {
    const ids = slice.map((_, i) => signals[offset + i]?.objectId ?? null);
    const present = ids.filter((id): id is number => id !== null);
    const rows = present.length
      ? await run<{ object_id: number; column_id: number; name: string }>(
          `SELECT object_id, column_id, name FROM sys.columns WHERE object_id IN (${present.map((_, k) => `@o${k}`).join(', ')})`,
          (r) => present.forEach((id, k) => r.input(`o${k}`, id)),
        )
      : [];
    // Grouped once by object: a lookup per table, not a scan of every column of the slice.
    const byObject = new Map<number, Map<number, string>>();
    for (const r of rows) {
      const id = Number(r.object_id);
      const names = byObject.get(id) ?? new Map<number, string>();
      names.set(Number(r.column_id), r.name);
      byObject.set(id, names);
    }
    return ids.map((id) => (id === null ? undefined : byObject.get(id)) ?? new Map<number, string>());
  });
  return signals.map((s, i) => (s ? { ...s, names: names[i] ?? new Map<number, string>() } : null));
}

export const sameSignal = (a: Signal, b: Signal): boolean =>
  a.objectId === b.objectId &&
  a.modified === b.modified &&
  a.columns === b.columns &&
  a.lastColumnId === b.lastColumnId;

/** The same columns, by id and name. */
export const sameColumns = (a: Structure, b: Structure): boolean =>
  a.names.size === b.names.size && [...a.names].every(([id, name]) => b.names.get(id) === name);

/** Marks the shape's columns that kept their id under a new name (sp_rename) since `before`. */
export function markRenamed(shape: TableShape, before: Structure, now: Structure): void {
  if (before.objectId !== now.objectId) return;
  for (const c of shape.columns) {
    const id = [...now.names].find(([, name]) => name === c.name)?.[0];
    const old = id === undefined ? undefined : before.names.get(id);
    if (old !== undefined && old !== c.name) c.renamedFrom = old;
  }
}
