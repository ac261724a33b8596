// One step of a running pipeline: requests taken, one batch of the change stream for every table read
// and committed with its checkpoint at the target (tables refused alone suspended, the rest applied),
// the source's checkpoint following that commit, then one chunk of each table being copied, a slice
// of a verify, and a backlog point. step() tells that story; each part is a function below it.
import type { Change, ChangeBatch, Checkpoint, SourceAgent, TableRef } from '../agents/source';
import { tableKey } from '../agents/source';
import type { Target, TargetTable } from '../agents/target';
import { applyBatch, keepRefused, rowDepsOf, type BatchOutcome } from './batchApply';
import { parseStored, storedCheckpoint, storedStop, type StoredCheckpoint, type TableStop } from './copies';
import type { BatchLatency, OperationCounts } from './events';
import { atTarget, isTransient, PermanentFailure } from './failures';
import { applyAround } from './rowRefusals';
import type { Restarted } from './tableCopies';
import type { RunContext } from './runContext';
import { reshape } from './shapeChanges';
import { takeRewind } from './rewind';
import { beatWhenDue } from './heartbeat';
import { checkpointText, recordBacklog, startReadAhead } from './sourceFollow';
import { droppedStop, dropAtTarget, recordStop, suspendTable } from './tableStops';

/** What every part of a step reads: the open source and target, the tables at the target, those read. */
interface StepScene {
  source: SourceAgent;
  target: Target;
  tables: TargetTable[];
  refs: TableRef[];
}

/**
 * One step: requests taken, one batch of changes for every table (tables without a position started),
 * then one chunk of each table being copied. Answers whether there was nothing to do.
 */
export async function step(run: RunContext): Promise<boolean> {
  const source = run.source as SourceAgent;
  const target = run.target as Target;
  const refs = run.reading().map((e) => e.source);
  const ctx: StepScene = { source, target, tables: run.tables, refs };
  // What the target holds once this step commits, kept here rather than read back.
  const stored = parseStored(await atTarget(target.loadCheckpoint()));
  const known = new Set(refs.map(tableKey));
  for (const t of [...stored.copies.keys()]) if (!known.has(t)) stored.copies.delete(t);
  await run.copies.takeRequests(ctx, stored);
  await takeRewind(run, ctx, stored);
  const saved = { ...stored.positions };
  // Engines sharing the source: the positions as stored now, which this step's commit must still find.
  const storedNow = source.sharedAmongEngines === true ? await atTarget(target.loadCheckpoint()) : undefined;
  await beatWhenDue(run, source);
  const { batch, readStartedAt, readAt, restarted } = await readBatch(run, ctx, stored, saved);
  run.state = stored.copies.size > 0 ? 'snapshot' : 'streaming';
  const stream = await commitStream(run, ctx, stored, { saved, storedNow }, batch, restarted);
  const { savedPositions, advanced } = await followCommit(run, source, stored, batch, stream);
  tellApplied(run, stream, batch, readAt);
  // Every table read up to the configured stop point, and applied: the pipeline ends there.
  if (batch.stoppedAt !== undefined && stored.copies.size === 0 && run.stoppedAt === null) {
    run.stoppedAt = batch.stoppedAt;
    run.emit({ kind: 'stop-point-reached', at: batch.stoppedAt });
    run.wantStop = true;
  }
  const copying = await copyStep(run, ctx, stored);
  if (batch.caughtUp ?? batch.changes.length === 0) run.caughtUpReadStartedAt = readStartedAt;
  run.verifyStep = await run.verifications.advance({
    ...ctx,
    copying: new Set([...stored.copies].filter(([, c]) => !c.cancelled).map(([t]) => t)),
    caughtUpReadStartedAt: run.caughtUpReadStartedAt,
    streamIdle: batch.changes.length === 0,
    keepsDeleted: new Set(
      run.entities
        .filter((e) => e.skipOperations?.includes('delete') || e.tableMode?.kind === 'softDelete')
        .map((e) => tableKey(e.source)),
    ),
    now: () => run.now(),
  });
  // Again when copies moved positions since, or a table restarted; after a (re)connect it is written
  // once anyway, in case a crash came between the target's commit and the source's.
  const movedSince = savedPositions !== null && JSON.stringify(stored.positions) !== savedPositions;
  if (movedSince || (!advanced && (restarted.size > 0 || !run.sourceCaughtUp)))
    await source.saveCheckpoint(stored.positions);
  run.sourceCaughtUp = true;
  await recordBacklog(run, source, refs, stored.positions, batch.caughtUp ?? batch.changes.length === 0);
  // A source that reads some tables from the next step on (a stream's table just taken) is not idle.
  return (
    batch.changes.length === 0 &&
    batch.readNext !== true &&
    restarted.size === 0 &&
    stream.stops.size === 0 &&
    stream.sourceRefused.length === 0 &&
    !batch.layoutChanged?.length &&
    !copying
  );
}

