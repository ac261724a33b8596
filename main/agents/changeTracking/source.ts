// The change-tracking agent as a source: snapshots in snapshot isolation with the version they start
// from, then CHANGETABLE(CHANGES …) since each table's checkpoint, all tables in one snapshot
// transaction under one upper bound, joined to the current rows, in version order. Checkpoints live in
// the SYNC schema. Changes lost to retention are never skipped: the table is named for a new snapshot.
import sql from 'mssql';
import type {
  ChangeTrackingConfiguration,
  ChangeTrackingHostCredentials,
} from '../../../shared/agents/changeTracking';
import type { CheckResult, Entity } from '../../../shared/controlApi';
import {
  tableKey,
  type ChangeBatch,
  type Checkpoint,
  keyCursor,
  keyValues,
  readWhole,
  type Row,
  type SnapshotChunk,
  type SourceAgent,
  type SourceBacklog,
  type TableRef,
  type TableShape,
} from '../source';
import { paramSlices } from '../target';
import type { FilterExpr } from '../../../shared/rowFilter';
import { pushdownSql } from '../filterPushdown';
import { mssqlPushdown } from '../drivers/mssql/filterSql';
import { runChecks } from './checks';
import { ctStartPointOf, currentVersions, parseCtPoint, startVersions, type CtStartPoint } from './startAt';
import { refuseForward } from '../startPoint';
import { StopPoint, type StopCap } from './stopAt';
import { openPool } from '../drivers/mssql/connection';
import { bracket, qualified } from '../drivers/mssql/names';
import { keyCounts, PendingKeys, upperBound, type KeyCount } from './pendingKeys';
import {
  loadAndCount,
  readChangedRows,
  readHead,
  type Alongside,
  type BatchLink,
  type KeyRead,
  type UnlessDenied,
} from './batchRequests';
import {
  markRenamed,
  readStructures,
  sameColumns,
  sameSignal,
  type RunQuery,
  type Structure,
} from './structure';
import { bindKey, describeTables, rowReader, selectColumn, unsupportedColumns } from '../drivers/mssql/shape';
import { loadCheckpoint, saveCheckpoint, type Query } from './checkpoints';
import { whyInvalid } from './invalidVersion';
import { readBacklog } from './backlog';
import { ChangeTrackingHeartbeat, heartbeatTimeIn } from './heartbeat';
import {
  classifySqlServerError,
  deniedOnTable,
  deniedReason,
  sqlServerErrorNumber,
} from '../drivers/mssql/errors';

/** A key column's type as SQL Server writes it. */
const sourceTypeOf = (shape: TableShape, k: string) =>
  shape.columns.find((c) => c.name === k)?.sourceType ?? '';

/**
 * The rows after a cursor in key order, its values bound on `request`. Columns are named through the
 * table's alias `t`: a select-list alias (an exact-text read) never shadows them.
 */
function afterCursor(request: sql.Request, shape: TableShape, cursor: string): string {
  const values = keyValues(cursor);
  const param = shape.key.map((k, i) => bindKey(request, `k${i}`, sourceTypeOf(shape, k), values[i]));
  const column = (k: string) => `t.${bracket(k)}`;
  const after = shape.key.map((k, i) =>
    [...shape.key.slice(0, i).map((e, j) => `${column(e)} = ${param[j]}`), `${column(k)} > ${param[i]}`].join(
      ' AND ',
    ),
  );
  // The leading `>=` lets SQL Server seek on the key's first column; the OR terms do the rest.
  const seek = shape.key.length > 1 ? `${column(shape.key[0] ?? '')} >= ${param[0]} AND ` : '';
  return `${seek}(${after.map((a) => `(${a})`).join(' OR ')})`;
}

export interface ChangeTrackingSourceOptions {
  credentials: ChangeTrackingHostCredentials;
  configuration: ChangeTrackingConfiguration;
  pipelineId: string;
  agentId: string;
  /**
   * With recursion protection: the other pipelines of this engine that write into this database (the
   * other direction of a two-way setup). Their writes, like this pipeline's own, are not read back.
   */
  alsoSkip?: readonly string[];
  /** Sees each statement the agent sends (diagnostics, tests); never parameter values. */
  trace?: (statement: string) => void;
}

