// The raw insert rate of rows into each target, measured in the same run as the runner's figures:
// the ratio of the runner's changes/s to this is the figure that matters.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';

export const PG = { host: '127.0.0.1', port: 5432, database: 'test', user: process.env.PGUSER ?? 'postgres' };

/** A row of the benchmark tables: id, name, amount (2 decimals), timestamp. */
export type BenchRow = [number, string, string, string];

/** `count` rows: ids from 0, names, amounts with two decimals, one timestamp `at`. */
export const benchRows = (count: number, at: string): BenchRow[] =>
  Array.from({ length: count }, (_, i): BenchRow => [
    i,
    `customer ${i}`,
    ((i % 10_000) / 100).toFixed(2),
    at,
  ]);

export async function timedRate(count: number, work: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await work();
  return Math.round(count / ((performance.now() - start) / 1000));
}

/** Rows a multi-row insert takes in the raw SQLite write: the engine's own measured best (32). */
const SQLITE_RUN = 32;

/**
 * One transaction into a new SQLite file in `dir`: one prepared INSERT a row, or (`run` > 1) one
 * prepared INSERT of `run` rows at a time and a single-row one for the rest.
 */
export const rawSqliteWriteRate = (dir: string, rows: readonly BenchRow[], run = 1) =>
  timedRate(rows.length, async () => {
    const db = new Database(join(dir, `raw-${process.hrtime.bigint()}.sqlite`));
    db.pragma('journal_mode = WAL');
    db.exec(
      'CREATE TABLE big (Id INTEGER PRIMARY KEY, Name TEXT NOT NULL, Amount TEXT NOT NULL, At TEXT NOT NULL)',
    );
    const one = db.prepare('INSERT INTO big VALUES (?, ?, ?, ?)');
    const many = db.prepare(`INSERT INTO big VALUES ${Array<string>(run).fill('(?, ?, ?, ?)').join(', ')}`);
    const params = Array<unknown>(run * 4);
    db.transaction(() => {
      let at = 0;
      for (; run > 1 && at + run <= rows.length; at += run) {
        for (let j = 0; j < run; j++) {
          const r = rows[at + j] as BenchRow;
          params[j * 4] = r[0];
          params[j * 4 + 1] = r[1];
          params[j * 4 + 2] = r[2];
          params[j * 4 + 3] = r[3];
        }
        many.run(params);
      }
      for (; at < rows.length; at++) one.run(...(rows[at] as BenchRow));
    })();
    db.close();
  });

/**
 * The raw SQLite anchor: the faster of a prepared single-row insert and multi-row inserts of 32, both
 * in one transaction, measured in turn. The engine writes runs of rows in one statement, so an anchor
 * of single-row inserts alone was one the engine beat (issue 58).
 */
export async function rawSqliteRate(dir: string, rows: readonly BenchRow[]): Promise<number> {
  const single = await rawSqliteWriteRate(dir, rows);
  const runs = await rawSqliteWriteRate(dir, rows, SQLITE_RUN);
  return Math.max(single, runs);
}

/** Multi-row inserts of 1000 in one transaction into a new table of `schema` (which must exist). */
export async function rawPostgresRate(schema: string, rows: readonly BenchRow[]): Promise<number> {
  const client = new pg.Client(PG);
  await client.connect();
  try {
    const table = `"${schema}"."raw_${process.hrtime.bigint()}"`;
    return await timedRate(rows.length, async () => {
      await client.query(
        `CREATE TABLE ${table} (Id integer PRIMARY KEY, Name varchar(50), Amount numeric(12,2), At timestamp(6))`,
      );
      await client.query('BEGIN');
      for (let from = 0; from < rows.length; from += 1000) {
        const chunk = rows.slice(from, from + 1000);
        const marks = chunk.map((_, i) => `($${i * 4 + 1}, $${i * 4 + 2}, $${i * 4 + 3}, $${i * 4 + 4})`);
        await client.query(`INSERT INTO ${table} VALUES ${marks.join(', ')}`, chunk.flat());
      }
      await client.query('COMMIT');
    });
  } finally {
    await client.end();
  }
}