/** The step's batch (the one read ahead, if it starts where the target is), and the tables it restarted. */
async function readBatch(run: RunContext, ctx: StepScene, stored: StoredCheckpoint, saved: Checkpoint) {
  const { source, refs } = ctx;
  const ahead = run.readAhead;
  run.readAhead = null;
  const usable = ahead?.from === checkpointText(saved) ? ahead : null;
  const readStartedAt = usable ? usable.startedAt : run.now();
  const batch = usable ? usable.batch : await source.readChanges(refs, saved, { maxRows: run.o.maxRows });
  const readAt = usable ? usable.readAt : run.now();
  const restarting: Restarted[] = [];
  // By key, once: a first start of a thousand files restarts every one of them.
  const tables = batch.resnapshot.length ? new Map(run.tables.map((t) => [t.source, t])) : null;
  const byKey = batch.resnapshot.length ? new Map(refs.map((r) => [tableKey(r), r])) : null;
  for (const lost of batch.resnapshot) {
    const table = tables?.get(lost.table);
    const ref = byKey?.get(lost.table);
    if (!table || !ref) continue;
    const hadPosition = saved[lost.table] !== undefined;
    if (hadPosition) run.emit({ kind: 'resnapshot', table: lost.table, reason: lost.reason });
    restarting.push({ ref, table, why: { reason: lost.reason, lost: hadPosition } });
  }
  if (restarting.length > 0) {
    run.state = 'snapshot';
    await run.copies.restart(ctx, stored, restarting);
  }
  return { batch, readStartedAt, readAt, restarted: new Set(restarting.map((r) => r.table.source)) };
}

/** What the stream's commit leaves for the rest of the step. */
interface CommittedStream {
  checkpoint: Checkpoint;
  moved: boolean;
  changes: readonly Change[];
  outcome: BatchOutcome;
  stops: Map<string, TableStop>;
  sourceRefused: NonNullable<ChangeBatch['refusedTables']>;
  /** When the target was handed the batch and when it committed it (run.now()); null: nothing applied. */
  applyTimes: { startedAt: number; at: number } | null;
}

/**
 * The batch committed at the target with its checkpoint and its table stops; rows the source could not
 * read kept aside, tables refused whole or refused by the source suspended at their own position.
 */