export { CHECKPOINT_TABLE } from './checkpoints';

/**
 * The context a pipeline writes with when it writes to a table it also reads (recursion protection):
 * SYS_CHANGE_CONTEXT carries it, and the pipeline's reader skips those changes.
 */
export const changeTrackingContext = (pipelineId: string): Buffer => Buffer.from(`cdc:${pipelineId}`, 'utf8');

export async function openChangeTrackingSource(
  o: ChangeTrackingSourceOptions,
): Promise<ChangeTrackingSource> {
  // A point beside a copy, or one that names nothing, is refused before a connection is made.
  const startPoint = ctStartPointOf(o.configuration);
  // Changes are read on a session of their own (pendingKeys.ts), one of the configured connections.
  const connections = o.credentials.maxConnectionsCount;
  if (connections < 2) return new ChangeTrackingSource(o, startPoint, await openPool(o.credentials));
  // Both at once: a server 30 ms away costs a round trip per step of each sign-on.
  const [pool, reader] = await Promise.allSettled([
    openPool({ ...o.credentials, maxConnectionsCount: connections - 1 }),
    openPool({ ...o.credentials, maxConnectionsCount: 1 }),
  ]);
  if (pool.status === 'fulfilled' && reader.status === 'fulfilled') {
    return new ChangeTrackingSource(o, startPoint, pool.value, reader.value);
  }
  for (const opened of [pool, reader]) if (opened.status === 'fulfilled') await opened.value.close();
  throw pool.status === 'rejected' ? pool.reason : (reader as PromiseRejectedResult).reason;
}

export class ChangeTrackingSource implements SourceAgent {
  readonly classifyError = classifySqlServerError;
  private readonly shapes = new Map<string, TableShape>();
  /** Per table (lower-case key), its structure when last described: compared at each batch. */
  private readonly structures = new Map<string, Structure>();
  private readonly pending: PendingKeys;
  private readonly stopPoint: StopPoint | undefined;
  readonly heartbeat: ChangeTrackingHeartbeat | undefined;

  constructor(
    private readonly o: ChangeTrackingSourceOptions,
    private readonly startPoint: CtStartPoint | undefined,
    readonly pool: sql.ConnectionPool,
    /**
     * The session changes are read on: one connection, so the pending keys' temporary tables stay
     * between batches (pendingKeys.ts). The pool itself when it holds one connection only.
     */
    private readonly reader: sql.ConnectionPool = pool,
  ) {
    const skipped = o.configuration.enableRecursionProtection ? [o.pipelineId, ...(o.alsoSkip ?? [])] : [];
    this.stopPoint = StopPoint.of(o.configuration);
    const beatSeconds = o.configuration.heartbeatSeconds;
    this.heartbeat =
      beatSeconds > 0
        ? new ChangeTrackingHeartbeat(
            pool,
            this.send,
            this.agentKey,
            o.credentials.username,
            beatSeconds * 1000,
          )
        : undefined;
    this.pending = new PendingKeys(
      o.configuration.temporaryTablePrefix ?? '',
      skipped.map(changeTrackingContext),
    );
  }

  /** Who this reader is in the checkpoint table: the prefix keeps two engines with equal ids apart. */
  get agentKey(): string {
    return `${this.o.configuration.temporaryTablePrefix ?? ''}|${this.o.pipelineId}/${this.o.agentId}`;
  }

  /** The temporary table of a table's pending changed keys, named with the prefix. */
  keysTable(table: TableRef): string {
    return this.pending.tempOf(tableKey(table));
  }

  async check(entities: readonly Entity[]): Promise<CheckResult[]> {
    return runChecks(this.pool, this.o.credentials, this.o.configuration, entities);
  }

