// What the runner's rooms share while a pipeline runs: the open source and target, the tables at the
// target, the tables stopped on their own and the requests about them, the copies and verifies in
// progress, and the runner's ways to tell (emit), to read the time and to judge a failure. The rooms
// (connect, step, batchApply, tableStops, shapeChanges, sourceFollow) are functions of it; only
// pipelineRunner.ts drives them.
import { pipelineSettings } from '../../shared/agents/common';
import { verifyTotals, type VerifyReport } from '../../shared/verify';
import { AgentConnectionError } from '../agents/connectionError';
import { StartUnavailable } from '../agents/startPoint';
import { tableKey, type ChangeBatch, type SourceAgent } from '../agents/source';
import type { Target, TargetTable } from '../agents/target';
import type { TableStop } from './copies';
import type { RunnerEvent, RunnerState } from './events';
import { ExceptionRetries } from './exceptionRetries';
import { FROM_TARGET, isTransient, reasonOf, type ErrorClassifier } from './failures';
import { systemClock, type RunnerOptions } from './runnerOptions';
import type { TableCopies } from './tableCopies';
import type { RunnerEntity } from './targetTables';
import { Verifications } from './verify/verifications';

/** A batch read while the previous one was applied, and where it was read from. */
export interface ReadAhead {
  /** The checkpoint it was read from (checkpointText). */
  from: string;
  startedAt: number;
  /** When its read came back: where the batch's time at the source ends (its latency split). */
  readAt: number;
  batch: ChangeBatch;
}

/** The snapshotChunkRows and maxExceptions settings' defaults, as their declarations give them. */
export const { snapshotChunkRows: DEFAULT_SNAPSHOT_CHUNK_ROWS, maxExceptions: DEFAULT_MAX_EXCEPTIONS } =
  pipelineSettings.parse({});

export class RunContext {
  state: RunnerState = 'starting';
  failure: string | null = null;
  /** How the source and the target last opened sort their drivers' errors. */
  classifiers: ErrorClassifier[] = [];
  source?: SourceAgent;
  target?: Target;
  targetDescription = 'The target';
  tables: TargetTable[] = [];
  entities: readonly RunnerEntity[];
  wantPause = false;
  /** A rewind asked for (the point, as the DBA gave it), taken at the next step. */
  rewindTo: string | null = null;
  /** The stop point the pipeline stopped at by itself (stopAt), once reached. */
  stoppedAt: string | null = null;
  wantStop = false;
  /** The entities changed while running: tables are described and prepared again at the next step. */
  reshaped = false;
  /** Tables whose shaping changed: copied again once the next connect has put the new shaping in force. */
  readonly reshapedCopies = new Set<string>();
  readonly copies: TableCopies;
  /** Per table being copied, its chunk's failures in a row that a retry may heal. */
  readonly copyTries = new Map<string, number>();
  /** Tables stopped on their own (kept at the target too): not read until copied again. */
  stopped = new Map<string, TableStop>();
  /** Stopped tables asked to be copied again: read from the next (re)connect. */
  readonly takingUp = new Set<string>();
  /** Tables past maxExceptions in this step, with why: suspended at its end. */
  readonly overLimit = new Map<string, string>();
  /** Suspended tables asked to resume: their kept entry goes back at the next (re)connect. */
  readonly resuming = new Set<string>();
  /** Tables resumed after a review of their schema change: it is propagated once, whatever the policy. */
  readonly reviewed = new Set<string>();
  readonly retries = new ExceptionRetries();
  readonly verifications = new Verifications((r) => this.emitVerified(r));
  verifyStep: Awaited<ReturnType<Verifications['advance']>> = 'idle';
  /** When the latest read that reached the end of the source's changes began: what a verify waits for. */
  caughtUpReadStartedAt = -Infinity;
  /** The next batch, read while the last one was applied (null: none, or it failed and is read again). */
  readAhead: ReadAhead | null = null;
  lastBacklog = 0;
  /** The rows to read the last backlog point said; null before the first or when the source cannot count. */
  lastBacklogRows: number | null = null;
  /** Whether the source's checkpoint was written since the source was opened. */
  sourceCaughtUp = false;
  /** When the source's heartbeat was last written (run.now()). */
  lastBeatAt = -Infinity;
  /** The source refused the heartbeat: this run goes on without it. */
  heartbeatRefused = false;

  constructor(
    readonly o: RunnerOptions,
    copies: (run: RunContext) => TableCopies,
  ) {
    this.entities = o.entities;
    this.copies = copies(this);
  }

  emit(event: RunnerEvent): void {
    this.o.onEvent?.(event);
  }

  now(): number {
    return (this.o.clock ?? systemClock).now();
  }

  get retryPolicy() {
    return this.o.retry ?? { firstDelayMs: 500, maxDelayMs: 30_000, maxAttempts: 10 };
  }

  /** An error in words, the target's named as the target describes itself. */
  reason(error: unknown): string {
    const fromTarget = !!error && typeof error === 'object' && FROM_TARGET in error;
    return fromTarget ? `${this.targetDescription}: ${reasonOf(error)}` : reasonOf(error);
  }

  /** The entities whose tables are read: all but those stopped. */
  reading(): RunnerEntity[] {
    return this.entities.filter((e) => !this.stopped.has(tableKey(e.source)));
  }

  /** The DBA chose whole transactions: a table's own failure stops the pipeline (onTableError). */
  get stopsPipeline(): boolean {
    return this.o.onTableError === 'stop-pipeline';
  }

  /** The source's and the target's verdicts on an error (the plugins', before either has opened). */
  readonly classify: ErrorClassifier = (error) =>
    // A start point the source no longer holds stays so until the DBA changes startAt.
    error instanceof StartUnavailable
      ? 'permanent'
      : [...this.classifiers, this.o.classifyError].map((c) => c?.(error)).find((v) => v !== undefined);

  /** Whether a failure is one table's own (a refusal no retry heals) and the setting lets that table stop alone. */
  tableOwn(error: unknown): boolean {
    return (
      !this.stopsPipeline && !isTransient(error, this.classify) && !(error instanceof AgentConnectionError)
    );
  }

  /** Whether a failure that a retry may heal is retried for its table alone, then the table suspended. */
  tableRetries(error: unknown): boolean {
    return (
      !this.stopsPipeline && isTransient(error, this.classify) && !(error instanceof AgentConnectionError)
    );
  }

  /** Whether an error refuses the rows applied (kept aside as exceptions) rather than their table. */
  refusesRow(error: unknown): boolean {
    return !!this.o.onRowsRefused && this.tableOwn(error) && (this.target?.refusesRow?.(error) ?? false);
  }

  private emitVerified(r: VerifyReport): void {
    this.o.onVerified?.(r);
    this.emit({ kind: 'verify-finished', id: r.id, verify: r.kind, status: r.status, ...verifyTotals(r) });
  }
}
