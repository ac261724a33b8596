// A pipeline at work: the source's tables described and created at the target, then steps: one batch
// of the change stream for every table, committed with its checkpoint at the target, then one chunk of
// each table being copied (several at once), each committed with its cursor. So the stream never
// waits for a copy, and a restart resumes a copy after its last chunk (docs/snapshots.md has the
// algorithm and why the target converges). The source's own checkpoint follows the target's commit.
// Lost connections are retried with backoff; what cannot heal stops the pipeline with its reason.
// This file is the runner's face (its controls, the loop, the retries); the work is done in rooms:
// connect.ts (a (re)connect), step.ts (one step's story), batchApply.ts (per-table isolation),
// tableStops.ts, shapeChanges.ts, sourceFollow.ts (read-ahead, backlog), tableCopies.ts and
// verify/, all sharing one RunContext (runContext.ts).
import { tableKey } from '../agents/source';
import type { RetryItem, RetryOutcome } from '../agents/spi';
import type { TableSnapshot } from '../../shared/snapshots';
import type { VerifyOptions, VerifyReport } from '../../shared/verify';
import { applyChunk } from './batchApply';
import { connect } from './connect';
import type { RunnerState } from './events';
import { atTarget, isTransient, PermanentFailure } from './failures';
import { DEFAULT_SNAPSHOT_CHUNK_ROWS, RunContext } from './runContext';
import { systemClock, type RunnerOptions } from './runnerOptions';
import { step } from './step';
import { COPY_STEP_MS, TableCopies } from './tableCopies';
import { reshapedTables } from '../../shared/shaping';
import type { RunnerEntity } from './targetTables';
import { VerifyRefused } from './verify/verifications';

export type { RunnerClock, RunnerOptions } from './runnerOptions';
export { systemClock } from './runnerOptions';

export class PipelineRunner {
  /** What the rooms share (runContext.ts): the open source and target, tables, copies, stops. */
  private readonly run: RunContext;
  private wake?: () => void;
  private loop?: Promise<void>;
  private pausedWaiters: (() => void)[] = [];

  constructor(private readonly o: RunnerOptions) {
    this.run = new RunContext(
      o,
      (run) =>
        new TableCopies({
          emit: (e) => run.emit(e),
          now: () => run.now(),
          atTarget,
          permanent: (message) => new PermanentFailure(message),
          applyChunk: (target, table, chunk, position, checkpoint) =>
            applyChunk(run, target, table, chunk, position, checkpoint),
          snapshotChunkRows: o.snapshotChunkRows ?? DEFAULT_SNAPSHOT_CHUNK_ROWS,
          concurrency: o.copyConcurrency ?? 1,
          stepMs: o.copyStepMs ?? COPY_STEP_MS,
          interrupted: () => run.wantStop || run.wantPause,
          mode: o.snapshotMode ?? 'initial',
        }),
    );
    for (const { table, reason } of o.copyAtStart ?? []) this.run.copies.request(table, 'copy', reason);
  }

  get state(): RunnerState {
    return this.run.state;
  }

  get failure(): string | null {
    return this.run.failure;
  }

  /** The stop point (stopAt) the pipeline stopped at by itself; null when it did not. */
  get stoppedAt(): string | null {
    return this.run.stoppedAt;
  }

  /** A copy of one entity's table (again), at the next step; false when no entity reads that table. */
  requestSnapshot(table: string): boolean {
    if (!this.run.entities.some((e) => tableKey(e.source) === table)) return false;
    const stop = this.run.stopped.get(table);
    // Asked before the first connect, a table may yet turn out stopped: the request takes it up then.
    if (stop || !this.run.tables.some((t) => t.source === table)) {
      // Described again at the next step: copied if it is back, stopped again with the reason if not.
      this.run.stopped.delete(table);
      this.run.takingUp.add(table);
      this.run.reshaped = true;
    }
    this.run.copies.request(
      table,
      'copy',
      stop ? `asked for by hand after it had stopped (${stop.reason})` : undefined,
    );
    this.wake?.();
    return true;
  }