  /**
   * The tables' shapes, and their structure first (structure.ts): a change made between the two reads
   * shows as a difference at the next batch, never as one missed. A column that kept its id under a
   * new name since the last description is marked renamed.
   */
  async describe(tables: readonly TableRef[]): Promise<TableShape[]> {
    const run = this.runOn(() => this.pool.request());
    const structures = await readStructures(run, tables);
    const shapes = await describeTables(this.pool, tables);
    tables.forEach((t, i) => {
      const key = tableKey(t);
      const now = structures[i];
      const before = this.structures.get(key);
      const shape = shapes.find((s) => tableKey(s.ref) === key);
      if (now && before && shape) markRenamed(shape, before, now);
      if (now) this.structures.set(key, now);
      else this.structures.delete(key);
    });
    // Refused before anything is read or written (the column-types check says the same).
    const refused = shapes.flatMap(unsupportedColumns);
    if (refused.length)
      throw new Error(`Columns the change-tracking agent cannot replicate: ${refused.join('; ')}.`);
    // Keyed by the entity's own text: the database's collation said which table it names.
    for (const s of shapes) this.shapes.set(tableKey(s.ref), s);
    return shapes;
  }

  private async shapeOf(table: TableRef): Promise<TableShape> {
    const [shape] = await this.shapesOf([table]);
    return shape as TableShape;
  }

  /** The tables' shapes, those not known yet described together: three requests, not three a table. */
  private async shapesOf(tables: readonly TableRef[]): Promise<TableShape[]> {
    const unknown = tables.filter((t) => !this.shapes.has(tableKey(t)));
    if (unknown.length > 0) await this.describe(unknown);
    return tables.map((t) => this.keyedShape(t));
  }

  private keyedShape(table: TableRef): TableShape {
    const shape = this.shapes.get(tableKey(table));
    if (!shape) throw new Error(`The table ${tableKey(table)} does not exist, or the login cannot see it.`);
    if (shape.key.length === 0)
      throw new Error(`IllegalArgumentException: Missing primary keys for entities... ${tableKey(table)}`);
    return shape;
  }

  private request(tx: sql.Transaction): sql.Request {
    return new sql.Request(tx);
  }

  /** Statements on requests made by `request` (the pool's, or a transaction's): their first recordset. */
  private runOn(request: () => sql.Request): RunQuery {
    return async <T>(statement: string, bind?: (r: sql.Request) => void) => {
      const r = request();
      bind?.(r);
      return (await this.query<T>(r, statement)).recordset;
    };
  }

  /** query() as the agent's modules take it (checkpoints, backlog, heartbeat). */
  private readonly send: Query = (request, statement) => this.query(request, statement);

  private async query<T>(request: sql.Request, statement: string): Promise<sql.IResult<T>> {
    this.o.trace?.(statement);
    return request.query<T>(statement);
  }

  /** A statement's rows as arrays of values by select item: no column name can shadow another. */
  private async positional(request: sql.Request, statement: string): Promise<unknown[][]> {
    request.arrayRowMode = true;
    return (await this.query<unknown>(request, statement)).recordset as unknown as unknown[][];
  }

  private async inSnapshot<T>(work: (tx: sql.Transaction) => Promise<T>): Promise<T> {
    const tx = new sql.Transaction(this.reader);
    await tx.begin(sql.ISOLATION_LEVEL.SNAPSHOT);
    try {
      const result = await work(tx);
      await tx.commit();
      return result;
    } catch (error) {
      await tx.rollback().catch(() => undefined);
      throw error;
    }
  }

  async countRows(table: TableRef): Promise<number> {
    const { recordset } = await this.query<{ n: number }>(
      this.pool.request(),
      `SELECT COUNT(*) AS n FROM ${qualified(table)}`,
    );
    return Number(recordset[0]?.n ?? 0);
  }

  snapshot(
    table: TableRef,
    onRows: (rows: Row[]) => Promise<void>,
    options: { snapshotChunkRows?: number } = {},
  ): Promise<{ position: string; rows: number }> {
    return readWhole(this, table, onRows, options);
  }

  /** Where tables started without a copy begin, in words, when the configuration names a point. */
  get startsFrom(): string | undefined {
    return this.startPoint?.said;
  }

  /**
   * Where tables without a copy start, by table key: the configuration's point once every table can
   * give its changes from there, else the current version; one statement per 250 tables.
   */
  snapshotStarts(tables: readonly TableRef[]): Promise<Map<string, string>> {
    const run = this.runOn(() => this.pool.request());
    return this.startPoint ? startVersions(run, tables, this.startPoint) : currentVersions(run, tables);
  }

