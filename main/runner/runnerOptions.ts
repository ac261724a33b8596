// What a pipeline runner is given: how to open its two ends, its entities and settings, what to do
// with what it reports, and the clock it waits on (a seam for tests).
import type {
  DroppedColumns,
  DroppedTables,
  OnTableError,
  SchemaChanges,
  SnapshotMode,
} from '../../shared/agents/common';
import type { ProvenanceColumns } from '../../shared/shaping';
import type { VerifyReport } from '../../shared/verify';
import type { SourceAgent, SourceBacklog } from '../agents/source';
import type { RefusedRow } from '../agents/spi';
import type { Target } from '../agents/target';
import type { RunnerEvent } from './events';
import type { ErrorClassifier } from './failures';
import type { RunnerEntity } from './targetTables';
import type { StreamFigures } from '../../shared/liveFeed';

export interface RunnerOptions {
  openSource: () => Promise<SourceAgent>;
  openTarget: () => Promise<Target>;
  /** A stream target's figures, told with each backlog point (the target answers them). */
  onStreamFigures?: (figures: StreamFigures) => void;
  /**
   * The source's and the target's agents' verdicts on their drivers' errors, for failures before
   * either has opened (the runtime passes the plugins'); once open, each answers for itself.
   */
  classifyError?: ErrorClassifier;
  entities: readonly RunnerEntity[];
  /** Tables to copy again as the run starts, with why (their shaping changed while it did not run). */
  copyAtStart?: readonly { table: string; reason: string }[];
  /** The provenance columns the pipeline names (docs/shaping.md), added to every table. */
  provenance?: ProvenanceColumns;
  /** The source's Mask salt, the key of hashed columns (docs/shaping.md); never logged or told. */
  maskSalt?: string;
  onEvent?: (event: RunnerEvent) => void;
  /** A table's own failure (the table refused, its chunk unreadable): that table suspended, or the pipeline. */
  onTableError?: OnTableError;
  /**
   * Keeps rows the target refused (the engine's exceptions store) and answers, per table of them, how
   * many of its rows are kept in all. Without it a refused row is the table's failure: never a skip.
   */
  onRowsRefused?: (rows: RefusedRow[]) => Record<string, number>;
  /** Rows kept per table past which the table is suspended (the pipeline setting maxExceptions). */
  maxExceptions?: number;
  /** What a column added or dropped at the source does (the pipeline setting; an entity may set its own). */
  schemaChanges?: SchemaChanges;
  /** What a table dropped at the source does at the target: kept (stopped), dropped, or suspended. */
  droppedTables?: DroppedTables;
  /** A verify or repair finished: its whole report (the event has its numbers). */
  onVerified?: (report: VerifyReport) => void;
  /** A backlog point now and then (at most every `backlogEveryMs`, 10 s by default). */
  onBacklog?: (backlog: SourceBacklog) => void;
  backlogEveryMs?: number;
  /** Wait between reads when the source is idle. */
  idleMs?: number;
  maxRows?: number;
  /** Rows per chunk of a table copy: the pipeline setting of that name, its default when left out. */
  snapshotChunkRows?: number;
  /** Tables copied at once (1); the stream keeps its own turn between steps. */
  copyConcurrency?: number;
  /** How long a step copies before the stream reads again (1 s); 0: one chunk per table per step. */
  copyStepMs?: number;
  snapshotMode?: SnapshotMode;
  /** A column dropped at the source: kept at the target (nullable) or dropped there too. */
  droppedColumns?: DroppedColumns;
  retry?: { firstDelayMs: number; maxDelayMs: number; maxAttempts: number };
  /** Seam: the clock (lag, backlog spacing) and the waits between reads and retries. */
  clock?: RunnerClock;
}

export interface RunnerClock {
  now(): number;
  /** Resolves after `ms`, or at once when `wake` is called (pause, resume, stop). */
  sleep(ms: number, wake: (cut: () => void) => void): Promise<void>;
}

/** The real clock: Date.now, and timers. */
export const systemClock: RunnerClock = {
  now: () => Date.now(),
  sleep: (ms, wake) =>
    new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      wake(done);
    }),
};
