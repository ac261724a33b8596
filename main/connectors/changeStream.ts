// One step of a source's stream, the same for every source agent: read the changes since the saved
// checkpoint; snapshot each table that has none or whose changes were lost (saying why, never
// skipping); hand the changes to the sink; save the checkpoint only once the sink has them.
import { tableKey, type Change, type Checkpoint, type Row, type SourceAgent, type TableRef } from './source';

export type StreamEvent =
  | { kind: 'snapshot-started'; table: string; reason: string }
  | { kind: 'snapshot-done'; table: string; rows: number; position: string }
  | { kind: 'resnapshot'; table: string; reason: string }
  | { kind: 'batch-applied'; changes: number; inserts: number; updates: number; deletes: number };

export interface ChangeSink {
  /** A snapshot of the table starts: its rows so far are to be replaced. */
  snapshotBegin(table: string): Promise<void>;
  snapshotRows(table: string, rows: Row[]): Promise<void>;
  /** Applies changes in order; done (committed) when it resolves. */
  apply(changes: Change[]): Promise<void>;
}

export async function streamStep(
  source: SourceAgent,
  tables: readonly TableRef[],
  sink: ChangeSink,
  onEvent: (event: StreamEvent) => void,
  options: { maxRows?: number; pageSize?: number } = {},
): Promise<{ changes: number; checkpoint: Checkpoint }> {
  const saved = await source.loadCheckpoint();
  const batch = await source.readChanges(tables, saved, { maxRows: options.maxRows });
  const checkpoint = { ...batch.checkpoint };
  for (const lost of batch.resnapshot) {
    const ref = tables.find((t) => tableKey(t) === lost.table);
    if (!ref) continue;
    const first = saved[lost.table] === undefined;
    onEvent(
      first
        ? { kind: 'snapshot-started', table: lost.table, reason: 'first run' }
        : { kind: 'resnapshot', table: lost.table, reason: lost.reason },
    );
    await sink.snapshotBegin(lost.table);
    const { position, rows } = await source.snapshot(ref, (page) => sink.snapshotRows(lost.table, page), {
      pageSize: options.pageSize,
    });
    checkpoint[lost.table] = position;
    onEvent({ kind: 'snapshot-done', table: lost.table, rows, position });
  }
  if (batch.changes.length > 0) {
    await sink.apply(batch.changes);
    const count = (op: Change['op']) => batch.changes.filter((c) => c.op === op).length;
    onEvent({
      kind: 'batch-applied',
      changes: batch.changes.length,
      inserts: count('insert'),
      updates: count('update'),
      deletes: count('delete'),
    });
  }
  // Only now, with the sink holding everything up to it, does the checkpoint move at the source.
  await source.saveCheckpoint(checkpoint);
  return { changes: batch.changes.length, checkpoint };
}
