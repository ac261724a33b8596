// SQL Server names as they reach SQL: always bracket-quoted (a `]` doubled), never concatenated raw.
import { sqlServerFold, tableText } from '../../../../shared/names';
import type { TableRef } from '../../source';

export const bracket = (name: string): string => `[${name.replaceAll(']', ']]')}]`;
export const qualified = (t: TableRef): string => `${bracket(t.schema)}.${bracket(t.table)}`;
/** Names as the default collation compares them (shared/names.ts says why). */
export const sameName = (a: string, b: string): boolean => sqlServerFold(a) === sqlServerFold(b);

/**
 * Tables per statement where a statement names each table (a UNION branch and a parameter each):
 * SQL Server takes 2,100 parameters per request, and a pipeline may hold 10,000 entities.
 */
export const TABLES_PER_STATEMENT = 250;

/** `items` in slices of TABLES_PER_STATEMENT, each slice's answers in order, one statement at a time. */
export async function perSlice<T, R>(
  items: readonly T[],
  run: (slice: T[], offset: number) => Promise<R[]>,
): Promise<R[]> {
  const out: R[] = [];
  for (let at = 0; at < items.length; at += TABLES_PER_STATEMENT)
    out.push(...(await run(items.slice(at, at + TABLES_PER_STATEMENT), at)));
  return out;
}

/**
 * Catalogue rows grouped by table, looked up by a ref: its exact name first (a case-sensitive
 * database may hold dbo.T_A beside dbo.t_a), then without case (the default collation).
 */
export function byTableName<R extends { schema_name: string; table_name: string }>(
  rows: readonly R[],
): (t: TableRef) => R[] {
  const exact = new Map<string, R[]>();
  const folded = new Map<string, R[]>();
  for (const r of rows) {
    for (const [map, key] of [
      [exact, tableText(r.schema_name, r.table_name)],
      [folded, tableText(r.schema_name, r.table_name).toLowerCase()],
    ] as const)
      map.set(key, [...(map.get(key) ?? []), r]);
  }
  return (t) =>
    exact.get(tableText(t.schema, t.table)) ?? folded.get(tableText(t.schema, t.table).toLowerCase()) ?? [];
}