  /**
   * Every table with a position back to `to` (a position of the source's kind, or a time, as startAt
   * reads it) at the next step, its changes since applied again; a `rewound` or `rewind-refused`
   * event tells the outcome. A later request replaces one not yet taken.
   */
  requestRewind(to: string): void {
    this.run.rewindTo = to;
    this.wake?.();
  }

  /** Stops a table's copy at the next step (its rows so far stay; its changes keep flowing). */
  cancelSnapshot(table: string): boolean {
    const copy = this.run.copies.snapshots().find((c) => c.table === table);
    if (copy?.status !== 'copying' && copy?.status !== 'queued') return false;
    this.run.copies.request(table, 'cancel');
    this.wake?.();
    return true;
  }

  /**
   * A suspended table reads on from where it stood (its copy, if one ran, from its cursor), at the next
   * step; a table stopped without a position to go back to (gone at the source) is copied again.
   * False when no entity reads that table or it is not stopped.
   */
  resumeTable(table: string): 'resumed' | 'copied' | false {
    const stop = this.run.stopped.get(table);
    if (!stop || !this.run.entities.some((e) => tableKey(e.source) === table)) return false;
    if (stop.resumeFrom === undefined) return this.requestSnapshot(table) && 'copied';
    this.run.stopped.delete(table);
    this.run.takingUp.add(table);
    this.run.resuming.add(table);
    this.run.reviewed.add(table);
    this.run.reshaped = true;
    this.wake?.();
    return 'resumed';
  }

  /**
   * Reads the kept rows again from the source by key, now, and applies what it holds (the row, or its
   * absence as a delete), at the next step; answers each item's outcome then. Rows of a table that is
   * not read (suspended) wait: resume it first.
   */
  retryRows(items: readonly RetryItem[]): Promise<RetryOutcome[]> {
    const answer = this.run.retries.ask(items);
    this.wake?.();
    return answer;
  }

  /** For a source shared among engines: the tables this engine applies now; null for any other. */
  heldTables(): string[] | null {
    return this.run.source?.heldTables?.() ?? null;
  }