  /** A rewind: every table at the point, as startAt reads it; never forward past a table's position. */
  async positionsAt(
    tables: readonly TableRef[],
    point: string,
    current: Checkpoint,
  ): Promise<Map<string, string>> {
    const at = parseCtPoint(point, 'to');
    const positions = await startVersions(
      this.runOn(() => this.pool.request()),
      tables,
      at,
    );
    refuseForward(
      tables.flatMap((t) => {
        const now = current[tableKey(t)];
        const then = positions.get(tableKey(t));
        return now !== undefined && then !== undefined && BigInt(then) > BigInt(now)
          ? [{ table: tableKey(t), at: `version ${now}` }]
          : [];
      }),
      at.said,
    );
    return positions;
  }

  async snapshotStart(table: TableRef): Promise<string> {
    const request = this.pool.request();
    request.input('t', qualified(table));
    const { recordset } = await this.query<{ v: string | null; m: string | null }>(
      request,
      'SELECT CHANGE_TRACKING_CURRENT_VERSION() AS v, CHANGE_TRACKING_MIN_VALID_VERSION(OBJECT_ID(@t)) AS m',
    );
    const version = recordset[0]?.v ?? null;
    if (version === null)
      throw new Error('Change Tracking is off for the database: there is no version to start from.');
    if ((recordset[0]?.m ?? null) === null)
      throw new Error(
        `Change Tracking is off for ${tableKey(table)}, or the login lacks VIEW CHANGE TRACKING on it.`,
      );
    return String(version);
  }

  /**
   * One chunk in primary-key order, one statement in the pool's READ COMMITTED (never NOLOCK: a row
   * rolled back later would have no change to mend it). The keys after the cursor are compared by SQL
   * Server with the column's own type and collation, so its order is the one the chunks follow.
   */
  async readChunk(
    table: TableRef,
    cursor: string | null,
    limit: number,
    options: { rowFilter?: FilterExpr } = {},
  ): Promise<SnapshotChunk> {
    const shape = await this.shapeOf(table);
    const request = this.pool.request();
    request.input('n', sql.Int, limit);
    // The filter's part SQL Server decides as the engine does: rows it refuses are not read at all.
    const pushed = options.rowFilter && pushdownSql(options.rowFilter, mssqlPushdown(request, shape, 't'));
    const conditions = [
      ...(cursor === null ? [] : [afterCursor(request, shape, cursor)]),
      ...(pushed ? [pushed] : []),
    ];
    const where = conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : '';
    const records = await this.positional(
      request,
      `SELECT TOP (@n) ${shape.columns.map((c) => selectColumn(c, 't')).join(', ')} FROM ${qualified(table)} AS t${where} ORDER BY ${shape.key.map((k) => `t.${bracket(k)}`).join(', ')}`,
    );
    const rows = records.map(rowReader(shape.columns));
    const last = rows.at(-1);
    return {
      rows,
      next: last && rows.length >= limit ? keyCursor(shape.key.map((k) => last[k] ?? null)) : null,
    };
  }

  async readRows(table: TableRef, keys: readonly Row[]): Promise<Row[]> {
    const shape = await this.shapeOf(table);
    const out: Row[] = [];
    // SQL Server takes 2,100 parameters per request.
    for (const slice of paramSlices(keys, shape.key.length, 2000)) {
      const request = this.pool.request();
      const terms = slice.map((key, i) =>
        shape.key
          .map(
            (k, j) => `t.${bracket(k)} = ${bindKey(request, `k${i}_${j}`, sourceTypeOf(shape, k), key[k])}`,
          )
          .join(' AND '),
      );
      const records = await this.positional(
        request,
        `SELECT ${shape.columns.map((c) => selectColumn(c, 't')).join(', ')} FROM ${qualified(table)} AS t WHERE ${terms.map((t) => `(${t})`).join(' OR ')}`,
      );
      out.push(...records.map(rowReader(shape.columns)));
    }
    return out;
  }

