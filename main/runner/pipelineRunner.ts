// A pipeline at work: the source's tables described and created at the target, then steps: one batch
// of the change stream for every table, committed with its checkpoint at the target, then one chunk of
// each table being copied (several at once), each committed with its cursor. So the stream never
// waits for a copy, and a restart resumes a copy after its last chunk (docs/snapshots.md has the
// algorithm and why the target converges). The source's own checkpoint follows the target's commit.
// Lost connections are retried with backoff; what cannot heal stops the pipeline with its reason.
import { pipelineFields, pipelineSettings } from '../../shared/agents/common';
import { fieldLabel } from '../../shared/config/parse';
import { AgentConnectionError } from '../agents/connectionError';
import {
  atTarget,
  FROM_TARGET,
  isTransient,
  PermanentFailure,
  reasonOf,
  type ErrorClassifier,
} from './failures';
import { sameSourceTable, shapeOf, targetTableOf, type RunnerEntity } from './targetTables';
import {
  tableKey,
  type Change,
  type ChangeBatch,
  type Checkpoint,
  type Row,
  type SourceAgent,
  type TableRef,
} from '../agents/source';
import { copiedChanges, type Fence, type Retyped, type Target, type TargetTable } from '../agents/target';
import type { DroppedColumns } from '../../shared/agents/common';
import { schemaVerdict } from './schemaPolicy';
import type { TableSnapshot } from '../../shared/snapshots';
import {
  parseStored,
  storedCheckpoint,
  storedPosition,
  storedStop,
  type StoredCheckpoint,
  type TableStop,
} from './copies';
import { columnChanges, reshaped } from './reshape';
import { COPY_STEP_MS, TableCopies } from './tableCopies';
import type { OperationCounts, RunnerEvent, RunnerState } from './events';
import type { RefusedRow, RetryItem, RetryOutcome } from '../agents/spi';
import { applyAround, type RefusedChange } from './rowRefusals';
import { ExceptionRetries } from './exceptionRetries';
import { verifyTotals, type VerifyOptions, type VerifyReport } from '../../shared/verify';
import { Verifications, VerifyRefused } from './verify/verifications';
import { systemClock, type RunnerOptions } from './runnerOptions';

export type { RunnerClock, RunnerOptions } from './runnerOptions';
export { systemClock } from './runnerOptions';

interface ReadAhead {
  /** The checkpoint it was read from (checkpointText). */
  from: string;
  startedAt: number;
  batch: ChangeBatch;
}

