// The embedded target: one SQLite file, no set-up. Tables are created from the source's columns
// (docs/runner.md has the type mapping), changes go in as prepared statements in one transaction with
// the checkpoint, so a batch is all there or not at all.
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DroppedColumns } from '../../../shared/agents/common';
import type { Change, Checkpoint, ColumnShape, ErrorVerdict, Row, RowValue } from '../source';
import {
  CHECKPOINT_TABLE,
  FencedOut,
  fenceBroken,
  type Fence,
  type Reconciled,
  type Retyped,
  type Target,
  type TargetReadBack,
  type TargetTable,
  unpreparedTable,
} from '../target';
import { affinityOf, portable, portableWriter } from '../targetValues';
import { sqliteReadBack } from './readBack';
import { sqliteFold } from '../../../shared/names';
import { comparedColumns, openIndexName, writtenColumns } from '../history';

/** The scratch table a rebuild makes beside a table: a name no entity may take (sqliteNames). */
export const REBUILD_SUFFIX = '__rebuild';

const q = (name: string) => `"${name.replaceAll('"', '""')}"`;

const SQLITE_TYPES = {
  integer: 'INTEGER',
  boolean: 'INTEGER',
  decimal: 'TEXT',
  float: 'REAL',
  text: 'TEXT',
  binary: 'BLOB',
  datetime: 'TEXT',
  date: 'TEXT',
  time: 'TEXT',
  datetimeoffset: 'TEXT',
  uuid: 'TEXT',
  // EWKB (targetValues.ts): SpatiaLite's GeomFromEWKB reads it.
  spatial: 'BLOB',
} as const;

export const sqliteType = (c: ColumnShape): string => SQLITE_TYPES[affinityOf(c)];

/** A portable value as better-sqlite3 binds it: booleans as 1/0, bytes as a Buffer. */
function sqliteValue(p: RowValue): unknown {
  if (typeof p === 'boolean') return p ? 1 : 0;
  if (p instanceof Uint8Array) return Buffer.from(p);
  return p;
}

const bindable = (c: ColumnShape, v: RowValue): unknown => sqliteValue(portable(c, v));

/** The binder of one column, its conversion decided once (portableWriter). */
function binderOf(c: ColumnShape): Binder {
  const write = portableWriter(c);
  return (v) => {
    const p = write(v);
    return typeof p === 'string' || typeof p === 'number' || p === null ? p : sqliteValue(p);
  };
}

/** A table's statements and binders, made once per table layout and reused by every batch. */
interface Statements {
  upsert: Database.Statement;
  /** The same upsert of `perRun` rows at once: SQLite steps one statement instead of many. */
  upsertRun: Database.Statement;
  perRun: number;
  runParams: unknown[];
  remove: Database.Statement;
  names: string[];
  binders: Binder[];
  params: unknown[];
  keyBinders: Binder[];
  keyParams: unknown[];
}

/** A history table's writes, each bound with the transaction's time first (docs/shaping.md). */
interface HistoryStatements {
  /** Ends the current version of a key when its values differ from the row's: time, key, values. */
  close: Database.Statement | null;
  /** Opens a version unless one is current: time, the row's values, key. */
  open: Database.Statement;
  /** Ends the current version of a key (a delete): time, key. */
  end: Database.Statement;
  keyBinders: Binder[];
  written: string[];
  writtenBinders: Binder[];
  compared: string[];
  comparedBinders: Binder[];
}

type Binder = (v: RowValue) => unknown;

function fill(
  params: unknown[],
  binders: readonly Binder[],
  names: readonly string[],
  row: Row,
  at = 0,
): unknown[] {
  for (let i = 0; i < names.length; i++)
    params[at + i] = (binders[i] as Binder)(row[names[i] as string] ?? null);
  return params;
}

/**
 * Rows one multi-row upsert takes, within SQLite's 32,766 bound parameters. Measured on 100,000 rows of
 * four columns: one row a statement 0.68 million rows/s, 32 rows 1.15 million (64 and 128 no better).
 */