  async readChanges(
    tables: readonly TableRef[],
    checkpoint: Checkpoint,
    options: { maxRows?: number } = {},
  ): Promise<ChangeBatch> {
    const maxRows = options.maxRows ?? 10_000;
    // Described while the reader's transaction begins (a first batch signs the reader on meanwhile).
    const shapes = this.shapesOf(tables);
    shapes.catch(() => undefined);
    const cap = this.stopPoint ? await this.stopPoint.cap(this.runOn(() => this.pool.request())) : undefined;
    const read = await this.readInSnapshot(tables, shapes, checkpoint, maxRows, cap).catch(
      async (error: unknown): Promise<{ batch: ChangeBatch; times?: () => Promise<Map<string, Date>> }> => {
        this.pending.forget();
        // 207 (invalid column name): a column renamed where modify_date did not tell; described again.
        const renamed = sqlServerErrorNumber(error) === 207 ? await this.renamedSince(tables) : [];
        if (renamed.length === 0) throw error;
        return {
          batch: { changes: [], checkpoint: { ...checkpoint }, resnapshot: [], layoutChanged: renamed },
        };
      },
    );
    const { batch } = read;
    if (batch.changes.length === 0 || !read.times) return { ...batch, newestCommitTime: null };
    // Each version is one committed transaction: its id, and the time it committed where the login may read it.
    const times = await read.times();
    const changes = batch.changes.map((c) => ({
      ...c,
      transactionId: c.position,
      ...(times.has(c.position) && { commitTime: times.get(c.position) }),
    }));
    const newest = changes.at(-1)?.position ?? '';
    return { ...batch, changes, newestCommitTime: times.get(newest) ?? null };
  }

  /** The tables whose columns are not, by id and name, those they were described with. */
  private async renamedSince(tables: readonly TableRef[]): Promise<{ table: string; reason: string }[]> {
    const run = this.runOn(() => this.pool.request());
    const now = await readStructures(run, tables);
    return tables.flatMap((t, i) => {
      const key = tableKey(t);
      const before = this.structures.get(key);
      const after = now[i];
      return !before || !after || sameColumns(before, after)
        ? []
        : [{ table: key, reason: `the columns of ${key} changed at the source (ALTER TABLE or sp_rename)` }];
    });
  }

  /**
   * When each version from `from` to `to` committed (sys.dm_tran_commit_table), for the changes and
   * the runner's lag; empty when the login may not read it (VIEW SERVER STATE).
   */
  private async commitTimes(from: bigint, to: bigint): Promise<Map<string, Date>> {
    try {
      const request = this.pool.request();
      request.input('from', sql.BigInt, from.toString());
      request.input('to', sql.BigInt, to.toString());
      const { recordset } = await this.query<{ v: string | number; t: Date | null }>(
        request,
        'SELECT commit_ts AS v, commit_time AS t FROM sys.dm_tran_commit_table WHERE commit_ts BETWEEN @from AND @to',
      );
      return new Map(recordset.flatMap((r) => (r.t ? [[String(r.v), r.t] as const] : [])));
    } catch {
      return new Map();
    }
  }

