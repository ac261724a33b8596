// SQL Server as a target, through the change-tracking agent's connection. With recursion protection,
// every write carries WITH CHANGE_TRACKING_CONTEXT (this pipeline's context), so the readers of a
// two-way setup do not read the pipeline's own writes back. Rows are upserted as UPDATE, then INSERT
// when no row was there, in one transaction with the checkpoint.
import sql from 'mssql';
import type { DroppedColumns } from '../../../shared/agents/common';
import type { Change, Checkpoint, ColumnShape, Row, RowValue } from '../source';
import { bracket } from '../drivers/mssql/names';
import { SYNC_SCHEMA } from './names';
import { sqlServerFold } from '../../../shared/names';
import { changeTrackingContext } from './source';
import { createSyncTable } from './syncTable';
import {
  FencedOut,
  fenceBroken,
  netChanges,
  type Fence,
  type Reconciled,
  type Retyped,
  type Target,
  type TargetTable,
  unpreparedTable,
} from '../target';
import { affinityOf, portable } from '../targetValues';
import { classifySqlServerError, sqlServerRefusesRow } from '../drivers/mssql/errors';
import { openIndexName, writtenColumns } from '../history';
import { NOW_SQL, versionStatements, type VersionStatements } from './historySql';

export const RUNNER_CHECKPOINT_TABLE = 'RUNNER_CHECKPOINT';
const checkpointTable = `${bracket(SYNC_SCHEMA)}.${bracket(RUNNER_CHECKPOINT_TABLE)}`;

/**
 * The column's type at a SQL Server target: SQL Server's own types as they are; text as Unicode (an
 * IBM i CHAR in CCSID 939 holds kanji a varchar would lose); Db2 for i names T-SQL lacks mapped
 * (TIMESTAMP(p) is datetime2, T-SQL's timestamp being rowversion). The table is in docs/runner.md.
 */
export function mssqlType(c: ColumnShape): string {
  const m = /^(\w+)(?:\((\d+|max)(?:,\s*(\d+))?\))?$/i.exec(c.sourceType.trim());
  if (!m) return c.sourceType;
  const [, name = '', size, scale] = m;
  const n = size === undefined ? null : size.toLowerCase() === 'max' ? Infinity : Number(size);
  const unicode = (base: 'nchar' | 'nvarchar') =>
    n === null ? base : n > 4000 ? 'nvarchar(max)' : `${base}(${n})`;
  switch (name.toUpperCase()) {
    case 'CHAR':
    case 'CHARACTER':
    case 'GRAPHIC':
      return unicode('nchar');
    case 'VARCHAR':
    case 'VARGRAPHIC':
      return unicode('nvarchar');
    case 'TIMESTAMP':
      return `datetime2(${Math.min(7, n ?? 6)})`;
    case 'INTEGER':
      return 'int';
    case 'DOUBLE':
      return 'float';
    case 'CLOB':
    case 'DBCLOB':
    case 'XML':
      return 'nvarchar(max)';
    case 'BLOB':
      return 'varbinary(max)';
    case 'SQL_VARIANT':
      // The agent hands a variant on as JSON text of its base type and value (docs/runner.md).
      return 'nvarchar(max)';
    case 'BOOLEAN':
      return 'bit';
    case 'ROWID':
      return 'varbinary(40)';
    case 'ROWVERSION':
      // A target's rowversion would be its own counter: the source's eight bytes are kept as data.
      return 'binary(8)';
    case 'DECFLOAT':
      // No T-SQL type holds 34 digits and an exponent to 6144: the exact text (docs/runner.md).
      return 'varchar(50)';
    case 'DECIMAL':
    case 'NUMERIC':
      // SQL Server holds 38 digits; Db2 for i up to 63 (the loss is stated in docs/runner.md).
      return n !== null && n > 38 ? `decimal(38,${Math.min(Number(scale ?? 0), 38)})` : c.sourceType;
    default:
      return c.sourceType;
  }
}

/**
 * Binds a value with the driver type its column needs where the driver's own guess would be wrong:
 * a float is a float even when integral (the driver would send -1.7976931348623157e308 as a bigint
 * and refuse it); other values go as the driver chooses (text converts at SQL Server, exactly).
 */