async function commitStream(
  run: RunContext,
  ctx: StepScene,
  stored: StoredCheckpoint,
  /** The positions at the step's start, and for a source shared among engines, at the target then. */
  { saved, storedNow }: { saved: Checkpoint; storedNow: Checkpoint | undefined },
  batch: ChangeBatch,
  restarted: Set<string>,
): Promise<CommittedStream> {
  const { source, target, refs } = ctx;
  // Read only for a source shared among engines (step): whether it is one, without asking again.
  const shared = storedNow !== undefined;
  // Tables (re)started just now committed their own position; the batch does not carry theirs.
  const checkpoint: Checkpoint = Object.fromEntries(
    Object.entries(batch.checkpoint).filter(([t]) => !restarted.has(t)),
  );
  const moved = Object.entries(checkpoint).some(([t, p]) => saved[t] !== p);
  const touching = batch.changes.some((c) => !touchesTarget(run, c))
    ? batch.changes.filter((c) => touchesTarget(run, c))
    : batch.changes;
  // Rows the source could not read are kept aside, never applied; without a store to keep them in,
  // or when the DBA chose whole transactions, the pipeline stops rather than skip them.
  const unreadable = touching.filter((c) => c.unreadable);
  const first = unreadable[0]?.unreadable;
  if (first && (!run.o.onRowsRefused || run.stopsPipeline)) throw new PermanentFailure(first.reason);
  const changes = first ? touching.filter((c) => !c.unreadable) : touching;
  // Tables the source refused to read (authority revoked) wait at their position, suspended.
  const sourceRefused = batch.refusedTables ?? [];
  if (sourceRefused[0] && run.stopsPipeline) throw new PermanentFailure(sourceRefused[0].reason);
  // A table that stops commits its last changes with its stop, in the batch's transaction.
  const stops = new Map(
    (batch.stopped ?? []).map((s): [string, TableStop] => [s.table, droppedStop(run, s.reason)]),
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
    !run.verifications.running &&
    !shared
      ? startReadAhead(run, source, refs, { ...saved, ...checkpoint })
      : null;
  const fence =
    storedNow && Object.fromEntries(Object.keys(checkpoint).map((t) => [t, storedNow[t] ?? null]));
  let outcome: BatchOutcome = { refused: new Map(), kept: new Set() };
  let applyTimes: CommittedStream['applyTimes'] = null;
  try {
    if (changes.length > 0 || moved || stops.size > 0) {
      const startedAt = run.now();
      outcome = await applyBatch(run, target, changes, written, fence);
      applyTimes = { startedAt, at: run.now() };
    }
  } finally {
    if (readAhead) run.readAhead = await readAhead;
  }
  const { refused } = outcome;
  keepRefused(
    run,
    unreadable.flatMap((c) =>
      c.unreadable && !refused.has(c.table) ? [{ change: c, error: new Error(c.unreadable.reason) }] : [],
    ),
  );
  // A table refused whole stays at its own position, where it resumes.
  Object.assign(
    stored.positions,
    Object.fromEntries(Object.entries(checkpoint).filter(([t]) => !refused.has(t))),
  );
  for (const [table, error] of refused) await suspendTable(run, stored, table, run.reason(error));
  for (const r of sourceRefused) await suspendTable(run, stored, r.table, r.reason);
  return { checkpoint, moved, changes, outcome, stops, sourceRefused, applyTimes };
}

/**
 * After the commit: the source's checkpoint follows it at once (a backlog read after "Applied" counts
 * from it, and no status is owed to correct the gauge later), stopped tables recorded, and tables
 * whose layout changed described again. Answers the positions as saved at the source, when saved.
 */
async function followCommit(
  run: RunContext,
  source: SourceAgent,
  stored: StoredCheckpoint,
  batch: ChangeBatch,
  { moved, stops }: CommittedStream,
): Promise<{ advanced: boolean; savedPositions: string | null }> {
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
    await dropAtTarget(run, table);
    recordStop(run, stored, table, stop);
  }
  for (const changed of batch.layoutChanged ?? []) await reshape(run, source, stored, changed);
  return { advanced, savedPositions };
}

/**
 * The changes that went in, told: values the source replaced, the batch's counts and its latency (or,
 * for a quiet batch, the heartbeat's).
 */