/** COPY FROM STDIN (text format) in one transaction into a new table of `schema` (which must exist). */
export async function rawPostgresCopyRate(schema: string, rows: readonly BenchRow[]): Promise<number> {
  const client = new pg.Client(PG);
  await client.connect();
  try {
    const table = `"${schema}"."copy_${process.hrtime.bigint()}"`;
    return await timedRate(rows.length, async () => {
      await client.query(
        `CREATE TABLE ${table} (Id integer PRIMARY KEY, Name varchar(50), Amount numeric(12,2), At timestamp(6))`,
      );
      await client.query('BEGIN');
      const lines = function* () {
        for (let from = 0; from < rows.length; from += 1000)
          yield rows
            .slice(from, from + 1000)
            .map((r) => `${r.join('\t')}\n`)
            .join('');
      };
      await pipeline(Readable.from(lines()), client.query(copyFrom(`COPY ${table} FROM STDIN`)));
      await client.query('COMMIT');
    });
  } finally {
    await client.end();
  }
}

export async function createPostgresSchema(schema: string): Promise<void> {
  const client = new pg.Client(PG);
  await client.connect();
  await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  await client.end();
}

export async function dropPostgresSchema(schema: string): Promise<void> {
  const client = new pg.Client(PG);
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
}

export const ratio = (runner: number, raw: number) => Math.round((runner / raw) * 1000) / 1000;

/** The middle one of a few rounds' figures. */
export const median = (values: readonly number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/**
 * Rounds of `count` new changes (`addChanges` makes round n's), each read by both pipelines: a first to
 * warm up (the JIT compiling the simulator, the driver and the targets: a night's backlog runs long
 * past it), then the median of three (single runs on a shared 2-core machine vary by a quarter).
 */
export async function catchUpRounds(
  count: number,
  addChanges: (round: number) => Promise<void>,
  catchUp: { sqlite: () => Promise<void>; postgres: () => Promise<void> },
): Promise<{ sqlite: number; postgres: number }> {
  const sqlite: number[] = [];
  const postgres: number[] = [];
  for (let round = 0; round <= 3; round++) {
    await addChanges(round);
    const toSqlite = await timedRate(count, catchUp.sqlite);
    const toPostgres = await timedRate(count, catchUp.postgres);
    if (round === 0) continue;
    sqlite.push(toSqlite);
    postgres.push(toPostgres);
  }
  return { sqlite: median(sqlite), postgres: median(postgres) };
}

/** A key-ordered scan of a target table in SQLite: every row read, nothing done with it. */
export function rawSqliteScanRate(path: string, table: string, key: string): Promise<number> {
  const db = new Database(path, { readonly: true });
  try {
    const started = performance.now();
    let rows = 0;
    for (const _ of db.prepare(`SELECT * FROM "${table}" ORDER BY "${key}"`).iterate()) rows++;
    return Promise.resolve(Math.round(rows / ((performance.now() - started) / 1000)));
  } finally {
    db.close();
  }
}

/** A key-ordered scan of a target table in PostgreSQL, in keyset chunks of `chunk` rows. */
export async function rawPostgresScanRate(
  schema: string,
  table: string,
  key: string,
  chunk: number,
): Promise<number> {
  const client = new pg.Client(PG);
  await client.connect();
  try {
    const started = performance.now();
    let rows = 0;
    let cursor: unknown = null;
    for (;;) {
      const { rows: got } = await client.query<Record<string, unknown>>(
        cursor === null
          ? `SELECT * FROM "${schema}"."${table}" ORDER BY "${key}" LIMIT ${chunk}`
          : `SELECT * FROM "${schema}"."${table}" WHERE "${key}" > $1 ORDER BY "${key}" LIMIT ${chunk}`,
        cursor === null ? [] : [cursor],
      );
      rows += got.length;
      if (got.length < chunk) break;
      cursor = got.at(-1)?.[key];
    }
    return Math.round(rows / ((performance.now() - started) / 1000));
  } finally {
    await client.end();
  }
}
