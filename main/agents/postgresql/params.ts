// Bound parameters of the PostgreSQL target's statements: at most 65,535 a statement, and key tuples
// typed as the target's columns so an IN list compares as the columns do.
import type { ColumnShape, Row } from '../source';

export const MAX_PARAMS = 60_000;

/** `($1::integer, $2::text), …` for `keys`, each value bound by `bind` and pushed to `params`. */
export function keyTuples(
  keys: readonly Row[],
  columns: readonly ColumnShape[],
  params: unknown[],
  bind: (c: ColumnShape, v: Row[string]) => unknown,
  typeOf: (c: ColumnShape) => string,
): string {
  return keys
    .map((k) => {
      const marks = columns.map((c) => {
        params.push(bind(c, k[c.name] ?? null));
        return `$${params.length}::${typeOf(c)}`;
      });
      return `(${marks.join(', ')})`;
    })
    .join(', ');
}
