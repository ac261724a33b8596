// PostgreSQL as a target, through `pg`: tables created from the source's columns (their types in
// columnTypes.ts; docs/runner.md has the mapping), snapshots and batches written as multi-row
// statements inside one transaction together with the checkpoint.
import pg from 'pg';
import type { DroppedColumns } from '../../../shared/agents/common';
import type { NulCharacter, PreciseTimes } from '../../../shared/agents/targets';
import { keyCursor, type Change, type Checkpoint, type Row, type RowValue } from '../source';
import { comparedColumns, openIndexName } from '../history';
import {
  FencedOut,
  fenceBroken,
  type Fence,
  CHECKPOINT_TABLE,
  netChanges,
  type Reconciled,
  type Retyped,
  type Target,
  keyColumnsOf,
  paramSlices,
  type TargetReadBack,
  type TargetTable,
  unpreparedTable,
} from '../target';
import { bindable, binderOf, pastNative, postgresType, widens } from './columnTypes';
import { copyLineOf, copyRows, type CopyLine } from './copy';
import { keyTuples, MAX_PARAMS } from './params';
import { postgresReadBack } from './readBack';
import { quoted as q } from './identifier';
import { postgresName } from '../../../shared/names';
import { classifyPostgresError, postgresRefusesRow } from './errors';

export interface PostgresTargetOptions {
  host: string;
  port: number;
  database: string;
  user: string;
  password?: string;
  /** The schema the tables go in; created when absent. */
  schema: string;
  maxConnections?: number;
  /** Times PostgreSQL cannot hold (past µs, an offset): native types, cut, or exact ISO 8601 text. */
  preciseTimes?: PreciseTimes;
  /** U+0000 in text, which PostgreSQL refuses: the row kept aside (the default), or the character replaced. */
  nulCharacter?: NulCharacter;
}

const NUL_REPLACEMENTS: Record<Exclude<NulCharacter, 'keep-row-aside'>, string> = {
  'U+FFFD': '\uFFFD',
  space: ' ',
  remove: '',
};

/** The staging tables' names: temporary, but a name no entity may take either (postgresqlNames). */
export const STAGE_PREFIX = 'cdc_stage_';

/** Rows of a batch from which COPY beats multi-row INSERTs. */
const COPY_MIN_ROWS = 200;
/** SQLSTATE unique_violation. */
const UNIQUE_VIOLATION = '23505';

type Binder = (v: RowValue) => unknown;

interface Writer {
  columns: string[];
  onConflict: string;
  binders: Binder[];
  line: CopyLine<Row>;
}

export class PostgresTarget implements Target {
  readonly classifyError = classifyPostgresError;
  readonly refusesRow = postgresRefusesRow;
  readonly description: string;
  readonly softDeletes = true;
  readonly keepsHistory = true;
  readonly shards = true;
  readonly foldName = postgresName;
  readonly readBack: TargetReadBack;
  private readonly pool: pg.Pool;
  private tables = new Map<string, TargetTable>();
  private writers = new Map<string, { table: TargetTable; writer: Writer }>();
  /** Staging tables made on this target (their names, unique per transaction). */
  private stages = 0;

  constructor(
    private readonly o: PostgresTargetOptions,
    private readonly pipelineId: string,
  ) {
    this.pool = new pg.Pool({
      host: o.host,
      port: o.port,
      database: o.database,
      user: o.user,
      password: o.password,
      max: o.maxConnections ?? 4,
    });
    // An idle client's lost connection must not crash the process; the next query reports it.
    this.pool.on('error', () => undefined);
    this.description = `PostgreSQL ${o.host}:${o.port}/${o.database} schema ${o.schema}`;
    this.readBack = postgresReadBack(
      this.pool,
      (table) => this.tableName(table),
      (c) => postgresType(c, o.preciseTimes),
      (c, v) => bindable(c, v, o.preciseTimes),
      // Cut to the microsecond on the way in (bindable), unless kept as exact text.
      (c) => (o.preciseTimes === 'text' && pastNative(c) ? Infinity : 6),
    );
  }