function tellApplied(
  run: RunContext,
  { changes, outcome: { refused, kept }, applyTimes }: CommittedStream,
  batch: ChangeBatch,
  readAt: number,
): void {
  const applied =
    refused.size > 0 || kept.size > 0
      ? changes.filter((c) => !refused.has(c.table) && !kept.has(c))
      : changes;
  const replaced = new Map<string, number>();
  for (const c of applied) if (c.replaced) replaced.set(c.table, (replaced.get(c.table) ?? 0) + c.replaced);
  for (const [table, values] of replaced) run.emit({ kind: 'values-replaced', table, values, by: 'source' });
  // A quiet batch whose position the heartbeat moved: its commit at the target measures the path.
  if (batch.changes.length === 0 && batch.heartbeatAt && applyTimes)
    run.emit({
      kind: 'heartbeat-applied',
      at: batch.heartbeatAt.toISOString(),
      ...latencyOf(batch.heartbeatAt, readAt, applyTimes),
    });
  if (applied.length === 0) return;
  const count = { insert: 0, update: 0, delete: 0 };
  const tables: Record<string, OperationCounts> = {};
  for (const c of applied) {
    count[c.op]++;
    const t = (tables[c.table] ??= { inserts: 0, updates: 0, deletes: 0 });
    t[`${c.op}s`]++;
  }
  run.emit({
    kind: 'batch-applied',
    changes: applied.length,
    inserts: count.insert,
    updates: count.update,
    deletes: count.delete,
    tables,
    position: applied.at(-1)?.position ?? '',
    ...latencyOf(batch.newestCommitTime, readAt, applyTimes),
  });
}

/**
 * Where the batch's time went, from its newest change's commit at the source to its commit at the
 * target: reading it (source), the engine's own work until the target was handed it (engine), and the
 * target's apply and commit (target). The source's clock may run ahead of the engine's: its part never
 * goes below 0, and the end-to-end figure is the sum of the three, so the split always adds up.
 */
function latencyOf(
  commit: Date | null | undefined,
  readAt: number,
  applyTimes: CommittedStream['applyTimes'],
): { lagMs: number | null; latency: BatchLatency | null } {
  if (!commit || !applyTimes) return { lagMs: null, latency: null };
  const latency = {
    sourceMs: Math.max(0, readAt - commit.getTime()),
    engineMs: Math.max(0, applyTimes.startedAt - readAt),
    targetMs: applyTimes.at - applyTimes.startedAt,
  };
  return { lagMs: latency.sourceMs + latency.engineMs + latency.targetMs, latency };
}

/**
 * Rows asked to be retried, then one chunk of each copy. A copy that keeps failing on its own (a
 * timeout, a deadlock, again and again) is retried as any failure is, then suspended at its cursor
 * when the retries are spent, rather than stop the others. Tables past their limit of rows kept aside
 * are suspended. Answers whether a copy is still going.
 */
async function copyStep(run: RunContext, ctx: StepScene, stored: StoredCheckpoint): Promise<boolean> {
  const { target } = ctx;
  if (run.retries.pending)
    await run.retries.run({
      ...ctx,
      tables: run.tables,
      apply: (rows) => applyAround(target, rows, {}, rowDepsOf(run)),
      reason: (error) => run.reason(error),
      transient: (error) => isTransient(error, run.classify),
    });
  const { copying, refused: copyRefused } = await run.copies.advance(ctx, stored);
  for (const t of [...run.copyTries.keys()]) if (!copyRefused.has(t)) run.copyTries.delete(t);
  for (const [table, error] of copyRefused) {
    if (run.tableRetries(error)) {
      const tries = (run.copyTries.get(table) ?? 0) + 1;
      run.copyTries.set(table, tries);
      if (tries < run.retryPolicy.maxAttempts) throw error;
      run.copyTries.delete(table);
      await suspendTable(
        run,
        stored,
        table,
        `its copy failed ${tries} times in a row, the last time with: ${run.reason(error)}`,
      );
      continue;
    }
    if (!run.tableOwn(error)) throw error;
    await suspendTable(run, stored, table, run.reason(error));
  }
  for (const [table, why] of [...run.overLimit]) await suspendTable(run, stored, table, why);
  for (const [table, values] of Object.entries(target.takeReplaced?.() ?? {}))
    run.emit({ kind: 'values-replaced', table, values, by: 'target' });
  return copying;
}

/**
 * Whether a change alters what the target holds: an update whose before and after images differ only
 * in columns the entity does not replicate (or in none) is left out — only what changed is applied.
 */
function touchesTarget(run: RunContext, c: Change): boolean {
  if (c.op !== 'update' || c.changedColumns === null) return true;
  const t = run.tables.find((x) => x.source === c.table);
  return !t || c.changedColumns.some((name) => t.columns.some((col) => col.name === name));
}