const upsertRunRows = (columns: number) => Math.max(1, Math.min(32, Math.floor(32_766 / columns)));

interface SqliteColumn {
  name: string;
  notnull: 0 | 1;
  pk: number;
}
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Another connection holding the file's write lock past the busy timeout: it lets go. */
/** A refusal of the rows' values: a constraint (NOT NULL, CHECK, UNIQUE, a trigger's RAISE), a type, a size. */
export function sqliteRefusesRow(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^SQLITE_(CONSTRAINT|MISMATCH|TOOBIG)/.test(code);
}

export function classifySqliteError(error: unknown): ErrorVerdict {
  const code = (error as { code?: unknown }).code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' ? 'transient' : undefined;
}

/** The target's UTC time as SQLite's strftime('%Y-%m-%d %H:%M:%f') writes it: a history's times. */
const appliedAt = () => new Date().toISOString().replace('T', ' ').slice(0, 23);

/** Rows written between two turns of the event loop within one transaction (a few milliseconds). */
const ROWS_PER_TURN = 2000;

export class SqliteTarget implements Target {
  readonly classifyError = classifySqliteError;
  readonly refusesRow = sqliteRefusesRow;
  readonly description: string;
  readonly softDeletes = true;
  readonly keepsHistory = true;
  readonly shards = true;
  readonly foldName = sqliteFold;
  readonly readBack: TargetReadBack;
  private readonly db: Database.Database;
  private tables = new Map<string, TargetTable>();
  /** The last write, which the next one waits for (exclusive). */
  private writing: Promise<void> = Promise.resolve();
  /** By source table; a table given again (prepare, reconcile) gets new ones. */
  private statements = new Map<string, { table: TargetTable; statements: Statements }>();
  private history = new Map<string, { table: TargetTable; statements: HistoryStatements }>();

  constructor(
    path: string,
    private readonly pipelineId: string,
  ) {
    mkdirSync(dirname(path), { recursive: true });
    // A file another writer holds answers SQLITE_BUSY at once (retried with backoff by the runner)
    // rather than blocking the engine's event loop while it waits.
    this.db = new Database(path, { timeout: 50 });
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.description = `SQLite file ${path}`;
    this.readBack = sqliteReadBack(this.db, bindable);
  }

  async prepare(tables: readonly TargetTable[]): Promise<void> {
    this.db
      .exec(`CREATE TABLE IF NOT EXISTS ${q(CHECKPOINT_TABLE)} (pipeline_id TEXT NOT NULL, source_table TEXT NOT NULL,
      position TEXT NOT NULL, updated_at TEXT NOT NULL, PRIMARY KEY (pipeline_id, source_table))`);
    for (const t of tables) {
      this.tables.set(t.source, t);
      // A table whose mode changed to or from history is made again: its rows are copied again anyway.
      if (this.isHistoryTable(t) !== (t.history !== undefined))
        this.db.exec(`DROP TABLE IF EXISTS ${q(t.name)}`);
      const columns = t.columns.map((c) => `${q(c.name)} ${sqliteType(c)}${c.nullable ? '' : ' NOT NULL'}`);
      // A history table holds many rows per key: one current version each, kept so by the index.
      const key = t.history ? '' : `, PRIMARY KEY (${t.key.map(q).join(', ')})`;
      this.db.exec(`CREATE TABLE IF NOT EXISTS ${q(t.name)} (${columns.join(', ')}${key})`);
      this.openIndex(t);
    }
  }

  /** Whether the table at the target is one this target keeps versions in; undefined when it is none. */
  private isHistoryTable(t: TargetTable): boolean | undefined {
    const existing = this.db.prepare(`PRAGMA table_info(${q(t.name)})`).all() as SqliteColumn[];
    if (existing.length === 0) return t.history !== undefined;
    return (
      this.db
        .prepare(`SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ? AND tbl_name = ?`)
        .get(openIndexName(t), t.name) !== undefined
    );
  }