/** A checkpoint as one comparable text, its tables in order. */
const checkpointText = (c: Checkpoint): string =>
  JSON.stringify(Object.entries(c).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** The least time between two backlog points when a batch drained the backlog (recordBacklog). */
const BACKLOG_DRAINED_GAP_MS = 1000;

/** The snapshotChunkRows and maxExceptions settings' defaults, as their declarations give them. */
const { snapshotChunkRows: DEFAULT_SNAPSHOT_CHUNK_ROWS, maxExceptions: DEFAULT_MAX_EXCEPTIONS } =
  pipelineSettings.parse({});

export class PipelineRunner {
  state: RunnerState = 'starting';
  /** How the source and the target last opened sort their drivers' errors. */
  private classifiers: ErrorClassifier[] = [];
  failure: string | null = null;
  private source?: SourceAgent;
  private target?: Target;
  private tables: TargetTable[] = [];
  private wake?: () => void;
  private wantPause = false;
  private wantStop = false;
  private loop?: Promise<void>;
  private pausedWaiters: (() => void)[] = [];
  private entities: readonly RunnerEntity[];
  /** The entities changed while running: tables are described and prepared again at the next step. */
  private reshaped = false;
  private readonly copies: TableCopies;
  /** Per table being copied, its chunk's failures in a row that a retry may heal. */
  private readonly copyTries = new Map<string, number>();
  /** Tables stopped on their own (kept at the target too): not read until copied again. */
  private stopped = new Map<string, TableStop>();
  /** Stopped tables asked to be copied again: read from the next (re)connect. */
  private readonly takingUp = new Set<string>();
  private readonly verifications = new Verifications((r) => this.emitVerified(r));
  /** When the latest read that reached the end of the source's changes began: what a verify waits for. */
  private caughtUpReadStartedAt = -Infinity;
  /** The next batch, read while the last one was applied (null: none, or it failed and is read again). */
  private readAhead: ReadAhead | null = null;
  private verifyStep: Awaited<ReturnType<Verifications['advance']>> = 'idle';
  /** Tables past maxExceptions in this step, with why: suspended at its end. */
  private readonly overLimit = new Map<string, string>();
  /** Suspended tables asked to resume: their kept entry goes back at the next (re)connect. */
  private readonly resuming = new Set<string>();
  /** Tables resumed after a review of their schema change: it is propagated once, whatever the policy. */
  private readonly reviewed = new Set<string>();
  private readonly retries = new ExceptionRetries();

  constructor(private readonly o: RunnerOptions) {
    this.entities = o.entities;
    this.copies = new TableCopies({
      emit: (e) => this.emit(e),
      now: () => this.now(),
      atTarget,
      permanent: (message) => new PermanentFailure(message),
      applyChunk: (target, table, rows, position, checkpoint) =>
        this.applyChunk(target, table, rows, position, checkpoint),
      snapshotChunkRows: o.snapshotChunkRows ?? DEFAULT_SNAPSHOT_CHUNK_ROWS,
      concurrency: o.copyConcurrency ?? 1,
      stepMs: o.copyStepMs ?? COPY_STEP_MS,
      interrupted: () => this.wantStop || this.wantPause,
      mode: o.snapshotMode ?? 'initial',
    });
  }

  /** A copy of one entity's table (again), at the next step; false when no entity reads that table. */
  requestSnapshot(table: string): boolean {
    if (!this.entities.some((e) => tableKey(e.source) === table)) return false;
    const stop = this.stopped.get(table);
    // Asked before the first connect, a table may yet turn out stopped: the request takes it up then.
    if (stop || !this.tables.some((t) => t.source === table)) {
      // Described again at the next step: copied if it is back, stopped again with the reason if not.
      this.stopped.delete(table);
      this.takingUp.add(table);
      this.reshaped = true;
    }
    this.copies.request(
      table,
      'copy',
      stop ? `asked for by hand after it had stopped (${stop.reason})` : undefined,
    );
    this.wake?.();
    return true;
  }

  /** Stops a table's copy at the next step (its rows so far stay; its changes keep flowing). */
  cancelSnapshot(table: string): boolean {
    const copy = this.copies.snapshots().find((c) => c.table === table);
    if (copy?.status !== 'copying' && copy?.status !== 'queued') return false;
    this.copies.request(table, 'cancel');
    this.wake?.();
    return true;
  }

  /**
   * A suspended table reads on from where it stood (its copy, if one ran, from its cursor), at the next
   * step; a table stopped without a position to go back to (gone at the source) is copied again.
   * False when no entity reads that table or it is not stopped.
   */
  resumeTable(table: string): 'resumed' | 'copied' | false {
    const stop = this.stopped.get(table);
    if (!stop || !this.entities.some((e) => tableKey(e.source) === table)) return false;
    if (stop.resumeFrom === undefined) return this.requestSnapshot(table) && 'copied';
    this.stopped.delete(table);
    this.takingUp.add(table);
    this.resuming.add(table);
    this.reviewed.add(table);
    this.reshaped = true;
    this.wake?.();
    return 'resumed';
  }

  /**
   * Reads the kept rows again from the source by key, now, and applies what it holds (the row, or its
   * absence as a delete), at the next step; answers each item's outcome then. Rows of a table that is
   * not read (suspended) wait: resume it first.
   */
  retryRows(items: readonly RetryItem[]): Promise<RetryOutcome[]> {
    const answer = this.retries.ask(items);
    this.wake?.();
    return answer;
  }

  /** For a source shared among engines: the tables this engine applies now; null for any other. */
  heldTables(): string[] | null {
    return this.source?.heldTables?.() ?? null;
  }

  /** The copies of this run: in progress, queued, cancelled, finished; and the tables stopped. */
  snapshots(): TableSnapshot[] {
    const stopped = [...this.stopped].map(([table, stop]): TableSnapshot => ({
      table,
      status: stop.resumeFrom === undefined && !stop.suspended ? 'stopped' : 'suspended',
      reason: stop.reason,
      rowsDone: 0,
      rowsTotal: null,
      rowsPerSecond: null,
      secondsLeft: null,
      startedAt: stop.at,
      finishedAt: stop.at,
    }));
    return [...this.copies.snapshots().filter((c) => !this.stopped.has(c.table)), ...stopped];
  }

  /**
   * Verifies one entity's table (`schema.table`) or every table read, a step after each batch while the
   * pipeline runs (docs/verify.md). Throws VerifyRefused when one runs or the table is not read.
   */
  requestVerify(table: string | undefined, options: VerifyOptions): VerifyReport {
    const tables = this.reading().map((e) => tableKey(e.source));
    if (table !== undefined && !tables.includes(table))
      throw new VerifyRefused(`No entity of this pipeline reads ${table} (or its replication has stopped).`);
    const report = this.verifications.verify(table === undefined ? tables : [table], options, this.now());
    this.wake?.();
    return report;
  }

  /** Copies the last verify's differing rows again, then verifies those tables again. */
  requestRepair(): VerifyReport {
    const report = this.verifications.repair(this.now());
    this.wake?.();
    return report;
  }

  cancelVerify(): boolean {
    return this.verifications.cancel(this.now());
  }

  /** The verify or repair running, or the last one; null before the first. */
  verifyReport(): VerifyReport | null {
    return this.verifications.report(this.now());
  }

  private emitVerified(r: VerifyReport): void {
    this.o.onVerified?.(r);
    this.emit({ kind: 'verify-finished', id: r.id, verify: r.kind, status: r.status, ...verifyTotals(r) });
  }

  /** The entities whose tables are read: all but those stopped. */
  private reading(): RunnerEntity[] {
    return this.entities.filter((e) => !this.stopped.has(tableKey(e.source)));
  }

  /** New entities while running: a table added is copied alone, the others stream on. */
  setEntities(entities: readonly RunnerEntity[]): void {
    this.entities = entities;
    this.reshaped = true;
    this.wake?.();
  }

  private targetDescription = 'The target';

  private reason(error: unknown): string {
    const fromTarget = !!error && typeof error === 'object' && FROM_TARGET in error;
    return fromTarget ? `${this.targetDescription}: ${reasonOf(error)}` : reasonOf(error);
  }

  private emit(event: RunnerEvent): void {
    this.o.onEvent?.(event);
  }

  /** Runs until stopped or failed; resolves then. */
  start(): Promise<void> {
    this.loop ??= this.run(false);
    return this.loop;
  }

  /** Runs until the source has nothing more to give (tests, one-shot copies), then stops. */
  runUntilCaughtUp(): Promise<void> {
    this.loop ??= this.run(true);
    return this.loop;
  }

  /** Resolves once the current batch is done and the runner waits (or has stopped). */
  pause(): Promise<void> {
    this.wantPause = true;
    this.wake?.();
    if (this.state === 'paused' || !this.loop) return Promise.resolve();
    return new Promise((resolve) => this.pausedWaiters.push(resolve));
  }

  resume(): void {
    if (!this.wantPause) return;
    this.wantPause = false;
    // While paused the engine measured the backlog itself: the first batch to drain it says so at once.
    this.lastBacklogRows = null;
    this.emit({ kind: 'resumed' });
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.wantStop = true;
    this.wake?.();
    await this.loop?.catch(() => undefined);
  }

  private sleep(ms: number): Promise<void> {
    return (this.o.clock ?? systemClock).sleep(ms, (cut) => (this.wake = cut));
  }

  private now(): number {
    return (this.o.clock ?? systemClock).now();
  }

  private get retryPolicy() {
    return this.o.retry ?? { firstDelayMs: 500, maxDelayMs: 30_000, maxAttempts: 10 };
  }

  private async run(untilCaughtUp: boolean): Promise<void> {
    const retry = this.retryPolicy;
    let attempt = 0;
    this.emit({ kind: 'started' });
    try {
      while (!this.wantStop) {
        if (this.wantPause) {
          if (this.state !== 'paused') this.emit({ kind: 'paused' });
          this.state = 'paused';
          for (const resolve of this.pausedWaiters.splice(0)) resolve();
          await this.sleep(60_000);
          continue;
        }
        try {
          await this.connect();
          const idle = await this.step();
          attempt = 0;
          if (idle && untilCaughtUp && !this.verifications.running) break;
          // A verify at work keeps the loop going; one waiting (its rate, or the stream) waits with it.
          if (idle && this.verifyStep !== 'worked') await this.sleep(this.o.idleMs ?? 1000);
        } catch (error) {
          // The source and the target sort their own drivers' errors (the plugins', passed in, before
          // either has opened); the runner knows none.
          if (!isTransient(error, this.classify) || ++attempt > retry.maxAttempts) throw error;
          const delayMs = Math.min(retry.maxDelayMs, retry.firstDelayMs * 2 ** (attempt - 1));
          this.state = 'retrying';
          this.emit({ kind: 'retrying', attempt, delayMs, reason: this.reason(error) });
          await this.disconnect();
          await this.sleep(delayMs);
        }
      }
      this.state = 'stopped';
      this.emit({ kind: 'stopped' });
    } catch (error) {
      this.state = 'failed';
      this.failure = this.reason(error);
      this.emit({ kind: 'failed', reason: this.failure });
    } finally {
      this.retries.abandon(
        `The pipeline ${this.state === 'failed' ? 'failed' : 'stopped'} before the retry ran.`,
      );
      await this.disconnect();
      for (const resolve of this.pausedWaiters.splice(0)) resolve();
    }
  }

  private async connect(): Promise<void> {
    if (this.source && this.target && !this.reshaped) return;
    this.reshaped = false;
    if (!this.source) this.sourceCaughtUp = false;
    this.source ??= await this.o.openSource();
    if (!this.target) {
      this.target = await atTarget(this.o.openTarget());
      this.targetDescription = this.target.description;
    }
    // Kept past a disconnect: a reconnect failing with the same driver's error is sorted alike.
    this.classifiers = [this.source.classifyError, this.target.classifyError].flatMap((c) => (c ? [c] : []));
    // The checkpoint table first: it says which tables stopped, and those are not described.
    await atTarget(this.target.prepare([]));
    let stored = parseStored(await atTarget(this.target.loadCheckpoint()));
    const resumed = [...this.resuming].flatMap((t) => {
      const from = stored.stopped.get(t)?.resumeFrom;
      return from === undefined ? [] : [[t, from] as const];
    });
    this.resuming.clear();
    if (resumed.length > 0) {
      await atTarget(this.target.apply([], Object.fromEntries(resumed)));
      stored = parseStored(await atTarget(this.target.loadCheckpoint()));
      for (const [table] of resumed)
        this.emit({ kind: 'table-resumed', table, position: stored.positions[table] ?? null });
    }
    this.stopped = new Map([...stored.stopped].filter(([t]) => !this.takingUp.has(t)));
    // One list for the whole connect: a re-snapshot asked meanwhile sets `reshaped` for the next one.
    const reading = this.reading();
    const shapes = await this.source.describe(reading.map((e) => e.source));
    const twice = sameSourceTable(reading, shapes);
    if (twice) throw new PermanentFailure(twice);
    // A table whose rows its entity does not identify (a keyless file, no key chosen) waits alone.
    for (const shape of shapes.filter((s) => s.cannotKey !== undefined)) {
      const reason = shape.cannotKey ?? '';
      if (this.stopsPipeline) throw new PermanentFailure(reason);
      await this.suspendTable(stored, tableKey(shape.ref), reason, {
        remedy: 'choose how its rows are identified, then copy it (re-snapshot)',
      });
    }
    // A table gone while the pipeline was stopped stops alone; one never replicated fails the start.
    // One the agent may no longer read (authority revoked) is suspended at its position instead.
    const missing = reading.filter(
      (e) =>
        (stored.positions[tableKey(e.source)] !== undefined || this.takingUp.has(tableKey(e.source))) &&
        !shapeOf(shapes, e.source),
    );
    const refusedAtStart =
      missing.length > 0 && this.source.refusedAmong
        ? await this.source.refusedAmong(missing.map((e) => e.source))
        : [];
    if (refusedAtStart[0] && this.stopsPipeline) throw new PermanentFailure(refusedAtStart[0].reason);
    for (const e of missing) {
      const key = tableKey(e.source);
      const refused = refusedAtStart.find((r) => r.table === key);
      if (refused) {
        await this.suspendTable(stored, key, refused.reason);
        continue;
      }
      await this.stopTable(
        stored,
        key,
        `${key} no longer exists at the source (dropped or renamed), or the login cannot see it`,
      );
      await this.dropAtTarget(key, {
        source: key,
        schema: e.target.schema,
        name: e.target.table,
        columns: [],
        key: [],
      });
    }
    const described = reading
      .filter((e) => !this.stopped.has(tableKey(e.source)))
      .map((e) => ({ entity: e, table: targetTableOf(e, shapes, this.target?.foldName) }));
    this.tables = described.map((d) => d.table);
    // Columns changed at the source while the pipeline was stopped: as each table's policy says.
    const dropped = new Map<string, DroppedColumns | undefined>();
    for (const { entity, table } of described) {
      // Only a table whose policy is not propagate needs the target's columns (one query each).
      if ((entity.schemaChanges ?? this.o.schemaChanges ?? 'propagate') === 'propagate') continue;
      const now = await atTarget(this.target.columnsOf?.(table) ?? Promise.resolve(null));
      if (!now) continue;
      const added = table.columns.filter((c) => !now.includes(c.name)).map((c) => c.name);
      const gone = now.filter((n) => !table.columns.some((c) => c.name === n));
      const verdict = await this.policyFor(stored, entity, table, { added, gone });
      if (!verdict) continue;
      this.tables = this.tables.map((t) => (t.source === table.source ? verdict.table : t));
      dropped.set(table.source, verdict.dropped);
    }
    await atTarget(this.target.prepare(this.tables));
    for (const t of this.tables)
      await this.reconcile(
        t,
        'the source table’s columns differ from the target’s',
        [],
        [],
        dropped.get(t.source),
      );
    this.copies.resume(stored);
  }

  /** The DBA chose whole transactions: a table's own failure stops the pipeline (onTableError). */
  private get stopsPipeline(): boolean {
    return this.o.onTableError === 'stop-pipeline';
  }

  /** Whether a failure is one table's own (a refusal no retry heals) and the setting lets that table stop alone. */
  private tableOwn(error: unknown): boolean {
    return (
      !this.stopsPipeline && !isTransient(error, this.classify) && !(error instanceof AgentConnectionError)
    );
  }

  /** Whether a failure that a retry may heal is retried for its table alone, then the table suspended. */
  private tableRetries(error: unknown): boolean {
    return (
      !this.stopsPipeline && isTransient(error, this.classify) && !(error instanceof AgentConnectionError)
    );
  }

  /** The source's and the target's verdicts on an error (the plugins', before either has opened). */
  private readonly classify: ErrorClassifier = (error) =>
    [...this.classifiers, this.o.classifyError].map((c) => c?.(error)).find((v) => v !== undefined);

  /** Whether an error refuses the rows applied (kept aside as exceptions) rather than their table. */
  private refusesRow(error: unknown): boolean {
    return !!this.o.onRowsRefused && this.tableOwn(error) && (this.target?.refusesRow?.(error) ?? false);
  }

  private readonly rowDeps = { refusesRow: (e: unknown) => this.refusesRow(e), atTarget };

  /** Applies rows with their checkpoint; rows the target refuses are kept aside, the others go in. */
  private async applyKeeping(
    target: Target,
    changes: readonly Change[],
    checkpoint: Checkpoint,
  ): Promise<RefusedChange[]> {
    const refused = await applyAround(target, changes, checkpoint, this.rowDeps);
    this.keep(refused);
    return refused;
  }

  /**
   * A copy's chunk with its checkpoint: through the target's copy path where it has one (no change
   * object per row). When that refuses rows, or the target has none, the chunk goes as changes, its
   * refused rows kept aside and the rest committed (applyKeeping).
   */
  private async applyChunk(
    target: Target,
    table: TargetTable,
    rows: readonly Row[],
    position: string,
    checkpoint: Checkpoint,
  ): Promise<void> {
    if (target.applyCopy) {
      try {
        await atTarget(target.applyCopy(table, rows, checkpoint));
        return;
      } catch (error) {
        if (rows.length === 0 || !this.refusesRow(error)) throw error;
      }
    }
    await this.applyKeeping(target, copiedChanges(table, rows, position), checkpoint);
  }

  /** Refused rows to the exceptions store, told per table; a table past maxExceptions is marked. */
  private keep(refused: readonly RefusedChange[]): void {
    if (refused.length === 0 || !this.o.onRowsRefused) return;
    const rows = refused.map(({ change, error }): RefusedRow => ({
      table: change.table,
      op: change.op,
      key: change.key,
      position: change.position,
      values: change.row,
      error: this.reason(error),
      ...(change.unreadable && { raw: change.unreadable.raw }),
    }));
    const kept = this.o.onRowsRefused(rows);
    const max = this.o.maxExceptions ?? DEFAULT_MAX_EXCEPTIONS;
    for (const table of new Set(rows.map((r) => r.table))) {
      const own = rows.filter((r) => r.table === table);
      const total = kept[table] ?? own.length;
      const error = own.at(-1)?.error ?? '';
      this.emit({ kind: 'rows-refused', table, rows: own.length, kept: total, error });
      if (total > max)
        this.overLimit.set(
          table,
          `${total} of its rows are kept as exceptions, more than the pipeline's limit (${fieldLabel(pipelineFields.maxExceptions)}, ${max}); the last refusal: ${error}`,
        );
      // A stream's consumers would apply the table's later changes past the row kept aside: it waits.
      const waits = refused.find((r) => r.change.table === table && this.target?.suspendsTable?.(r.error));
      if (waits)
        this.overLimit.set(
          table,
          `a row of it is kept as an exception (${this.reason(waits.error)}); the table waits, so that no later change of it reaches the stream before that row`,
        );
    }
  }

  /**
   * A batch applied whole, in one transaction; when the target refuses it for a reason no retry heals,
   * applied again table by table, so one table's refusal does not hold the others, and within a table
   * the rows it refuses are kept aside. Answers the tables refused whole, with their errors, and the
   * rows kept aside (neither: the batch went in whole).
   */
  private async applyBatch(
    target: Target,
    changes: readonly Change[],
    written: Checkpoint,
    fence?: Fence,
  ): Promise<{ refused: Map<string, unknown>; kept: Set<Change> }> {
    const kept = new Set<Change>();
    try {
      await atTarget(target.apply(changes, written, fence));
      return { refused: new Map(), kept };
    } catch (error) {
      if (!this.tableOwn(error)) throw error;
      // Positions and stops alone: no table's rows to tell apart.
      if (changes.length === 0) throw error;
      const byTable = new Map<string, Change[]>();
      for (const c of changes) {
        const own = byTable.get(c.table);
        if (own) own.push(c);
        else byTable.set(c.table, [c]);
      }
      const refused = new Map<string, unknown>();
      for (const [table, own] of byTable) {
        try {
          const position = written[table] === undefined ? {} : { [table]: written[table] };
          for (const r of await this.applyKeeping(target, own, position)) kept.add(r.change);
        } catch (tableError) {
          if (!this.tableOwn(tableError)) throw tableError;
          refused.set(table, tableError);
        }
      }
      // The positions of the tables without changes in this batch, and the batch's table stops.
      const rest = Object.fromEntries(Object.entries(written).filter(([t]) => !byTable.has(t)));
      if (Object.keys(rest).length > 0) await atTarget(target.apply([], rest));
      return { refused, kept };
    }
  }

  /**
   * A table suspended for a failure of its own: it waits at its position (and its copy at its cursor),
   * its reason kept and told; the pipeline's other tables go on.
   */
  private async suspendTable(
    stored: StoredCheckpoint,
    table: string,
    reason: string,
    /** What the DBA does about it, when the cause asks more than waiting: the table is never copied. */
    unstarted?: { remedy: string },
  ): Promise<void> {
    if (this.stopped.has(table)) return;
    const position = stored.positions[table];
    const stop: TableStop = {
      reason: `${table} was suspended: ${reason}`,
      at: new Date(this.now()).toISOString(),
      ...(position !== undefined && { resumeFrom: storedPosition(position, stored.copies.get(table)) }),
      ...(position === undefined && unstarted && { suspended: true }),
    };
    await atTarget((this.target as Target).apply([], { [table]: storedStop(stop) }));
    this.recordStop(
      stored,
      table,
      stop,
      position !== undefined
        ? 'resume it once the cause is fixed: it reads on from where it stood'
        : (unstarted?.remedy ?? 'copy it again (re-snapshot) once the cause is fixed'),
    );
  }

  /**
   * One table's replication ends, with its reason kept at the target (so a restart keeps it stopped)
   * and told in an event; the pipeline's other tables go on. A re-snapshot takes it up again.
   */
  private async stopTable(
    stored: StoredCheckpoint,
    table: string,
    reason: string,
    remedy = `ask for a re-snapshot of ${table} once it is back`,
  ): Promise<void> {
    const stop = this.droppedStop(reason);
    await atTarget((this.target as Target).apply([], { [table]: storedStop(stop) }));
    this.recordStop(stored, table, stop, remedy);
  }

  /** A table dropped at the source, stopped as droppedTables says: suspended with "suspend". */
  private droppedStop(reason: string): TableStop {
    const suspended = this.o.droppedTables === 'suspend';
    return { reason, at: new Date(this.now()).toISOString(), ...(suspended && { suspended: true }) };
  }

  /** With droppedTables "drop", a table dropped at the source is dropped at the target too. */
  private async dropAtTarget(table: string, known?: TargetTable): Promise<void> {
    const t = known ?? this.tables.find((x) => x.source === table);
    if (this.o.droppedTables !== 'drop' || !t || !this.target?.dropTable) return;
    await atTarget(this.target.dropTable(t));
    this.emit({
      kind: 'schema-changed',
      table,
      reason: `${t.name} dropped at the target too, as "${fieldLabel(pipelineFields.droppedTables)}" says`,
    });
  }

  private recordStop(
    stored: StoredCheckpoint,
    table: string,
    stop: TableStop,
    remedy = `ask for a re-snapshot of ${table} once it is back`,
  ): void {
    stored.positions = Object.fromEntries(Object.entries(stored.positions).filter(([t]) => t !== table));
    stored.copies.delete(table);
    stored.stopped.set(table, stop);
    this.stopped.set(table, stop);
    this.takingUp.delete(table);
    this.tables = this.tables.filter((t) => t.source !== table);
    this.overLimit.delete(table);
    this.emit({
      kind: stop.resumeFrom === undefined && !stop.suspended ? 'table-stopped' : 'table-suspended',
      table,
      reason: `${stop.reason}. The pipeline's other tables go on; ${remedy}.`,
    });
  }

  /**
   * The target table brought to the source's shape; an event says what changed, when anything did,
   * and the table is copied again when the rows already there cannot carry the change (reshape.ts).
   */
  private async reconcile(
    table: TargetTable,
    reason: string,
    gone: string[] = [],
    retyped: Retyped[] = [],
    dropped: DroppedColumns = this.o.droppedColumns ?? 'keep',
  ): Promise<void> {
    const target = this.target as Target;
    // A target without tables has nothing to alter: the rows carry their columns.
    const reconciled = target.reconcile
      ? await atTarget(target.reconcile(table, dropped, retyped))
      : { added: [], done: [] };
    const { said, copy } = reshaped(table, reason, reconciled, gone, retyped);
    if (said) this.emit({ kind: 'schema-changed', table: table.source, reason: said });
    if (copy) this.copies.request(table.source, 'copy', copy);
  }

  /** After ALTER TABLE or CHGPF at the source: the table described again, the target altered as the policy says. */
  private async reshape(
    source: SourceAgent,
    stored: StoredCheckpoint,
    changed: { table: string; reason: string },
  ): Promise<void> {
    const index = this.tables.findIndex((t) => t.source === changed.table);
    const entity = this.entities.find((e) => tableKey(e.source) === changed.table);
    const before = this.tables[index];
    if (!before || !entity) return;
    const described = targetTableOf(entity, await source.describe([entity.source]), this.target?.foldName);
    const added = described.columns
      .filter((c) => !before.columns.some((b) => b.name === c.name))
      .map((c) => c.name);
    const verdict = await this.policyFor(stored, entity, described, {
      added,
      gone: columnChanges(before, described).gone,
    });
    if (!verdict) return;
    const { gone, retyped } = columnChanges(before, verdict.table);
    this.tables[index] = verdict.table;
    await this.reconcile(verdict.table, changed.reason, gone, retyped, verdict.dropped);
  }

  /**
   * The table's schema-change policy applied to a change (its own, else the pipeline's; propagate once
   * after a review's resume): the table as the target gets it, or undefined when it was suspended for
   * review. What the policy withheld is told in an event.
   */
  private async policyFor(
    stored: StoredCheckpoint,
    entity: RunnerEntity,
    table: TargetTable,
    change: { added: string[]; gone: string[] },
  ): Promise<{ table: TargetTable; dropped: DroppedColumns | undefined } | undefined> {
    const reviewed = this.reviewed.delete(table.source);
    const policy = reviewed ? 'propagate' : (entity.schemaChanges ?? this.o.schemaChanges ?? 'propagate');
    const verdict = schemaVerdict(policy, table, change);
    if (verdict.suspend) {
      await this.suspendTable(stored, table.source, verdict.suspend);
      return undefined;
    }
    if (verdict.withheld)
      this.emit({ kind: 'schema-change-withheld', table: table.source, reason: verdict.withheld });
    return { table: verdict.table, dropped: verdict.dropped };
  }

  /** A read of the batch after `from`, begun now; settles with it, or with null if the read failed. */
  private async startReadAhead(
    source: SourceAgent,
    refs: TableRef[],
    from: Checkpoint,
  ): Promise<ReadAhead | null> {
    const startedAt = this.now();
    const batch = await source.readChanges(refs, from, { maxRows: this.o.maxRows }).catch(() => null);
    return batch && { from: checkpointText(from), startedAt, batch };
  }

  private async disconnect(): Promise<void> {
    this.readAhead = null;
    const { source, target } = this;
    this.source = undefined;
    this.target = undefined;
    await source?.close().catch(() => undefined);
    await target?.close().catch(() => undefined);
  }

  /**
   * One step: requests taken, one batch of changes for every table (tables without a position started),
   * then one chunk of each table being copied. Answers whether there was nothing to do.
   */
  private async step(): Promise<boolean> {
    const source = this.source as SourceAgent;
    const target = this.target as Target;
    const refs = this.reading().map((e) => e.source);
    const ctx = { source, target, tables: this.tables, refs };
    // What the target holds once this step commits, kept here rather than read back.
    const stored = parseStored(await atTarget(target.loadCheckpoint()));
    const known = new Set(refs.map(tableKey));
    for (const t of [...stored.copies.keys()]) if (!known.has(t)) stored.copies.delete(t);
    await this.copies.takeRequests(ctx, stored);
    const saved = { ...stored.positions };
    // Engines sharing the source: the positions as stored now, which this step's commit must still find.
    const shared = source.sharedAmongEngines === true;
    const storedNow = shared ? await atTarget(target.loadCheckpoint()) : undefined;
    // The batch read ahead while the previous one was applied, if it starts where the target now is.
    const ahead = this.readAhead;
    this.readAhead = null;
    const usable = ahead?.from === checkpointText(saved) ? ahead : null;
    const readStartedAt = usable ? usable.startedAt : this.now();
    const batch = usable ? usable.batch : await source.readChanges(refs, saved, { maxRows: this.o.maxRows });
    const restarted = new Set<string>();
    for (const lost of batch.resnapshot) {
      const table = this.tables.find((t) => t.source === lost.table);
      const ref = refs.find((r) => tableKey(r) === lost.table);
      if (!table || !ref) continue;
      const hadPosition = saved[lost.table] !== undefined;
      if (hadPosition) this.emit({ kind: 'resnapshot', table: lost.table, reason: lost.reason });
      this.state = 'snapshot';
      await this.copies.restart(ctx, stored, ref, table, { reason: lost.reason, lost: hadPosition });
      restarted.add(lost.table);
    }
    this.state = stored.copies.size > 0 ? 'snapshot' : 'streaming';
    // Tables (re)started just now committed their own position; the batch does not carry theirs.
    const checkpoint: Checkpoint = Object.fromEntries(
      Object.entries(batch.checkpoint).filter(([t]) => !restarted.has(t)),
    );
    const moved = Object.entries(checkpoint).some(([t, p]) => saved[t] !== p);
    const touching = batch.changes.some((c) => !this.touchesTarget(c))
      ? batch.changes.filter((c) => this.touchesTarget(c))
      : batch.changes;
    // Rows the source could not read are kept aside, never applied; without a store to keep them in,
    // or when the DBA chose whole transactions, the pipeline stops rather than skip them.
    const unreadable = touching.filter((c) => c.unreadable);
    const first = unreadable[0]?.unreadable;
    if (first && (!this.o.onRowsRefused || this.stopsPipeline)) throw new PermanentFailure(first.reason);
    const changes = first ? touching.filter((c) => !c.unreadable) : touching;
    // Tables the source refused to read (authority revoked) wait at their position, suspended.
    const sourceRefused = batch.refusedTables ?? [];
    if (sourceRefused[0] && this.stopsPipeline) throw new PermanentFailure(sourceRefused[0].reason);
    // A table that stops commits its last changes with its stop, in the batch's transaction.
    const stops = new Map(
      (batch.stopped ?? []).map((s): [string, TableStop] => [s.table, this.droppedStop(s.reason)]),
    );
    const written = storedCheckpoint(checkpoint, stored.copies);
    for (const [table, stop] of stops) written[table] = storedStop(stop);
    // A full batch of a plain stream: the next one is read while this one is applied, and waited for
    // before the source is used for anything else. The checkpoint order holds: batches still commit
    // one after the other, and a read-ahead batch is used only if it starts at the committed position.
    const readAhead =
      !batch.caughtUp &&
      batch.changes.length > 0 &&
      restarted.size === 0 &&
      stops.size === 0 &&
      sourceRefused.length === 0 &&
      !batch.layoutChanged?.length &&
      stored.copies.size === 0 &&
      !this.verifications.running &&
      !shared
        ? this.startReadAhead(source, refs, { ...saved, ...checkpoint })
        : null;
    const fence =
      storedNow && Object.fromEntries(Object.keys(checkpoint).map((t) => [t, storedNow[t] ?? null]));
    let outcome: Awaited<ReturnType<PipelineRunner['applyBatch']>> = { refused: new Map(), kept: new Set() };
    try {
      if (changes.length > 0 || moved || stops.size > 0)
        outcome = await this.applyBatch(target, changes, written, fence);
    } finally {
      if (readAhead) this.readAhead = await readAhead;
    }
    const { refused, kept } = outcome;
    this.keep(
      unreadable.flatMap((c) =>
        c.unreadable && !refused.has(c.table) ? [{ change: c, error: new Error(c.unreadable.reason) }] : [],
      ),
    );
    // A table refused whole stays at its own position, where it resumes.
    Object.assign(
      stored.positions,
      Object.fromEntries(Object.entries(checkpoint).filter(([t]) => !refused.has(t))),
    );
    for (const [table, error] of refused) await this.suspendTable(stored, table, this.reason(error));
    for (const r of sourceRefused) await this.suspendTable(stored, r.table, r.reason);
    // The source's checkpoint (for its backlog and for other tools) follows the target's commit at once:
    // a backlog read after "Applied" counts from it, and no status is owed to correct the gauge later.
    const advanced = batch.changes.length > 0 || moved;
    // A table stopping in this batch is left out: the source may no longer know it (ENDJRNPF, dropped).
    if (advanced)
      await source.saveCheckpoint(
        stops.size === 0
          ? stored.positions
          : Object.fromEntries(Object.entries(stored.positions).filter(([t]) => !stops.has(t))),
      );
    // Compared again at the end of the step, only when saved now (an idle poll serialises nothing).
    const savedPositions = advanced ? JSON.stringify(stored.positions) : null;
    for (const [table, stop] of stops) {
      await this.dropAtTarget(table);
      this.recordStop(stored, table, stop);
    }
    for (const changed of batch.layoutChanged ?? []) await this.reshape(source, stored, changed);
    const applied =
      refused.size > 0 || kept.size > 0
        ? changes.filter((c) => !refused.has(c.table) && !kept.has(c))
        : changes;
    const replaced = new Map<string, number>();
    for (const c of applied) if (c.replaced) replaced.set(c.table, (replaced.get(c.table) ?? 0) + c.replaced);
    for (const [table, values] of replaced)
      this.emit({ kind: 'values-replaced', table, values, by: 'source' });
    if (applied.length > 0) {
      const count = { insert: 0, update: 0, delete: 0 };
      const tables: Record<string, OperationCounts> = {};
      for (const c of applied) {
        count[c.op]++;
        const t = (tables[c.table] ??= { inserts: 0, updates: 0, deletes: 0 });
        t[`${c.op}s`]++;
      }
      this.emit({
        kind: 'batch-applied',
        changes: applied.length,
        inserts: count.insert,
        updates: count.update,
        deletes: count.delete,
        tables,
        position: applied.at(-1)?.position ?? '',
        lagMs: batch.newestCommitTime ? Math.max(0, this.now() - batch.newestCommitTime.getTime()) : null,
      });
    }
    if (this.retries.pending)
      await this.retries.run({
        ...ctx,
        tables: this.tables,
        apply: (rows) => applyAround(target, rows, {}, this.rowDeps),
        reason: (error) => this.reason(error),
        transient: (error) => isTransient(error, this.classify),
      });
    const { copying, refused: copyRefused } = await this.copies.advance(ctx, stored);
    // A copy that keeps failing on its own (a timeout, a deadlock, again and again) is retried as any
    // failure is, then suspended at its cursor when the retries are spent, rather than stop the others.
    for (const t of [...this.copyTries.keys()]) if (!copyRefused.has(t)) this.copyTries.delete(t);
    for (const [table, error] of copyRefused) {
      if (this.tableRetries(error)) {
        const tries = (this.copyTries.get(table) ?? 0) + 1;
        this.copyTries.set(table, tries);
        if (tries < this.retryPolicy.maxAttempts) throw error;
        this.copyTries.delete(table);
        await this.suspendTable(
          stored,
          table,
          `its copy failed ${tries} times in a row, the last time with: ${this.reason(error)}`,
        );
        continue;
      }
      if (!this.tableOwn(error)) throw error;
      await this.suspendTable(stored, table, this.reason(error));
    }
    for (const [table, why] of [...this.overLimit]) await this.suspendTable(stored, table, why);
    for (const [table, values] of Object.entries(target.takeReplaced?.() ?? {}))
      this.emit({ kind: 'values-replaced', table, values, by: 'target' });
    if (batch.caughtUp ?? batch.changes.length === 0) this.caughtUpReadStartedAt = readStartedAt;
    this.verifyStep = await this.verifications.advance({
      ...ctx,
      copying: new Set([...stored.copies].filter(([, c]) => !c.cancelled).map(([t]) => t)),
      caughtUpReadStartedAt: this.caughtUpReadStartedAt,
      streamIdle: batch.changes.length === 0,
      now: () => this.now(),
    });
    // Again when copies moved positions since, or a table restarted; after a (re)connect it is written
    // once anyway, in case a crash came between the target's commit and the source's.
    const movedSince = savedPositions !== null && JSON.stringify(stored.positions) !== savedPositions;
    if (movedSince || (!advanced && (restarted.size > 0 || !this.sourceCaughtUp)))
      await source.saveCheckpoint(stored.positions);
    this.sourceCaughtUp = true;
    await this.recordBacklog(source, refs, stored.positions, batch.caughtUp ?? batch.changes.length === 0);
    // A source that reads some tables from the next step on (a stream's table just taken) is not idle.
    return (
      batch.changes.length === 0 &&
      batch.readNext !== true &&
      restarted.size === 0 &&
      stops.size === 0 &&
      sourceRefused.length === 0 &&
      !batch.layoutChanged?.length &&
      !copying
    );
  }

  /**
   * Whether a change alters what the target holds: an update whose before and after images differ only
   * in columns the entity does not replicate (or in none) is left out — only what changed is applied.
   */
  private touchesTarget(c: Change): boolean {
    if (c.op !== 'update' || c.changedColumns === null) return true;
    const t = this.tables.find((x) => x.source === c.table);
    return !t || c.changedColumns.some((name) => t.columns.some((col) => col.name === name));
  }

  private lastBacklog = 0;
  /** The rows to read the last backlog point said; null before the first or when the source cannot count. */
  private lastBacklogRows: number | null = null;
  /** Whether the source's checkpoint was written since the source was opened. */
  private sourceCaughtUp = false;

  /**
   * A backlog point every `backlogEveryMs`, and at once (at most once a second) when a batch reached the
   * source's end while the last point still counted rows: a drained backlog must not stay on the gauge.
   */
  private async recordBacklog(
    source: SourceAgent,
    refs: TableRef[],
    checkpoint: Checkpoint,
    caughtUp: boolean,
  ): Promise<void> {
    if (!this.o.onBacklog) return;
    const since = this.now() - this.lastBacklog;
    const drained = caughtUp && this.lastBacklogRows !== 0 && since >= BACKLOG_DRAINED_GAP_MS;
    if (!drained && since < (this.o.backlogEveryMs ?? 10_000)) return;
    this.lastBacklog = this.now();
    const figure = await source.backlog(refs, checkpoint);
    this.lastBacklogRows = figure.rowsToRead;
    this.o.onBacklog(figure);
    const stream = this.o.onStreamFigures && (await this.target?.streamFigures?.());
    if (stream) this.o.onStreamFigures?.(stream);
  }
}

export type { RunnerEntity };