  /**
   * One batch in one snapshot transaction, in three requests whatever the table count (up to 250
   * tables each; batchRequests.ts). The batch's commit times are asked beside it on the pool, and
   * answered by `times` once the transaction is over.
   */
  private readInSnapshot(
    tables: readonly TableRef[],
    described: Promise<TableShape[]>,
    checkpoint: Checkpoint,
    maxRows: number,
    cap?: StopCap,
  ): Promise<{ batch: ChangeBatch; times?: () => Promise<Map<string, Date>> }> {
    const begun = Date.now();
    return this.inSnapshot(async (tx) => {
      const shapes = await described;
      const link: BatchLink = {
        request: () => this.request(tx),
        send: (request, statement) => this.query<unknown>(request, statement),
      };
      const steady = this.steadyCounts(tables, shapes, checkpoint, maxRows);
      const head = await readHead(link, tables, this.pending.sentinel, steady?.alongside);
      const { current, minimums, signals } = head;
      if (current === null) throw new Error('Change Tracking is off for the database.');
      // A table gone stops alone; one whose columns changed is described again before it is read.
      const stopped: NonNullable<ChangeBatch['stopped']> = [];
      const layoutChanged: NonNullable<ChangeBatch['layoutChanged']> = [];
      const resnapshot: ChangeBatch['resnapshot'] = [];
      const readable: number[] = [];
      const invalid: { key: string; i: number; from: string; min: string }[] = [];
      tables.forEach((t, i) => {
        const key = tableKey(t);
        const from = checkpoint[key];
        const min = minimums[i] ?? null;
        const signal = signals[i] ?? null;
        const known = this.structures.get(key);
        if (signal === null && from !== undefined)
          stopped.push({
            table: key,
            reason: `${key} no longer exists at the source (dropped, or renamed by sp_rename), or the login cannot see it`,
          });
        else if (signal && known && !sameSignal(signal, known))
          layoutChanged.push({
            table: key,
            reason:
              signal.objectId === known.objectId
                ? `the columns of ${key} changed at the source (ALTER TABLE or sp_rename)`
                : `${key} was dropped and created again at the source`,
          });
        else if (from === undefined)
          resnapshot.push({
            table: key,
            reason: `${key} has no checkpoint yet: it needs its first snapshot.`,
          });
        else if (min === null)
          resnapshot.push({
            table: key,
            reason: `CHANGE_TRACKING_MIN_VALID_VERSION is NULL for ${key}: Change Tracking was turned off (or the login lost VIEW CHANGE TRACKING), so its changes cannot be read; it needs a new snapshot.`,
          });
        else if (BigInt(from) < BigInt(min)) invalid.push({ key, i, from, min });
        else readable.push(i);
      });
      for (const v of invalid)
        resnapshot.push({
          table: v.key,
          reason: await whyInvalid(this.request(tx), this.send, tables[v.i] as TableRef, v),
        });
      // A table the login may no longer read (DENY, REVOKE) waits at its position, suspended by the
      // runner; the others read on. SQL Server's 229 ends only its statement, not the transaction.
      const refusedTables: NonNullable<ChangeBatch['refusedTables']> = [];
      const unlessDenied: UnlessDenied = async (i, read) => {
        try {
          return await read();
        } catch (error) {
          const t = tables[i] as TableRef;
          if (!deniedOnTable(error, t)) throw error;
          readable.splice(readable.indexOf(i), 1);
          const said = error instanceof Error ? `SQL Server answered ${error.message}` : 'error 229';
          refusedTables.push({
            table: tableKey(t),
            reason: deniedReason(t, this.o.credentials.username, said),
          });
          return undefined;
        }
      };
      // Pending keys per table in the reader session's temporary tables, loaded once per catch-up
      // (pendingKeys.ts); the batch reads the next slice of each, up to one bound for all tables.
      const reads = (): KeyRead[] =>
        readable.map((i) => ({
          i,
          shape: shapes[i] as TableShape,
          after: BigInt(checkpoint[tableKey(tables[i] as TableRef)] ?? '0'),
        }));
      const sentinelStatement = this.pending.sessionFound(head.sessionFound);
      const { counts, limit } =
        steady && head.sessionFound && head.alongside
          ? { counts: steady.countsOf(head.alongside, readable), limit: steady.limit }
          : await loadAndCount(link, this.pending, reads(), {
              current: BigInt(current),
              versions: maxRows + 1,
              sentinelStatement,
              unlessDenied,
            });
      // A stop point cuts the batch there: nothing committed after it is read.
      const uncut = upperBound(counts, limit, maxRows);
      const bound = cap && uncut > cap.version ? cap.version : uncut;
      const end = cap && cap.version < BigInt(current) ? cap.version : BigInt(current);
      const times = this.commitTimesOf(counts, bound);
      const changes = await readChangedRows(link, this.pending, reads(), bound, unlessDenied);
      changes.sort((a, b) =>
        BigInt(a.position) < BigInt(b.position) ? -1 : BigInt(a.position) > BigInt(b.position) ? 1 : 0,
      );
      const next: Checkpoint = { ...checkpoint };
      for (const i of readable) {
        const key = tableKey(tables[i] as TableRef);
        const from = BigInt(checkpoint[key] ?? '0');
        next[key] = String(from > bound ? from : bound);
      }
      // Read up to the version current when the read began (or the stop): nothing before it is left.
      const caughtUp = bound >= end;
      // Only when every table was read up to it: one that starts or is described again reads first.
      const everyTable =
        readable.length === tables.length && resnapshot.length === 0 && layoutChanged.length === 0;
      const stoppedAt =
        cap?.final && caughtUp && everyTable && this.stopPoint ? this.stopPoint.said : undefined;
      // A quiet batch's heartbeat, read in its snapshot: the newest beat its version covers.
      const readyAt = this.heartbeat?.readyAt ?? null;
      const heartbeatAt =
        changes.length === 0 && caughtUp && readyAt !== null && readyAt < begun
          ? await heartbeatTimeIn(this.request(tx), this.send, this.agentKey)
          : undefined;
      const batch = {
        changes,
        checkpoint: next,
        resnapshot,
        stopped,
        layoutChanged,
        refusedTables,
        caughtUp,
        ...(stoppedAt !== undefined && { stoppedAt }),
        ...(heartbeatAt !== undefined && { heartbeatAt }),
      };
      return { batch, ...(times && { times }) };
    });
  }

