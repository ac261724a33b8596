// The target's side of a runner test, SQLite or PostgreSQL alike: open the target, read a table's rows,
// and make the target refuse rows (a trigger on names that start with "bad") or a whole table (renamed
// away while the pipeline runs).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type pg from 'pg';
import { PostgresTarget } from '../../main/agents/postgresql/target';
import type { Row } from '../../main/agents/source';
import { SqliteTarget } from '../../main/agents/sqlite/target';
import type { Target } from '../../main/agents/target';
import { POSTGRES } from './replica';

/** The target's side: its rows, and a trigger that refuses names starting with "bad" (on or off). */
export interface TargetSide {
  open(): Promise<Target>;
  rows(table: string): Promise<Row[]>;
  /** The table's column names in lower case, in order; null when the table is not there. */
  columns(table: string): Promise<string[] | null>;
  refuseBad(table: string, on: boolean): Promise<void>;
  /** Renames the table away (the target refuses the whole table) and back. */
  hide(table: string, hidden: boolean): Promise<void>;
  /** Sets one value of one row behind the engine's back (a planted difference). */
  tamper(table: string, where: { column: string; id: number }, column: string, value: string): Promise<void>;
}

export function sqliteSide(pipelineId: string): TargetSide {
  const path = join(mkdtempSync(join(tmpdir(), 'cdc-refusals-')), 'replica.sqlite');
  const db = () => new Database(path, { timeout: 5000 });
  const run = (statements: string) => {
    const d = db();
    d.exec(statements);
    d.close();
  };
  return {
    open: async () => new SqliteTarget(path, pipelineId),
    rows: async (table) => {
      const d = db();
      const rows = d.prepare(`SELECT * FROM "${table}"`).all() as Row[];
      d.close();
      return rows;
    },
    columns: async (table) => {
      const d = db();
      const found = d.prepare(`PRAGMA table_info("${table}")`).all() as { name: string }[];
      d.close();
      return found.length === 0 ? null : found.map((c) => c.name.toLowerCase());
    },
    refuseBad: async (table, on) =>
      run(
        on
          ? `CREATE TRIGGER refuse_i BEFORE INSERT ON "${table}" WHEN NEW.name LIKE 'bad%' BEGIN SELECT RAISE(ABORT, 'refused: a bad name'); END;
             CREATE TRIGGER refuse_u BEFORE UPDATE ON "${table}" WHEN NEW.name LIKE 'bad%' BEGIN SELECT RAISE(ABORT, 'refused: a bad name'); END;`
          : 'DROP TRIGGER refuse_i; DROP TRIGGER refuse_u;',
      ),
    hide: async (table, hidden) =>
      run(
        hidden
          ? `ALTER TABLE "${table}" RENAME TO "${table}_away"`
          : `ALTER TABLE "${table}_away" RENAME TO "${table}"`,
      ),
    tamper: async (table, where, column, value) => {
      const d = db();
      d.prepare(`UPDATE "${table}" SET "${column}" = ? WHERE "${where.column}" = ?`).run(value, where.id);
      d.close();
    },
  };
}

export function postgresSide(client: pg.Client, schema: string, pipelineId: string): TargetSide {
  const nameColumn = async (table: string) =>
    (
      await client.query<{ column_name: string }>(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 AND lower(column_name) = 'name'",
        [schema, table],
      )
    ).rows[0]?.column_name ?? 'name';
  return {
    open: async () => new PostgresTarget({ ...POSTGRES, schema }, pipelineId),
    rows: async (table) => (await client.query(`SELECT * FROM "${schema}"."${table}"`)).rows as Row[],
    columns: async (table) => {
      const found = await client.query<{ column_name: string }>(
        'SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position',
        [schema, table],
      );
      return found.rows.length === 0 ? null : found.rows.map((c) => c.column_name.toLowerCase());
    },
    refuseBad: async (table, on) => {
      if (!on) {
        await client.query(`DROP TRIGGER refuse_bad ON "${schema}"."${table}"`);
        return;
      }
      const column = await nameColumn(table);
      await client.query(`CREATE OR REPLACE FUNCTION "${schema}".refuse_bad() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW."${column}" LIKE 'bad%' THEN RAISE EXCEPTION 'refused: a bad name'; END IF; RETURN NEW; END $$`);
      await client.query(
        `CREATE TRIGGER refuse_bad BEFORE INSERT OR UPDATE ON "${schema}"."${table}" FOR EACH ROW EXECUTE FUNCTION "${schema}".refuse_bad()`,
      );
    },
    hide: async (table, hidden) => {
      const [from, to] = hidden ? [table, `${table}_away`] : [`${table}_away`, table];
      await client.query(`ALTER TABLE "${schema}"."${from}" RENAME TO "${to}"`);
    },
    tamper: async (table, where, column, value) => {
      await client.query(`UPDATE "${schema}"."${table}" SET "${column}" = $1 WHERE "${where.column}" = $2`, [
        value,
        where.id,
      ]);
    },
  };
}

/** Every source kind into every target kind, as the runner suites run their failures. */
export const SOURCE_TARGET_PAIRS = [
  ['change-tracking', 'sqlite'],
  ['change-tracking', 'postgresql'],
  ['journal', 'sqlite'],
  ['journal', 'postgresql'],
] as const;
export type SourceTargetPair = (typeof SOURCE_TARGET_PAIRS)[number];

/** The PostgreSQL schema a pipeline's target side writes into: its own, for this process. */
export const targetSchemaOf = (pipelineId: string) => `${pipelineId}_${process.pid}`;

/** A fresh target side of the kind for a pipeline (PostgreSQL: its schema dropped first, if there). */
export async function targetSideFor(
  kind: 'sqlite' | 'postgresql',
  client: pg.Client,
  pipelineId: string,
): Promise<TargetSide> {
  if (kind === 'sqlite') return sqliteSide(pipelineId);
  const schema = targetSchemaOf(pipelineId);
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  return postgresSide(client, schema, pipelineId);
}
