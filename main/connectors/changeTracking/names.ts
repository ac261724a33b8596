// SQL Server names as they reach SQL: always bracket-quoted (a `]` doubled), never concatenated raw.
import type { TableRef } from '../source';

export const bracket = (name: string): string => `[${name.replaceAll(']', ']]')}]`;
export const qualified = (t: TableRef): string => `${bracket(t.schema)}.${bracket(t.table)}`;
/** The schema the agent keeps its own tables in (spec: created when absent; the name is fixed). */
export const SYNC_SCHEMA = 'SYNC';
export const sameName = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();