  /**
   * When every table with a position has keys loaded that serve this batch whatever the current
   * version (most batches of a catch-up), their counts are asked in the head's request: one round
   * trip fewer. Counted for the tables that then prove readable only.
   */
  private steadyCounts(
    tables: readonly TableRef[],
    shapes: readonly TableShape[],
    checkpoint: Checkpoint,
    maxRows: number,
  ): {
    alongside: Alongside;
    limit: bigint;
    countsOf: (sets: unknown[][], readable: number[]) => KeyCount[];
  } | null {
    const steady: { i: number; shape: TableShape; after: bigint; reach: bigint }[] = [];
    for (const [i, t] of tables.entries()) {
      const from = checkpoint[tableKey(t)];
      const shape = shapes[i];
      if (from === undefined || !shape) continue;
      const reach = this.pending.steadyReach(shape, BigInt(from));
      if (reach === null) return null;
      steady.push({ i, shape, after: BigInt(from), reach });
    }
    if (steady.length === 0) return null;
    const limit = steady.reduce((low, s) => (s.reach < low ? s.reach : low), steady[0]?.reach ?? 0n);
    return {
      limit,
      alongside: {
        build: (request) => {
          request.input('limit', sql.BigInt, String(limit));
          request.input('versions', sql.Int, maxRows + 1);
          return steady.map((s) => this.pending.countsStatement(request, s.shape, s.i, s.after));
        },
      },
      countsOf: (sets, readable) =>
        keyCounts(
          (sets.flat() as { i: number; version: string; n: number }[]).filter((r) =>
            readable.includes(Number(r.i)),
          ),
        ),
    };
  }

  /**
   * The commit times of the batch's versions (those counted up to the bound). With a reader of its
   * own they are asked at once, beside the transaction; on a single connection only once it is over.
   */
  private commitTimesOf(
    counts: readonly KeyCount[],
    bound: bigint,
  ): (() => Promise<Map<string, Date>>) | undefined {
    const versions = counts.map((c) => c.version).filter((v) => v <= bound);
    if (versions.length === 0) return undefined;
    const from = versions.reduce((a, b) => (b < a ? b : a));
    const to = versions.reduce((a, b) => (b > a ? b : a));
    if (this.reader === this.pool) return () => this.commitTimes(from, to);
    const asked = this.commitTimes(from, to);
    return () => asked;
  }

  loadCheckpoint(): Promise<Checkpoint> {
    return loadCheckpoint(this.pool, this.send, this.agentKey);
  }

  saveCheckpoint(checkpoint: Checkpoint): Promise<void> {
    return saveCheckpoint(this.pool, this.send, this.agentKey, checkpoint);
  }

  backlog(tables: readonly TableRef[], checkpoint: Checkpoint): Promise<SourceBacklog> {
    return readBacklog(
      this.pool,
      this.send,
      tables,
      checkpoint,
      this.o.configuration.retentionWarningPercent,
    );
  }

  async close(): Promise<void> {
    if (this.reader !== this.pool) await this.reader.close();
    await this.pool.close();
  }
}