  private openIndex(t: TargetTable): void {
    if (!t.history) return;
    this.db.exec(
      `CREATE UNIQUE INDEX IF NOT EXISTS ${q(openIndexName(t))} ON ${q(t.name)} (${t.key.map(q).join(', ')}) WHERE ${q(t.history.to)} IS NULL`,
    );
  }

  async dropTable(t: TargetTable): Promise<void> {
    this.db.exec(`DROP TABLE IF EXISTS ${q(t.name)}`);
    this.tables.delete(t.source);
  }

  async columnsOf(t: TargetTable): Promise<string[] | null> {
    const existing = this.db.prepare(`PRAGMA table_info(${q(t.name)})`).all() as SqliteColumn[];
    return existing.length === 0 ? null : existing.map((c) => c.name);
  }

  async reconcile(
    t: TargetTable,
    dropped: DroppedColumns,
    retyped: readonly Retyped[] = [],
  ): Promise<Reconciled> {
    this.tables.set(t.source, t);
    const existing = this.db.prepare(`PRAGMA table_info(${q(t.name)})`).all() as SqliteColumn[];
    if (existing.length === 0) return { added: [], done: [] };
    const done: string[] = [];
    const added: string[] = [];
    const remade: string[] = [];
    this.db.transaction(() => {
      // A type whose affinity changed: SQLite changes no column's type in place, so it is made again.
      for (const r of retyped) {
        const c = t.columns.find((x) => x.name === r.name);
        if (!c || sqliteType({ ...c, sourceType: r.from }) === sqliteType(c)) continue;
        this.db.exec(`ALTER TABLE ${q(t.name)} DROP COLUMN ${q(c.name)}`);
        this.db.exec(`ALTER TABLE ${q(t.name)} ADD COLUMN ${q(c.name)} ${sqliteType(c)}`);
        remade.push(c.name);
        done.push(
          `column ${c.name} made again as ${sqliteType(c)} (was ${sqliteType({ ...c, sourceType: r.from })})`,
        );
      }
      for (const c of t.columns)
        if (!existing.some((e) => e.name === c.name)) {
          this.db.exec(`ALTER TABLE ${q(t.name)} ADD COLUMN ${q(c.name)} ${sqliteType(c)}`);
          added.push(c.name);
          done.push(`column ${c.name} added (${sqliteType(c)})`);
        }
      const gone = existing.filter((e) => e.pk === 0 && !t.columns.some((c) => c.name === e.name));
      if (dropped === 'drop')
        for (const g of gone) {
          this.db.exec(`ALTER TABLE ${q(t.name)} DROP COLUMN ${q(g.name)}`);
          done.push(`column ${g.name} dropped`);
        }
      // SQLite changes no column's NOT NULL in place: the table is rebuilt without it.
      const relax = existing.filter(
        (e) =>
          e.notnull === 1 &&
          e.pk === 0 &&
          (t.columns.find((c) => c.name === e.name)?.nullable ?? dropped === 'keep'),
      );
      if (relax.length) {
        this.rebuildNullable(
          t.name,
          relax.map((r) => r.name),
        );
        for (const r of relax)
          done.push(
            `column ${r.name} ${t.columns.some((c) => c.name === r.name) ? 'made nullable' : 'kept, made nullable'}`,
          );
      }
      // A rebuild leaves the table's indexes behind.
      this.openIndex(t);
    })();
    return remade.length ? { added, done, remade } : { added, done };
  }