  /** An entity's table, in its own schema when it names one (nameRules keeps two from meeting). */
  private tableName(t: Pick<TargetTable, 'schema' | 'name'>) {
    return `${q(t.schema ?? this.o.schema)}.${q(t.name)}`;
  }

  private get checkpointTable() {
    return this.tableName({ name: CHECKPOINT_TABLE });
  }

  /**
   * A CREATE … IF NOT EXISTS, once more when another session created the object between the check and
   * the create (PostgreSQL then refuses with a unique violation in its catalogue): engines sharing a
   * stream prepare one target at once.
   */
  private async createIfAbsent(statement: string): Promise<void> {
    try {
      await this.pool.query(statement);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code !== UNIQUE_VIOLATION && code !== '42P06' && code !== '42P07') throw error;
      await this.pool.query(statement);
    }
  }

  async prepare(tables: readonly TargetTable[]): Promise<void> {
    for (const schema of new Set([this.o.schema, ...tables.map((t) => t.schema ?? this.o.schema)]))
      await this.createIfAbsent(`CREATE SCHEMA IF NOT EXISTS ${q(schema)}`);
    await this.createIfAbsent(`CREATE TABLE IF NOT EXISTS ${this.checkpointTable} (pipeline_id text NOT NULL,
      source_table text NOT NULL, position text NOT NULL, updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (pipeline_id, source_table))`);
    const historyTables = await this.historyTables(tables);
    for (const t of tables) {
      this.tables.set(t.source, t);
      // A table whose mode changed to or from history is made again: its rows are copied again anyway.
      if (historyTables.get(this.tableName(t)) === (t.history === undefined))
        await this.pool.query(`DROP TABLE IF EXISTS ${this.tableName(t)}`);
      const columns = t.columns.map(
        (c) => `${q(c.name)} ${postgresType(c, this.o.preciseTimes)}${c.nullable ? '' : ' NOT NULL'}`,
      );
      // A history table holds many rows per key: one current version each, kept so by the index.
      const key = t.history ? '' : `, PRIMARY KEY (${t.key.map(q).join(', ')})`;
      await this.createIfAbsent(
        `CREATE TABLE IF NOT EXISTS ${this.tableName(t)} (${columns.join(', ')}${key})`,
      );
      if (t.history)
        await this.createIfAbsent(
          `CREATE UNIQUE INDEX IF NOT EXISTS ${q(openIndexName(t))} ON ${this.tableName(t)} (${t.key.map(q).join(', ')}) WHERE ${q(t.history.to)} IS NULL`,
        );
    }
  }

  /**
   * Of the tables that exist at the target, by qualified name, whether each keeps versions (has the
   * runner's index): one catalogue query for them all, however many tables a pipeline has.
   */
  private async historyTables(tables: readonly TargetTable[]): Promise<Map<string, boolean>> {
    if (tables.length === 0) return new Map();
    const { rows } = await this.pool.query<{ name: string; history: boolean }>(
      `SELECT t.name, EXISTS (SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
         WHERE i.indrelid = to_regclass(t.name) AND c.relname = t.index) AS history
       FROM unnest($1::text[], $2::text[]) AS t (name, index) WHERE to_regclass(t.name) IS NOT NULL`,
      [tables.map((t) => this.tableName(t)), tables.map(openIndexName)],
    );
    return new Map(rows.map((r) => [r.name, r.history]));
  }

  async dropTable(t: TargetTable): Promise<void> {
    await this.pool.query(`DROP TABLE IF EXISTS ${this.tableName(t)}`);
    this.tables.delete(t.source);
  }

  async columnsOf(t: TargetTable): Promise<string[] | null> {
    const { rows } = await this.pool.query<{ name: string }>(
      'SELECT attname AS name FROM pg_attribute WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped ORDER BY attnum',
      [this.tableName(t)],
    );
    return rows.length === 0 ? null : rows.map((r) => r.name);
  }

  async reconcile(
    t: TargetTable,
    dropped: DroppedColumns,
    retyped: readonly Retyped[] = [],
  ): Promise<Reconciled> {
    this.tables.set(t.source, t);
    const client = await this.pool.connect();
    const done: string[] = [];
    const added: string[] = [];
    const remade: string[] = [];
    try {
      const { rows } = await client.query<{ name: string; type: string; notnull: boolean; key: boolean }>(
        `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS notnull,
           COALESCE(a.attnum = ANY (i.indkey), false) AS key
         FROM pg_attribute a LEFT JOIN pg_index i ON i.indrelid = a.attrelid AND i.indisprimary
         WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped`,
        [this.tableName(t)],
      );
      if (rows.length === 0) return { added, done };
      const alter = (what: string) => client.query(`ALTER TABLE ${this.tableName(t)} ${what}`);
      await client.query('BEGIN');
      for (const c of t.columns) {
        const now = rows.find((r) => r.name === c.name);
        const wanted = postgresType(c, this.o.preciseTimes);
        if (!now) {
          await alter(`ADD COLUMN ${q(c.name)} ${wanted}`);
          added.push(c.name);
          done.push(`column ${c.name} added (${wanted})`);
          continue;
        }
        const was = retyped.find((r) => r.name === c.name);
        if (widens(now.type, wanted)) {
          await alter(`ALTER COLUMN ${q(c.name)} TYPE ${wanted}`);
          done.push(`column ${c.name} widened from ${now.type} to ${wanted}`);
        } else if (was && postgresType({ ...c, sourceType: was.from }, this.o.preciseTimes) !== wanted) {
          // Not a widening: the values are not converted here but copied again from the source.
          await alter(
            `ALTER COLUMN ${q(c.name)} DROP NOT NULL, ALTER COLUMN ${q(c.name)} TYPE ${wanted} USING NULL`,
          );
          remade.push(c.name);
          done.push(`column ${c.name} made again as ${wanted} (was ${now.type})`);
          continue;
        }
        if (now.notnull && !now.key && c.nullable) {
          await alter(`ALTER COLUMN ${q(c.name)} DROP NOT NULL`);
          done.push(`column ${c.name} made nullable`);
        }
      }
      for (const gone of rows.filter((r) => !r.key && !t.columns.some((c) => c.name === r.name))) {
        if (dropped === 'drop') {
          await alter(`DROP COLUMN ${q(gone.name)}`);
          done.push(`column ${gone.name} dropped`);
        } else if (gone.notnull) {
          await alter(`ALTER COLUMN ${q(gone.name)} DROP NOT NULL`);
          done.push(`column ${gone.name} kept, made nullable`);
        }
      }
      await client.query('COMMIT');
      return remade.length ? { added, done, remade } : { added, done };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async loadCheckpoint(): Promise<Checkpoint> {
    const { rows } = await this.pool.query<{ source_table: string; position: string }>(
      `SELECT source_table, position FROM ${this.checkpointTable} WHERE pipeline_id = $1`,
      [this.pipelineId],
    );
    return Object.fromEntries(rows.map((r) => [r.source_table, r.position]));
  }

  private async saveCheckpoint(client: pg.PoolClient, checkpoint: Checkpoint): Promise<void> {
    const entries = Object.entries(checkpoint);
    if (entries.length === 0) return;
    const values = entries.map((_, i) => `($1, $${i * 2 + 2}, $${i * 2 + 3}, now())`);
    await client.query(
      `INSERT INTO ${this.checkpointTable} (pipeline_id, source_table, position, updated_at) VALUES ${values.join(', ')}
       ON CONFLICT (pipeline_id, source_table) DO UPDATE SET position = excluded.position, updated_at = excluded.updated_at`,
      [this.pipelineId, ...entries.flat()],
    );
  }

  /** Values whose U+0000 the nulCharacter setting replaced, per source table, since last taken. */
  private replaced = new Map<string, number>();

  /** A binder that replaces U+0000 as the setting says, counting each value it changed. */
  private replacingNul(table: string, bind: Binder): Binder {
    const setting = this.o.nulCharacter ?? 'keep-row-aside';
    if (setting === 'keep-row-aside') return bind;
    const by = NUL_REPLACEMENTS[setting];
    return (v) => {
      const out = bind(v);
      if (typeof out !== 'string' || !out.includes('\u0000')) return out;
      this.replaced.set(table, (this.replaced.get(table) ?? 0) + 1);
      return out.replaceAll('\u0000', by);
    };
  }

  takeReplaced(): Record<string, number> {
    const taken = Object.fromEntries(this.replaced);
    this.replaced.clear();
    return taken;
  }

  /** A table's upsert clause and column binders, made once per table layout. */
  private writerOf(t: TargetTable): Writer {
    const known = this.writers.get(t.source);
    if (known?.table === t) return known.writer;
    const rest = t.columns.filter((c) => !t.key.includes(c.name));
    const binders = t.columns.map((c) => this.replacingNul(t.source, binderOf(c, this.o.preciseTimes)));
    const writer: Writer = {
      columns: t.columns.map((c) => q(c.name)),
      onConflict: `ON CONFLICT (${t.key.map(q).join(', ')}) DO ${
        rest.length
          ? `UPDATE SET ${rest.map((c) => `${q(c.name)} = excluded.${q(c.name)}`).join(', ')}`
          : 'NOTHING'
      }`,
      binders,
      // The row as a line of COPY's text format, bound as `values` binds it.
      line: copyLineOf<RowValue>(
        t.columns.map((c) => c.name),
        binders,
        null,
      ),
    };
    this.writers.set(t.source, { table: t, writer });
    return writer;
  }

  /**
   * Rows inserted at the source: most are new at the target too, so they are copied straight into
   * the table under a savepoint. One already there (a copy that ran ahead, a key deleted and inserted
   * again in the batch) makes COPY fail as a whole; the savepoint is rolled back and the rows merged.
   */
  private async insertRows(client: pg.PoolClient, t: TargetTable, rows: readonly Row[]): Promise<void> {
    if (rows.length < COPY_MIN_ROWS) return this.upsertRows(client, t, rows);
    const w = this.writerOf(t);
    await client.query('SAVEPOINT cdc_copy');
    try {
      await copyRows(client, this.tableName(t), w.columns, rows, w.line);
      await client.query('RELEASE SAVEPOINT cdc_copy');
    } catch (error) {
      if ((error as { code?: string }).code !== UNIQUE_VIOLATION) throw error;
      await client.query('ROLLBACK TO SAVEPOINT cdc_copy');
      await this.upsertRows(client, t, rows);
    }
  }

  private values(t: TargetTable, w: Writer, r: Row): unknown[] {
    return t.columns.map((c, i) => (w.binders[i] as Binder)(r[c.name] ?? null));
  }

  private async upsertRows(client: pg.PoolClient, t: TargetTable, rows: readonly Row[]): Promise<void> {
    const w = this.writerOf(t);
    const values = (r: Row) => this.values(t, w, r);
    if (rows.length >= COPY_MIN_ROWS) {
      // COPY into a staging table dropped at commit, then one set-based merge: the rows are net
      // changes (one per key), so the merge never meets a key twice.
      const stage = q(`${STAGE_PREFIX}${++this.stages}`);
      await client.query(`CREATE TEMP TABLE ${stage} (LIKE ${this.tableName(t)}) ON COMMIT DROP`);
      await copyRows(client, stage, w.columns, rows, w.line);
      await client.query(
        `INSERT INTO ${this.tableName(t)} (${w.columns.join(', ')}) SELECT ${w.columns.join(', ')} FROM ${stage} ${w.onConflict}`,
      );
      return;
    }
    for (const chunk of paramSlices(rows, t.columns.length, MAX_PARAMS)) {
      const params: unknown[] = [];
      const tuples = chunk.map((r) => {
        const marks = values(r).map((v) => {
          params.push(v);
          return `$${params.length}`;
        });
        return `(${marks.join(', ')})`;
      });
      await client.query(
        `INSERT INTO ${this.tableName(t)} (${w.columns.join(', ')}) VALUES ${tuples.join(', ')} ${w.onConflict}`,
        params,
      );
    }
  }

  private async deleteKeys(client: pg.PoolClient, t: TargetTable, keys: readonly Row[]): Promise<void> {
    const keyColumns = keyColumnsOf(t);
    for (const slice of paramSlices(keys, keyColumns.length, MAX_PARAMS)) {
      const params: unknown[] = [];
      const tuples = keyTuples(
        slice,
        keyColumns,
        params,
        (c, v) => bindable(c, v, this.o.preciseTimes),
        (c) => postgresType(c, this.o.preciseTimes),
      );
      const soft = t.softDelete;
      const h = t.history;
      await client.query(
        h
          ? `UPDATE ${this.tableName(t)} SET ${q(h.to)} = (now() AT TIME ZONE 'UTC') WHERE (${t.key.map(q).join(', ')}) IN (${tuples}) AND ${q(h.to)} IS NULL`
          : soft
            ? `UPDATE ${this.tableName(t)} SET ${q(soft.flag)} = TRUE, ${q(soft.at)} = (now() AT TIME ZONE 'UTC') WHERE (${t.key.map(q).join(', ')}) IN (${tuples})`
            : `DELETE FROM ${this.tableName(t)} WHERE (${t.key.map(q).join(', ')}) IN (${tuples})`,
        params,
      );
    }
  }

  private async inTransaction(work: (client: pg.PoolClient) => Promise<void>): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await work(client);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /**
   * `work`, then the checkpoint, in one transaction. Values replaced meanwhile are no replacements if
   * it rolls back: a retry counts them again.
   */
  private async writeTransaction(
    checkpoint: Checkpoint,
    work: (client: pg.PoolClient) => Promise<void>,
  ): Promise<void> {
    const before = new Map(this.replaced);
    await this.inTransaction(async (client) => {
      await work(client);
      await this.saveCheckpoint(client, checkpoint);
    }).catch((error: unknown) => {
      this.replaced = before;
      throw error;
    });
  }

  /** The current version of each row's key ended where its values differ, and one opened where none is. */
  private async writeVersions(client: pg.PoolClient, t: TargetTable, rows: readonly Row[]): Promise<void> {
    const h = t.history as { from: string; to: string };
    const w = this.writerOf(t);
    const name = this.tableName(t);
    const casts = t.columns.map((c) => `::${postgresType(c, this.o.preciseTimes)}`);
    const sameKey = t.key.map((k) => `t.${q(k)} = v.${q(k)}`).join(' AND ');
    const compared = comparedColumns(t);
    const row = (prefix: string) => `(${compared.map((c) => `${prefix}.${q(c.name)}`).join(', ')})`;
    const picked = t.columns.map((c) =>
      c.name === h.from ? `(now() AT TIME ZONE 'UTC')` : c.name === h.to ? 'NULL' : `v.${q(c.name)}`,
    );
    for (const chunk of paramSlices(rows, t.columns.length, MAX_PARAMS)) {
      const params: unknown[] = [];
      const tuples = chunk.map((r) => {
        const marks = this.values(t, w, r).map((v, i) => {
          params.push(v);
          return `$${params.length}${casts[i] as string}`;
        });
        return `(${marks.join(', ')})`;
      });
      const v = `(VALUES ${tuples.join(', ')}) AS v (${w.columns.join(', ')})`;
      // Two statements: an index is checked row by row, so the old version ends before the new opens.
      if (compared.length > 0)
        await client.query(
          `UPDATE ${name} t SET ${q(h.to)} = (now() AT TIME ZONE 'UTC') FROM ${v}
           WHERE ${sameKey} AND t.${q(h.to)} IS NULL AND ${row('t')} IS DISTINCT FROM ${row('v')}`,
          params,
        );
      await client.query(
        `INSERT INTO ${name} (${w.columns.join(', ')}) SELECT ${picked.join(', ')} FROM ${v}
         WHERE NOT EXISTS (SELECT 1 FROM ${name} t WHERE ${sameKey} AND t.${q(h.to)} IS NULL)`,
        params,
      );
    }
  }

  /**
   * A history table's changes in their order (not netted: each is a version): runs of upserts of
   * distinct keys written together, deletes ending the current versions between them.
   */
  private async applyVersions(
    client: pg.PoolClient,
    t: TargetTable,
    changes: readonly Change[],
  ): Promise<void> {
    let upserts: Row[] = [];
    let deletes: Row[] = [];
    const keys = new Set<string>();
    const flush = async () => {
      if (upserts.length) await this.writeVersions(client, t, upserts);
      if (deletes.length) await this.deleteKeys(client, t, deletes);
      upserts = [];
      deletes = [];
      keys.clear();
    };
    for (const c of changes) {
      const key = keyCursor(t.key.map((k) => c.key[k] ?? null));
      if (c.op === 'delete' || !c.row) {
        if (upserts.length) await flush();
        deletes.push(c.key);
      } else {
        if (deletes.length || keys.has(key)) await flush();
        upserts.push(c.row);
        keys.add(key);
      }
    }
    await flush();
  }

  async clear(t: TargetTable, checkpoint: Checkpoint): Promise<void> {
    await this.writeTransaction(checkpoint, async (client) => {
      // A history keeps its versions: a copy ends the current ones, and opens those it reads.
      if (t.history) {
        const shard = t.shard ? ` AND ${q(t.shard.column)} = $1` : '';
        await client.query(
          `UPDATE ${this.tableName(t)} SET ${q(t.history.to)} = (now() AT TIME ZONE 'UTC') WHERE ${q(t.history.to)} IS NULL${shard}`,
          t.shard ? [t.shard.value] : [],
        );
        return;
      }
      // A shard's member empties its own rows only: the other members' stay.
      if (t.shard)
        await client.query(`DELETE FROM ${this.tableName(t)} WHERE ${q(t.shard.column)} = $1`, [
          t.shard.value,
        ]);
      else await client.query(`DELETE FROM ${this.tableName(t)}`);
    });
  }

  async apply(changes: readonly Change[], checkpoint: Checkpoint, fence?: Fence): Promise<void> {
    const unknown = changes.find((c) => !this.tables.has(c.table));
    if (unknown) throw unpreparedTable(unknown.table);
    const versioned = changes.filter((c) => this.tables.get(c.table)?.history);
    const live = versioned.length ? changes.filter((c) => !this.tables.get(c.table)?.history) : changes;
    // A copy's chunk holds each key once (read in key order): nothing to net.
    const net = live.every((c) => c.copied) ? live : netChanges(live);
    // One pass sorts the net changes by table and kind: deletes, then inserts, then updates.
    const byTable = new Map<string, { removed: Row[]; inserted: Row[]; updated: Row[] }>();
    for (const c of net) {
      let sorted = byTable.get(c.table);
      if (!sorted) byTable.set(c.table, (sorted = { removed: [], inserted: [], updated: [] }));
      if (c.op === 'delete' || !c.row) sorted.removed.push(c.key);
      else (c.op === 'insert' ? sorted.inserted : sorted.updated).push(c.row);
    }
    await this.writeTransaction(checkpoint, async (client) => {
      if (fence) await this.checkFence(client, fence);
      for (const t of this.tables.values()) {
        if (t.history) {
          const mine = versioned.filter((c) => c.table === t.source);
          if (mine.length) await this.applyVersions(client, t, mine);
          continue;
        }
        const sorted = byTable.get(t.source);
        if (!sorted) continue;
        if (sorted.removed.length) await this.deleteKeys(client, t, sorted.removed);
        if (sorted.inserted.length) await this.insertRows(client, t, sorted.inserted);
        if (sorted.updated.length) await this.upsertRows(client, t, sorted.updated);
      }
    });
  }

  async applyCopy(table: TargetTable, rows: readonly Row[], checkpoint: Checkpoint): Promise<void> {
    const t = this.tables.get(table.source);
    if (!t) throw unpreparedTable(table.source);
    await this.writeTransaction(checkpoint, async (client) => {
      if (rows.length && t.history) await this.writeVersions(client, t, rows);
      else if (rows.length) await this.insertRows(client, t, rows);
    });
  }

  /** The fence's positions as stored, their rows locked until the commit (FOR UPDATE). */
  private async checkFence(client: pg.PoolClient, fence: Fence): Promise<void> {
    const { rows } = await client.query<{ source_table: string; position: string }>(
      `SELECT source_table, position FROM ${this.checkpointTable} WHERE pipeline_id = $1 AND source_table = ANY($2) FOR UPDATE`,
      [this.pipelineId, Object.keys(fence)],
    );
    const stored = new Map(rows.map((r) => [r.source_table, r.position]));
    const broken = fenceBroken((t) => stored.get(t) ?? null, fence);
    if (broken) throw new FencedOut(broken);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
