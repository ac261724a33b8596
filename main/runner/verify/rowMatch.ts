// A table's rows in their compared form, each column's conversion chosen once; and whether a source
// row and its target row hold the same values, without writing either in full: per
// column, a value the runner would write exactly as the target gives it back is equal (the compared
// form is a function of the value alone), a whole number equal as a number is equal, and anything
// else is compared in its compared form (canonical.ts). Only keys are always written out, for look-ups.
import type { ColumnShape, Row, RowValue } from '../../agents/source';
import { portableWriter } from '../../agents/targetValues';
import { canonicalOf, keyText, type KeptDigits } from './canonical';

export interface RowMatch {
  /** A source row in its compared form, column by column (sourceForm, each conversion chosen once). */
  source(row: Row): string[];
  /** A target row in its compared form (targetForm, likewise). */
  target(row: Row): string[];
  /** A source row's key in its compared form, one text per key column. */
  sourceKey(row: Row): string[];
  /** A target row's key in its compared form: equal to its source row's. */
  targetKey(row: Row): string[];
  /** keyText of sourceKey: a one-column key's text made without an array (a verify makes one a row). */
  sourceKeyText(row: Row): string;
  /** keyText of targetKey, likewise. */
  targetKeyText(row: Row): string;
  /** Whether the two rows' compared forms are equal, column by column. */
  same(source: Row, target: Row): boolean;
}

export function rowMatch(
  columns: readonly ColumnShape[],
  key: readonly string[],
  digits: KeptDigits,
): RowMatch {
  const each = columns.map((c) => ({
    name: c.name,
    write: portableWriter(c),
    canonical: canonicalOf(c, digits(c)),
  }));
  const keyed = key.map((k) => each.find((e) => e.name === k) as (typeof each)[number]);
  const sourceKey = (row: Row) => keyed.map((e) => e.canonical(e.write(row[e.name] ?? null)));
  const targetKey = (row: Row) => keyed.map((e) => e.canonical(row[e.name] ?? null));
  const [only] = keyed;
  const single = keyed.length === 1 && only !== undefined;
  return {
    source: (row) => each.map((e) => e.canonical(e.write(row[e.name] ?? null))),
    target: (row) => each.map((e) => e.canonical(row[e.name] ?? null)),
    sourceKey,
    targetKey,
    sourceKeyText: single
      ? (row) => only.canonical(only.write(row[only.name] ?? null))
      : (row) => keyText(sourceKey(row)),
    targetKeyText: single
      ? (row) => only.canonical(row[only.name] ?? null)
      : (row) => keyText(targetKey(row)),
    same: (source, target) => {
      for (const e of each) {
        const mine: RowValue = e.write(source[e.name] ?? null);
        const theirs = target[e.name] ?? null;
        if (mine === theirs) continue;
        // A whole number as a JavaScript number at one side and a bigint at the other: equal as
        // numbers only when exact (a safe integer equals no bigint beyond 2^53).
        if (typeof mine === 'number' && typeof theirs === 'bigint') {
          if (Number.isSafeInteger(mine) && Number(theirs) === mine) continue;
        }
        if (e.canonical(mine) !== e.canonical(theirs)) return false;
      }
      return true;
    },
  };
}