  /** The table again, with its rows, without NOT NULL on `columns` (sqlite.org's "other kinds of table schema changes"). */
  private rebuildNullable(table: string, columns: string[]): void {
    const row = this.db
      .prepare(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?`)
      .get(table) as { sql: string } | undefined;
    if (!row) return;
    let sql = row.sql;
    for (const name of columns) sql = sql.replace(new RegExp(`(${escape(q(name))} \\w+) NOT NULL`), '$1');
    const scratch = `${table}${REBUILD_SUFFIX}`;
    this.db.exec(
      sql.replace(/^CREATE TABLE (IF NOT EXISTS )?("(?:[^"]|"")+"|\S+)/, `CREATE TABLE ${q(scratch)}`),
    );
    this.db.exec(`INSERT INTO ${q(scratch)} SELECT * FROM ${q(table)}`);
    this.db.exec(`DROP TABLE ${q(table)}`);
    this.db.exec(`ALTER TABLE ${q(scratch)} RENAME TO ${q(table)}`);
  }

  async loadCheckpoint(): Promise<Checkpoint> {
    const rows = this.db
      .prepare(`SELECT source_table, position FROM ${q(CHECKPOINT_TABLE)} WHERE pipeline_id = ?`)
      .all(this.pipelineId) as { source_table: string; position: string }[];
    return Object.fromEntries(rows.map((r) => [r.source_table, r.position]));
  }

  private saveCheckpoint(checkpoint: Checkpoint): void {
    const upsert = this.db.prepare(
      `INSERT INTO ${q(CHECKPOINT_TABLE)} (pipeline_id, source_table, position, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (pipeline_id, source_table) DO UPDATE SET position = excluded.position, updated_at = excluded.updated_at`,
    );
    const at = new Date().toISOString();
    for (const [table, position] of Object.entries(checkpoint))
      upsert.run(this.pipelineId, table, position, at);
  }

  /** An upsert of `rows` rows: in order, a later row of a key updating the earlier one. */
  private upsert(t: TargetTable, rows = 1): Database.Statement {
    const cols = t.columns.map((c) => q(c.name));
    const rest = t.columns.filter((c) => !t.key.includes(c.name));
    const tuple = `(${cols.map(() => '?').join(', ')})`;
    return this.db.prepare(
      `INSERT INTO ${q(t.name)} (${cols.join(', ')}) VALUES ${Array<string>(rows).fill(tuple).join(', ')}
       ON CONFLICT (${t.key.map(q).join(', ')}) DO ${rest.length ? `UPDATE SET ${rest.map((c) => `${q(c.name)} = excluded.${q(c.name)}`).join(', ')}` : 'NOTHING'}`,
    );
  }

  private statementsOf(t: TargetTable): Statements {
    const known = this.statements.get(t.source);
    if (known && known.table === t) return known.statements;
    const perRun = upsertRunRows(t.columns.length);
    const statements: Statements = {
      upsert: this.upsert(t),
      upsertRun: this.upsert(t, perRun),
      perRun,
      runParams: Array<unknown>(perRun * t.columns.length).fill(null),
      remove: this.db.prepare(
        t.softDelete
          ? `UPDATE ${q(t.name)} SET ${q(t.softDelete.flag)} = 1, ${q(t.softDelete.at)} = strftime('%Y-%m-%d %H:%M:%f', 'now') WHERE ${t.key.map((k) => `${q(k)} = ?`).join(' AND ')}`
          : `DELETE FROM ${q(t.name)} WHERE ${t.key.map((k) => `${q(k)} = ?`).join(' AND ')}`,
      ),
      names: t.columns.map((c) => c.name),
      binders: t.columns.map(binderOf),
      params: t.columns.map(() => null),
      keyBinders: t.key.map((k) => binderOf(t.columns.find((x) => x.name === k) as ColumnShape)),
      keyParams: t.key.map(() => null),
    };
    this.statements.set(t.source, { table: t, statements });
    return statements;
  }

  private historyStatementsOf(t: TargetTable, h: { from: string; to: string }): HistoryStatements {
    const known = this.history.get(t.source);
    if (known && known.table === t) return known.statements;
    const statements = this.historyStatements(t, h);
    this.history.set(t.source, { table: t, statements });
    return statements;
  }

  private historyStatements(t: TargetTable, h: { from: string; to: string }): HistoryStatements {
    const current = `${t.key.map((k) => `${q(k)} = ?`).join(' AND ')} AND ${q(h.to)} IS NULL`;
    const written = writtenColumns(t);
    const compared = comparedColumns(t);
    return {
      // `IS`: SQLite's comparison that takes two nulls for equal.
      close:
        compared.length === 0
          ? null
          : this.db.prepare(
              `UPDATE ${q(t.name)} SET ${q(h.to)} = ? WHERE ${current} AND NOT (${compared.map((c) => `${q(c.name)} IS ?`).join(' AND ')})`,
            ),
      open: this.db.prepare(
        `INSERT INTO ${q(t.name)} (${[...written.map((c) => q(c.name)), q(h.from)].join(', ')})
         SELECT ${[...written, h.from].map(() => '?').join(', ')} WHERE NOT EXISTS (SELECT 1 FROM ${q(t.name)} WHERE ${current})`,
      ),
      end: this.db.prepare(`UPDATE ${q(t.name)} SET ${q(h.to)} = ? WHERE ${current}`),
      keyBinders: t.key.map((k) => binderOf(t.columns.find((x) => x.name === k) as ColumnShape)),
      written: written.map((c) => c.name),
      writtenBinders: written.map(binderOf),
      compared: compared.map((c) => c.name),
      comparedBinders: compared.map(binderOf),
    };
  }

  /** A row written to a history table at `now`: its current version ended if it differs, one opened. */
  private writeVersion(h: HistoryStatements, t: TargetTable, row: Row, now: string): void {
    const key = t.key.map((k, i) => (h.keyBinders[i] as Binder)(row[k] ?? null));
    h.close?.run(now, ...key, ...h.compared.map((n, i) => (h.comparedBinders[i] as Binder)(row[n] ?? null)));
    h.open.run(...h.written.map((n, i) => (h.writtenBinders[i] as Binder)(row[n] ?? null)), now, ...key);
  }

  async clear(t: TargetTable, checkpoint: Checkpoint): Promise<void> {
    await this.exclusive(async () => {
      this.db.transaction(() => {
        // A history keeps its versions: a copy ends the current ones, and opens those it reads.
        if (t.history) {
          const shard = t.shard ? ` AND ${q(t.shard.column)} = ?` : '';
          this.db
            .prepare(
              `UPDATE ${q(t.name)} SET ${q(t.history.to)} = ? WHERE ${q(t.history.to)} IS NULL${shard}`,
            )
            .run(appliedAt(), ...(t.shard ? [t.shard.value] : []));
          this.saveCheckpoint(checkpoint);
          return;
        }
        // A shard's member empties its own rows only: the other members' stay.
        if (t.shard)
          this.db.prepare(`DELETE FROM ${q(t.name)} WHERE ${q(t.shard.column)} = ?`).run(t.shard.value);
        else this.db.prepare(`DELETE FROM ${q(t.name)}`).run();
        this.saveCheckpoint(checkpoint);
      })();
    });
  }

  async apply(changes: readonly Change[], checkpoint: Checkpoint, fence?: Fence): Promise<void> {
    // Each change in order, one prepared statement each: the rows end as netChanges() would leave
    // them, without a map of the batch's keys (statements cost SQLite no more than the map costs here).
    await this.writeTransaction(checkpoint, async () => {
      if (fence) {
        const read = this.db.prepare(
          `SELECT position FROM ${q(CHECKPOINT_TABLE)} WHERE pipeline_id = ? AND source_table = ?`,
        );
        const broken = fenceBroken(
          (t) => (read.get(this.pipelineId, t) as { position: string } | undefined)?.position ?? null,
          fence,
        );
        if (broken) throw new FencedOut(broken);
      }
      let turn = 0;
      const now = appliedAt();
      for (let i = 0; i < changes.length;) {
        const c = changes[i] as Change;
        const t = this.tables.get(c.table);
        if (!t) throw unpreparedTable(c.table);
        if (t.history) {
          const h = this.historyStatementsOf(t, t.history);
          if (c.op === 'delete' || !c.row)
            h.end.run(now, ...t.key.map((k, j) => (h.keyBinders[j] as Binder)(c.key[k] ?? null)));
          else this.writeVersion(h, t, c.row, now);
          i += 1;
          continue;
        }
        const s = this.statementsOf(t);
        // One parameter array per statement, refilled: better-sqlite3 binds it before run() returns.
        const run = c.op === 'delete' || !c.row ? 0 : this.upsertsAhead(changes, i, s.perRun);
        if (run === 0) {
          s.remove.run(fill(s.keyParams, s.keyBinders, t.key, c.key));
          i += 1;
        } else {
          this.upsertRun(s, changes, i, run, (x) => x.row as Row);
          i += run;
        }
        if (i - turn >= ROWS_PER_TURN) {
          turn = i;
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
    });
  }

  async applyCopy(table: TargetTable, rows: readonly Row[], checkpoint: Checkpoint): Promise<void> {
    const t = this.tables.get(table.source);
    if (!t) throw unpreparedTable(table.source);
    await this.writeTransaction(checkpoint, async () => {
      if (t.history) {
        const h = this.historyStatementsOf(t, t.history);
        const now = appliedAt();
        for (const row of rows) this.writeVersion(h, t, row, now);
        return;
      }
      const s = this.statementsOf(t);
      let turn = 0;
      for (let at = 0; at < rows.length;) {
        const run = Math.min(s.perRun, rows.length - at);
        this.upsertRun(s, rows, at, run, (r) => r);
        at += run;
        if (at - turn >= ROWS_PER_TURN) {
          turn = at;
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
    });
  }

  /**
   * The upserts of `run` items from `at` on: one statement of perRun rows, or a shorter run one row a
   * statement (its rows are not looked through again).
   */
  private upsertRun<T>(
    s: Statements,
    items: readonly T[],
    at: number,
    run: number,
    rowOf: (item: T) => Row,
  ): void {
    if (run === s.perRun) {
      const width = s.names.length;
      for (let j = 0; j < run; j++)
        fill(s.runParams, s.binders, s.names, rowOf(items[at + j] as T), j * width);
      s.upsertRun.run(s.runParams);
      return;
    }
    for (let j = 0; j < run; j++) s.upsert.run(fill(s.params, s.binders, s.names, rowOf(items[at + j] as T)));
  }

  /**
   * `write`, then the checkpoint, in one transaction. BEGIN IMMEDIATE: a fence's read and the writes
   * hold the file's write lock together. The transaction gives the event loop a turn every few
   * thousand rows, so the source's next chunk or batch, read meanwhile, is taken in while this one is
   * written; nothing else writes meanwhile (exclusive).
   */
  private writeTransaction(checkpoint: Checkpoint, write: () => Promise<void>): Promise<void> {
    return this.exclusive(async () => {
      this.db.prepare('BEGIN IMMEDIATE').run();
      try {
        await write();
        this.saveCheckpoint(checkpoint);
        this.db.prepare('COMMIT').run();
      } catch (error) {
        if (this.db.inTransaction) this.db.prepare('ROLLBACK').run();
        throw error;
      }
    });
  }

  /** How many changes from `at` on (up to `most`) are upserts of the same table, one after the other. */
  private upsertsAhead(changes: readonly Change[], at: number, most: number): number {
    const table = (changes[at] as Change).table;
    let n = 0;
    while (n < most) {
      const c = changes[at + n];
      if (!c || c.table !== table || c.op === 'delete' || !c.row) break;
      n++;
    }
    return n;
  }

  /** Runs `work` after every write before it: a transaction that yields is never entered by another. */
  private exclusive(work: () => Promise<void>): Promise<void> {
    const mine = this.writing.catch(() => undefined).then(work);
    this.writing = mine;
    return mine;
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
