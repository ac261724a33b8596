// One replica of a pipeline in SQLite or PostgreSQL, for tests that run the same pipeline into each:
// the target to open, its rows read back as arrays in key order, and its schema made and dropped.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type pg from 'pg';
import { PostgresTarget } from '../../main/agents/postgresql/target';
import { SqliteTarget } from '../../main/agents/sqlite/target';
import type { Target } from '../../main/agents/target';
import { POSTGRES, scratchSchema } from './replica';

export type ReplicaKind = 'SQLite' | 'PostgreSQL';

/** Rows of a SQLite replica's table as arrays, ordered by the first column. */
export function sqliteRows(path: string, table: string, columns: string): unknown[][] {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare(`SELECT ${columns} FROM "${table}" ORDER BY 1`).raw().all() as unknown[][];
  } finally {
    db.close();
  }
}

export function eitherReplica(kind: ReplicaKind, pipeline: string, name: string) {
  const path = join(mkdtempSync(join(tmpdir(), `cdc-${name}-`)), 'replica.sqlite');
  const schema = `cdc_${name}_${process.pid}`;
  let client: pg.Client | undefined;
  let drop: (() => Promise<void>) | undefined;
  return {
    path,
    schema,
    target: async (): Promise<Target> =>
      kind === 'SQLite'
        ? new SqliteTarget(path, pipeline)
        : new PostgresTarget({ ...POSTGRES, schema }, pipeline),
    async rows(table: string, columns: string): Promise<unknown[][]> {
      if (kind === 'SQLite') return sqliteRows(path, table, columns);
      const r = await (client as pg.Client).query({
        text: `SELECT ${columns} FROM "${schema}"."${table}" ORDER BY 1`,
        rowMode: 'array',
      });
      return r.rows as unknown[][];
    },
    /** Makes PostgreSQL's scratch schema (SQLite's file is made by the target). */
    async open(): Promise<void> {
      if (kind === 'PostgreSQL') ({ client, drop } = await scratchSchema(schema));
    },
    async close(): Promise<void> {
      await drop?.();
    },
  };
}