function input(request: sql.Request, name: string, c: ColumnShape, v: RowValue): void {
  const value = bindable(c, v);
  const base = c.sourceType.toLowerCase().replace(/\(.*$/, '');
  if (affinityOf(c) === 'float' && typeof value === 'number')
    request.input(name, base === 'real' ? sql.Real : sql.Float, value);
  else request.input(name, value);
}

/** A value as SQL Server converts it into the column: decimals and times as text, keep their digits. */
function bindable(c: ColumnShape, v: RowValue): unknown {
  // A spatial value is written as the serialized bytes it was read as: SQL Server converts them back.
  if (affinityOf(c) === 'spatial' && v instanceof Uint8Array) return Buffer.from(v);
  const p = portable(c, v);
  if (typeof p === 'bigint') return String(p);
  if (p instanceof Uint8Array) return Buffer.from(p);
  return p;
}

interface MssqlColumn {
  name: string;
  type: string;
  length: number | null;
  precision: number | null;
  scale: number | null;
  fraction: number | null;
  nullable: 'YES' | 'NO';
}

/** A column's type as T-SQL writes it, from INFORMATION_SCHEMA.COLUMNS. */
function mssqlTypeText(c: MssqlColumn): string {
  if (c.length !== null) return `${c.type}(${c.length === -1 ? 'max' : c.length})`;
  if (c.type === 'decimal' || c.type === 'numeric') return `${c.type}(${c.precision},${c.scale})`;
  if (c.type === 'datetime2' || c.type === 'time' || c.type === 'datetimeoffset')
    return `${c.type}(${c.fraction})`;
  return c.type;
}

/** Whether the wanted type is a longer string or a wider decimal of the current one's family. */
function mssqlWidens(now: MssqlColumn, wanted: string): boolean {
  const m = /^(\w+)\((\d+|max)(?:,(\d+))?\)$/i.exec(wanted);
  if (!m || (m[1] ?? '').toLowerCase() !== now.type) return false;
  if (now.length !== null)
    return m[2] === 'max' ? now.length !== -1 : now.length !== -1 && Number(m[2]) > now.length;
  if (now.precision !== null && m[3] !== undefined)
    return (
      Number(m[3]) >= (now.scale ?? 0) &&
      Number(m[2]) - Number(m[3]) >= now.precision - (now.scale ?? 0) &&
      (Number(m[2]) !== now.precision || Number(m[3]) !== now.scale)
    );
  return false;
}

export class MssqlTarget implements Target {
  readonly classifyError = classifySqlServerError;
  readonly refusesRow = sqlServerRefusesRow;
  readonly description: string;
  readonly softDeletes = true;
  readonly shards = true;
  readonly keepsHistory = true;
  readonly foldName = sqlServerFold;
  private tables = new Map<string, TargetTable>();
  /** A history table's statements, made once per shape of the table (prepare and reconcile set it). */
  private readonly versionSql = new WeakMap<TargetTable, VersionStatements>();

  constructor(
    private readonly pool: sql.ConnectionPool,
    private readonly pipelineId: string,
    /** Recursion protection: write with this pipeline's change-tracking context. */
    private readonly withContext: boolean,
    where: string,
  ) {
    this.description = `SQL Server ${where}`;
  }

  private name(t: TargetTable) {
    return `${bracket(t.schema ?? 'dbo')}.${bracket(t.name)}`;
  }

  /** `WITH CHANGE_TRACKING_CONTEXT (@ctx) ` when protecting, bound on the request. */
  private prefix(request: sql.Request): string {
    if (!this.withContext) return '';
    request.input('ctx', sql.VarBinary(128), changeTrackingContext(this.pipelineId));
    return 'WITH CHANGE_TRACKING_CONTEXT (@ctx) ';
  }

  async reconcile(
    t: TargetTable,
    dropped: DroppedColumns,
    retyped: readonly Retyped[] = [],
  ): Promise<Reconciled> {
    this.tables.set(t.source, t);
    const { recordset } = await this.pool
      .request()
      .input('s', t.schema ?? 'dbo')
      .input('t', t.name)
      .query<MssqlColumn>(
        `SELECT c.COLUMN_NAME AS name, c.DATA_TYPE AS type, c.CHARACTER_MAXIMUM_LENGTH AS length,
           c.NUMERIC_PRECISION AS precision, c.NUMERIC_SCALE AS scale, c.DATETIME_PRECISION AS fraction,
           c.IS_NULLABLE AS nullable
         FROM INFORMATION_SCHEMA.COLUMNS c WHERE c.TABLE_SCHEMA = @s AND c.TABLE_NAME = @t`,
      );
    if (recordset.length === 0) return { added: [], done: [] };
    const isKey = (name: string) => t.key.includes(name);
    const statements: string[] = [];
    const done: string[] = [];
    const added: string[] = [];
    const remade: string[] = [];
    for (const c of t.columns) {
      const now = recordset.find((r) => r.name === c.name);
      const wanted = mssqlType(c);
      const was = retyped.find((r) => r.name === c.name);
      if (now && was && !mssqlWidens(now, wanted) && mssqlType({ ...c, sourceType: was.from }) !== wanted) {
        // Not a widening: the column is emptied and retyped here, and its values copied again.
        statements.push(`DROP COLUMN ${bracket(c.name)}`, `ADD ${bracket(c.name)} ${wanted} NULL`);
        remade.push(c.name);
        done.push(`column ${c.name} made again as ${wanted} (was ${mssqlTypeText(now)})`);
      } else if (!now) {
        statements.push(`ADD ${bracket(c.name)} ${wanted} NULL`);
        added.push(c.name);
        done.push(`column ${c.name} added (${wanted})`);
      } else if (mssqlWidens(now, wanted) || (now.nullable === 'NO' && !isKey(c.name) && c.nullable)) {
        statements.push(`ALTER COLUMN ${bracket(c.name)} ${wanted} ${c.nullable ? 'NULL' : 'NOT NULL'}`);
        done.push(`column ${c.name} now ${wanted}${c.nullable ? ', nullable' : ''}`);
      }
    }
    for (const gone of recordset.filter((r) => !isKey(r.name) && !t.columns.some((c) => c.name === r.name))) {
      if (dropped === 'drop') {
        statements.push(`DROP COLUMN ${bracket(gone.name)}`);
        done.push(`column ${gone.name} dropped`);
      } else if (gone.nullable === 'NO') {
        statements.push(`ALTER COLUMN ${bracket(gone.name)} ${mssqlTypeText(gone)} NULL`);
        done.push(`column ${gone.name} kept, made nullable`);
      }
    }
    if (statements.length === 0) return { added, done };
    const tx = new sql.Transaction(this.pool);
    await tx.begin();
    try {
      for (const s of statements) await new sql.Request(tx).batch(`ALTER TABLE ${this.name(t)} ${s}`);
      await tx.commit();
    } catch (error) {
      await tx.rollback().catch(() => undefined);
      throw error;
    }
    return remade.length ? { added, done, remade } : { added, done };
  }

  private async exists(name: string): Promise<boolean> {
    const { recordset } = await this.pool
      .request()
      .input('n', name)
      .query<{ id: number | null }>('SELECT OBJECT_ID(@n) AS id');
    return (recordset[0]?.id ?? null) !== null;
  }

  async prepare(tables: readonly TargetTable[]): Promise<void> {
    if (!(await this.exists(checkpointTable)))
      await createSyncTable(
        (statement) => this.pool.request().batch(statement),
        `CREATE TABLE ${checkpointTable} (pipeline_id NVARCHAR(200) NOT NULL, source_table NVARCHAR(300) NOT NULL,
          position NVARCHAR(4000) NOT NULL, updated_at DATETIME2(3) NOT NULL, CONSTRAINT PK_RUNNER_CHECKPOINT PRIMARY KEY (pipeline_id, source_table))`,
      );
    const historyTables = await this.historyTables();
    for (const t of tables) {
      this.tables.set(t.source, t);
      if (await this.exists(this.name(t))) {
        // A table whose mode changed to or from history is made again: its rows are copied again anyway.
        const kept = historyTables.has(this.historyKey(t.schema ?? 'dbo', t.name, openIndexName(t)));
        if (kept === (t.history !== undefined)) continue;
        await this.pool.request().batch(`DROP TABLE ${this.name(t)}`);
      }
      const columns = t.columns.map(
        (c) => `${bracket(c.name)} ${mssqlType(c)}${c.nullable ? ' NULL' : ' NOT NULL'}`,
      );
      // A history table holds many rows per key: one current version each, kept so by the index.
      const key = t.history ? '' : `, PRIMARY KEY (${t.key.map(bracket).join(', ')})`;
      await this.pool.request().batch(`CREATE TABLE ${this.name(t)} (${columns.join(', ')}${key})`);
      if (t.history)
        await this.pool
          .request()
          .batch(
            `CREATE UNIQUE INDEX ${bracket(openIndexName(t))} ON ${this.name(t)} (${t.key.map(bracket).join(', ')}) WHERE ${bracket(t.history.to)} IS NULL`,
          );
    }
  }

  /** A table's schema, name and current-version index, as SQL Server compares names. */
  private historyKey(schema: string, name: string, index: string): string {
    return sqlServerFold(`${schema}\u0000${name}\u0000${index}`);
  }

  /** The tables that keep history here (those with a filtered current-version index), asked once. */
  private async historyTables(): Promise<Set<string>> {
    const { recordset } = await this.pool.request().query<{ s: string; t: string; i: string }>(
      `SELECT s.name AS s, o.name AS t, i.name AS i FROM sys.indexes i
         JOIN sys.tables o ON o.object_id = i.object_id JOIN sys.schemas s ON s.schema_id = o.schema_id
       WHERE i.has_filter = 1`,
    );
    return new Set(recordset.map((r) => this.historyKey(r.s, r.t, r.i)));
  }

  async loadCheckpoint(): Promise<Checkpoint> {
    const { recordset } = await this.pool
      .request()
      .input('p', this.pipelineId)
      .query<{ source_table: string; position: string }>(
        `SELECT source_table, position FROM ${checkpointTable} WHERE pipeline_id = @p`,
      );
    return Object.fromEntries(recordset.map((r) => [r.source_table, r.position]));
  }

  /** The fence's positions as stored, held (UPDLOCK, HOLDLOCK) until the commit. */
  private async checkFence(tx: sql.Transaction, fence: Fence): Promise<void> {
    const stored = new Map<string, string>();
    for (const table of Object.keys(fence)) {
      const { recordset } = await new sql.Request(tx)
        .input('p', this.pipelineId)
        .input('t', table)
        .query<{ position: string }>(
          `SELECT position FROM ${checkpointTable} WITH (UPDLOCK, HOLDLOCK) WHERE pipeline_id = @p AND source_table = @t`,
        );
      const row = recordset[0];
      if (row) stored.set(table, row.position);
    }
    const broken = fenceBroken((t) => stored.get(t) ?? null, fence);
    if (broken) throw new FencedOut(broken);
  }

  private async saveCheckpoint(tx: sql.Transaction, checkpoint: Checkpoint): Promise<void> {
    for (const [table, position] of Object.entries(checkpoint)) {
      const request = new sql.Request(tx).input('p', this.pipelineId).input('t', table).input('v', position);
      const updated = await request.query(
        `UPDATE ${checkpointTable} SET position = @v, updated_at = SYSUTCDATETIME() WHERE pipeline_id = @p AND source_table = @t`,
      );
      if (updated.rowsAffected[0] === 0)
        await request.query(
          `INSERT INTO ${checkpointTable} (pipeline_id, source_table, position, updated_at) VALUES (@p, @t, @v, SYSUTCDATETIME())`,
        );
    }
  }

  private async upsert(tx: sql.Transaction, t: TargetTable, row: Row): Promise<void> {
    const request = new sql.Request(tx);
    t.columns.forEach((c, i) => input(request, `c${i}`, c, row[c.name] ?? null));
    const param = (name: string) => `@c${t.columns.findIndex((c) => c.name === name)}`;
    const rest = t.columns.filter((c) => !t.key.includes(c.name));
    const where = t.key.map((k) => `${bracket(k)} = ${param(k)}`).join(' AND ');
    const prefix = this.prefix(request);
    if (rest.length > 0) {
      const set = rest.map((c) => `${bracket(c.name)} = ${param(c.name)}`).join(', ');
      const updated = await request.query(`${prefix}UPDATE ${this.name(t)} SET ${set} WHERE ${where}`);
      if ((updated.rowsAffected[0] ?? 0) > 0) return;
    } else {
      const found = await request.query(`SELECT 1 AS x FROM ${this.name(t)} WHERE ${where}`);
      if (found.recordset.length > 0) return;
    }
    await request.query(
      `${prefix}INSERT INTO ${this.name(t)} (${t.columns.map((c) => bracket(c.name)).join(', ')}) VALUES (${t.columns.map((_, i) => `@c${i}`).join(', ')})`,
    );
  }

  /** A change to a history table: a version opened (ending the current one if it differs), or ended. */
  private async version(tx: sql.Transaction, t: TargetTable, c: Change, now: string): Promise<void> {
    const request = new sql.Request(tx).input('now', sql.VarChar(23), now);
    const ended = c.op === 'delete' || !c.row;
    const values = c.row ?? c.key;
    const bound = ended ? t.columns.filter((col) => t.key.includes(col.name)) : writtenColumns(t);
    bound.forEach((col) => input(request, `c${t.columns.indexOf(col)}`, col, values[col.name] ?? null));
    const prefix = this.prefix(request);
    let statements = this.versionSql.get(t);
    if (!statements) {
      statements = versionStatements(t, mssqlType, (col) => `@c${t.columns.indexOf(col)}`, prefix);
      this.versionSql.set(t, statements);
    }
    await request.query(ended ? statements.end : statements.write);
  }

  private async remove(tx: sql.Transaction, t: TargetTable, key: Row): Promise<void> {
    const request = new sql.Request(tx);
    const where = t.key.map((k, i) => {
      input(request, `k${i}`, t.columns.find((c) => c.name === k) as ColumnShape, key[k] ?? null);
      return `${bracket(k)} = @k${i}`;
    });
    const soft = t.softDelete;
    await request.query(
      soft
        ? `${this.prefix(request)}UPDATE ${this.name(t)} SET ${bracket(soft.flag)} = 1, ${bracket(soft.at)} = SYSUTCDATETIME() WHERE ${where.join(' AND ')}`
        : `${this.prefix(request)}DELETE FROM ${this.name(t)} WHERE ${where.join(' AND ')}`,
    );
  }

  /** The transaction's time, which every version a batch opens or ends shares (docs/shaping.md). */
  private async now(tx: sql.Transaction): Promise<string> {
    const { recordset } = await new sql.Request(tx).query<{ now: string }>(NOW_SQL);
    return recordset[0]?.now ?? '';
  }

  private async begin(): Promise<sql.Transaction> {
    const tx = new sql.Transaction(this.pool);
    await tx.begin();
    return tx;
  }

  async clear(t: TargetTable, checkpoint: Checkpoint): Promise<void> {
    const tx = await this.begin();
    try {
      const request = new sql.Request(tx);
      // A history keeps its versions: a copy ends the current ones, and opens those it reads.
      if (t.history) {
        request.input('now', sql.VarChar(23), await this.now(tx));
        if (t.shard) request.input('shard', sql.NVarChar, t.shard.value);
        await request.query(
          `${this.prefix(request)}UPDATE ${this.name(t)} SET ${bracket(t.history.to)} = @now WHERE ${bracket(t.history.to)} IS NULL${t.shard ? ` AND ${bracket(t.shard.column)} = @shard` : ''}`,
        );
      }
      // A shard's member empties its own rows only: the other members' stay.
      else if (t.shard) {
        request.input('shard', sql.NVarChar, t.shard.value);
        await request.query(
          `${this.prefix(request)}DELETE FROM ${this.name(t)} WHERE ${bracket(t.shard.column)} = @shard`,
        );
      } else await request.query(`${this.prefix(request)}DELETE FROM ${this.name(t)}`);
      await this.saveCheckpoint(tx, checkpoint);
      await tx.commit();
    } catch (error) {
      await tx.rollback().catch(() => undefined);
      throw error;
    }
  }

  async apply(changes: readonly Change[], checkpoint: Checkpoint, fence?: Fence): Promise<void> {
    const tx = await this.begin();
    try {
      if (fence) await this.checkFence(tx, fence);
      // A history table's changes are each a version, applied in order; a live table's are netted.
      const versioned: Change[] = [];
      const live: Change[] = [];
      for (const c of changes) (this.tables.get(c.table)?.history ? versioned : live).push(c);
      const now = versioned.length ? await this.now(tx) : '';
      for (const c of versioned) await this.version(tx, this.tables.get(c.table) as TargetTable, c, now);
      for (const c of netChanges(live)) {
        const t = this.tables.get(c.table);
        if (!t) throw unpreparedTable(c.table);
        if (c.op === 'delete' || !c.row) await this.remove(tx, t, c.key);
        else await this.upsert(tx, t, c.row);
      }
      await this.saveCheckpoint(tx, checkpoint);
      await tx.commit();
    } catch (error) {
      await tx.rollback().catch(() => undefined);
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