  /** The copies of this run: in progress, queued, cancelled, finished; and the tables stopped. */
  snapshots(): TableSnapshot[] {
    const stopped = [...this.run.stopped].map(([table, stop]): TableSnapshot => ({
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
    return [...this.run.copies.snapshots().filter((c) => !this.run.stopped.has(c.table)), ...stopped];
  }

  /**
   * Verifies one entity's table (`schema.table`) or every table read, a step after each batch while the
   * pipeline runs (docs/verify.md). Throws VerifyRefused when one runs or the table is not read.
   */
  requestVerify(table: string | undefined, options: VerifyOptions): VerifyReport {
    const tables = this.run.reading().map((e) => tableKey(e.source));
    if (table !== undefined && !tables.includes(table))
      throw new VerifyRefused(`No entity of this pipeline reads ${table} (or its replication has stopped).`);
    const report = this.run.verifications.verify(
      table === undefined ? tables : [table],
      options,
      this.run.now(),
    );
    this.wake?.();
    return report;
  }

  /** Copies the last verify's differing rows again, then verifies those tables again. */
  requestRepair(): VerifyReport {
    const report = this.run.verifications.repair(this.run.now());
    this.wake?.();
    return report;
  }

  cancelVerify(): boolean {
    return this.run.verifications.cancel(this.run.now());
  }

  /** The verify or repair running, or the last one; null before the first. */
  verifyReport(): VerifyReport | null {
    return this.run.verifications.report(this.run.now());
  }

  /** New entities while running: a table added is copied alone, the others stream on. */
  setEntities(entities: readonly RunnerEntity[]): void {
    // The rows at the target were shaped the old way (a mask added would leave clear values there):
    // a table whose shaping changed is copied again, asked at the next connect once the new shaping
    // is in force (a step under way would copy with the old one).
    for (const table of reshapedTables(this.run.entities, entities, (e) => tableKey(e.source)))
      this.run.reshapedCopies.add(table);
    this.run.entities = entities;
    this.run.reshaped = true;
    this.wake?.();
  }

  /** Runs until stopped or failed; resolves then. */
  start(): Promise<void> {
    this.loop ??= this.runLoop(false);
    return this.loop;
  }

  /** Runs until the source has nothing more to give (tests, one-shot copies), then stops. */
  runUntilCaughtUp(): Promise<void> {
    this.loop ??= this.runLoop(true);
    return this.loop;
  }

  /** Resolves once the current batch is done and the runner waits (or has stopped). */
  pause(): Promise<void> {
    this.run.wantPause = true;
    this.wake?.();
    if (this.run.state === 'paused' || !this.loop) return Promise.resolve();
    return new Promise((resolve) => this.pausedWaiters.push(resolve));
  }

  resume(): void {
    if (!this.run.wantPause) return;
    this.run.wantPause = false;
    // While paused the engine measured the backlog itself: the first batch to drain it says so at once.
    this.run.lastBacklogRows = null;
    this.run.emit({ kind: 'resumed' });
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.run.wantStop = true;
    this.wake?.();
    await this.loop?.catch(() => undefined);
  }

  private sleep(ms: number): Promise<void> {
    return (this.o.clock ?? systemClock).sleep(ms, (cut) => (this.wake = cut));
  }

  private async runLoop(untilCaughtUp: boolean): Promise<void> {
    const retry = this.run.retryPolicy;
    let attempt = 0;
    this.run.emit({ kind: 'started' });
    try {
      while (!this.run.wantStop) {
        if (this.run.wantPause) {
          if (this.run.state !== 'paused') this.run.emit({ kind: 'paused' });
          this.run.state = 'paused';
          for (const resolve of this.pausedWaiters.splice(0)) resolve();
          await this.sleep(60_000);
          continue;
        }
        try {
          await connect(this.run);
          const idle = await step(this.run);
          attempt = 0;
          if (idle && untilCaughtUp && !this.run.verifications.running) break;
          // A verify at work keeps the loop going; one waiting (its rate, or the stream) waits with it.
          if (idle && this.run.verifyStep !== 'worked') await this.sleep(this.o.idleMs ?? 1000);
        } catch (error) {
          // The source and the target sort their own drivers' errors (the plugins', passed in, before
          // either has opened); the runner knows none.
          if (!isTransient(error, this.run.classify) || ++attempt > retry.maxAttempts) throw error;
          const delayMs = Math.min(retry.maxDelayMs, retry.firstDelayMs * 2 ** (attempt - 1));
          this.run.state = 'retrying';
          this.run.emit({ kind: 'retrying', attempt, delayMs, reason: this.run.reason(error) });
          await this.disconnect();
          await this.sleep(delayMs);
        }
      }
      this.run.state = 'stopped';
      this.run.emit({ kind: 'stopped' });
    } catch (error) {
      this.run.state = 'failed';
      this.run.failure = this.run.reason(error);
      this.run.emit({ kind: 'failed', reason: this.run.failure });
    } finally {
      this.run.retries.abandon(
        `The pipeline ${this.run.state === 'failed' ? 'failed' : 'stopped'} before the retry ran.`,
      );
      await this.disconnect();
      for (const resolve of this.pausedWaiters.splice(0)) resolve();
    }
  }

  private async disconnect(): Promise<void> {
    this.run.readAhead = null;
    const { source, target } = this.run;
    this.run.source = undefined;
    this.run.target = undefined;
    await source?.close().catch(() => undefined);
    await target?.close().catch(() => undefined);
  }
}

export type { RunnerEntity };
