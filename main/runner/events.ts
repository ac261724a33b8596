// What a running pipeline reports, kind by kind: the runtime records each as an event (EventKind) and
// feeds the live gauge and metrics from them.
import type { BatchLatency } from '../../shared/batchEvent';

export type { BatchLatency };

/** Changes of a batch by operation. */
export interface OperationCounts {
  inserts: number;
  updates: number;
  deletes: number;
}

export type RunnerState =
  'starting' | 'snapshot' | 'streaming' | 'retrying' | 'paused' | 'stopped' | 'failed';

export type RunnerEvent =
  | { kind: 'started' }
  | { kind: 'snapshot-started'; table: string; reason: string; rowsTotal: number | null }
  | { kind: 'snapshot-resumed'; table: string; rowsDone: number; rowsTotal: number | null }
  /** A chunk read at the source, before its commit at the target (what a crash would read again). */
  | { kind: 'snapshot-chunk-read'; table: string; rows: number }
  | {
      kind: 'snapshot-progress';
      table: string;
      rowsDone: number;
      rowsTotal: number | null;
      rowsPerSecond: number | null;
      secondsLeft: number | null;
    }
  | { kind: 'snapshot-done'; table: string; rows: number; position: string }
  | { kind: 'snapshot-cancelled'; table: string; rowsDone: number; rowsTotal: number | null }
  /** A table started from the source's current position without a copy (snapshot mode). */
  | { kind: 'snapshot-skipped'; table: string; position: string; reason: string }
  | { kind: 'resnapshot'; table: string; reason: string }
  /** The configured stop point reached by every table: the pipeline stops by itself. */
  | { kind: 'stop-point-reached'; at: string }
  /** A rewind taken: `tables` read again from the point `to`, their changes re-applied. */
  | { kind: 'rewound'; to: string; tables: number; reason: string }
  /** A rewind the source cannot give (the point is gone, or names nothing): nothing moved. */
  | { kind: 'rewind-refused'; to: string; reason: string }
  /** The table's columns changed at the source, and the target was altered to match. */
  | { kind: 'schema-changed'; table: string; reason: string }
  /** A change of the table's columns its schema-change policy kept from the target. */
  | { kind: 'schema-change-withheld'; table: string; reason: string }
  /** The table's replication stopped (dropped or renamed at the source); the other tables go on. */
  | { kind: 'table-stopped'; table: string; reason: string }
  /** A failure of the table's own: it waits at its position, the other tables go on, until resumed. */
  | { kind: 'table-suspended'; table: string; reason: string }
  /** A suspended table reads on from where it stood. */
  | { kind: 'table-resumed'; table: string; position: string | null }
  /** Rows of a table the target refused, kept in the exceptions store; the table goes on. */
  | { kind: 'rows-refused'; table: string; rows: number; kept: number; error: string }
  /**
   * Values written otherwise than read, as the DBA chose: by the source's decode policy (invalid decimals
   * and dates), or by the target (PostgreSQL's U+0000 replaced).
   */
  | { kind: 'values-replaced'; table: string; values: number; by: 'source' | 'target' }
  | {
      kind: 'batch-applied';
      changes: number;
      inserts: number;
      updates: number;
      deletes: number;
      position: string;
      /**
       * From the newest change's commit at the source to its commit at the target (the latency's three
       * parts summed); null when the source gives no commit time.
       */
      lagMs: number | null;
      /** lagMs split into where the time went; null with it. */
      latency: BatchLatency | null;
      /** The same counts per source table of the batch. */
      tables: Record<string, OperationCounts>;
    }
  /**
   * A quiet batch carried the source's heartbeat to the target: `at` is when it was written at the
   * source; the latency is measured from it as a batch's is. Fed to the freshness figures, not stored.
   */
  | { kind: 'heartbeat-applied'; at: string; lagMs: number | null; latency: BatchLatency | null }
  /** The source refused the heartbeat (authority missing): the pipeline runs on without it. */
  | { kind: 'heartbeat-refused'; reason: string }
  /** A verify or repair finished (docs/verify.md): what it found, in numbers. */
  | {
      kind: 'verify-finished';
      id: string;
      verify: 'verify' | 'repair';
      status: string;
      rowsCompared: number;
      missing: number;
      extra: number;
      different: number;
      repaired: number;
    }
  | { kind: 'retrying'; attempt: number; delayMs: number; reason: string }
  | { kind: 'failed'; reason: string }
  | { kind: 'paused' }
  | { kind: 'resumed' }
  | { kind: 'stopped' };
