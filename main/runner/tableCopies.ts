// The copies (snapshots) of a running pipeline's tables: started when a table has no position (or lost
// it), or on request; advanced one chunk per table per runner step, several tables at once; each chunk
// committed at the target with its cursor in the table's checkpoint row; cancelled on request.
// docs/snapshots.md explains why the target ends equal to the source.
import type { SnapshotMode } from '../../shared/agents/common';
import type { CopyState, TableSnapshot } from '../../shared/snapshots';
import {
  tableKey,
  type Checkpoint,
  type Row,
  type SnapshotChunk,
  type SourceAgent,
  type TableRef,
} from '../agents/source';
import type { Target, TargetTable } from '../agents/target';
import { rowBytesBound } from '../agents/columnWidths';
import { copyRate, storedPosition, type StoredCheckpoint } from './copies';
import type { RunnerEvent } from './events';

/** A table to start again, and why: it had no position, or lost the one it had (`lost`). */
export interface Restarted {
  ref: TableRef;
  table: TargetTable;
  why: { reason: string; lost: boolean };
}

export interface CopyContext {
  source: SourceAgent;
  target: Target;
  tables: readonly TargetTable[];
  refs: readonly TableRef[];
}

export interface TableCopiesOptions {
  emit(event: RunnerEvent): void;
  now(): number;
  /** Marks what the target throws (the runner names the target in the reason). */
  atTarget<T>(work: Promise<T>): Promise<T>;
  /** Thrown for what no retry heals. */
  permanent(message: string): Error;
  /**
   * Writes a chunk's rows (upserts at the table's `position`) with the copy's checkpoint in one
   * transaction; rows the target refuses are kept aside by the runner and the rest go in.
   */
  applyChunk(
    target: Target,
    table: TargetTable,
    chunk: Pick<SnapshotChunk, 'rows' | 'unreadable' | 'replaced'>,
    position: string,
    checkpoint: Checkpoint,
  ): Promise<void>;
  snapshotChunkRows: number;
  concurrency: number;
  /** How long one step copies before the stream is read again (COPY_STEP_MS unless a test says). */
  stepMs: number;
  /** Whether the runner is stopping or pausing: the step ends after the chunk being committed. */
  interrupted(): boolean;
  mode: SnapshotMode;
}

/** What one chunk may hold in memory: a table of wide rows (LOBs) gets chunks of fewer rows. */
const CHUNK_BYTES = 32 * 2 ** 20;
/**
 * How long one runner step copies before the change stream reads again: chunks follow each other
 * within it (each read while the last is written), so a copy runs near the speed of the slower side,
 * and the stream waits at most this long plus a chunk.
 */
export const COPY_STEP_MS = 1000;
/** A table's first chunk when its declared types set no bound on a row (a LOB, `(max)`). */
const FIRST_CHUNK_ROWS = 100;
/** Rows of a chunk whose sizes are added up for the next chunk's size: spread over the chunk. */
const SIZED_ROWS = 256;

/** A row's size in memory, roughly: text two bytes a character, bytes as they are, the rest eight. */
function rowBytes(row: Row): number {
  let n = 0;
  for (const v of Object.values(row))
    n += typeof v === 'string' ? v.length * 2 : v instanceof Uint8Array ? v.byteLength : 8;
  return n;
}

/** The rows' average size, from up to SIZED_ROWS of them spread over the chunk. */
function averageRowBytes(rows: readonly Row[]): number {
  const step = Math.max(1, Math.floor(rows.length / SIZED_ROWS));
  let bytes = 0;
  let counted = 0;
  for (let i = 0; i < rows.length; i += step, counted++) bytes += rowBytes(rows[i] as Row);
  return bytes / counted;
}

export class TableCopies {
  private readonly requests = new Map<string, { kind: 'copy' | 'cancel'; reason: string }>();
  /** Rows copied since this process took the copy up: its rate. */
  private readonly runs = new Map<string, { since: number; rows: number }>();
  private readonly finished = new Map<string, TableSnapshot>();
  private current = new Map<string, CopyState>();
  /** Per table, the average size of its rows in the last chunk: the next chunk's row count. */
  private readonly rowSize = new Map<string, number>();
  /** The entities' tables in their order. */
  private order: string[] = [];

  constructor(private readonly o: TableCopiesOptions) {}

  /** A copy (again) of a table, or the cancel of its copy, at the next step. */
  request(table: string, kind: 'copy' | 'cancel', reason = 'asked for by hand'): void {
    // One copy answers two reasons: the first asked is the one told (a shaping changed, say, before
    // the column it renamed is reconciled at the target).
    if (kind === 'copy' && this.requests.get(table)?.kind === 'copy') return;
    this.requests.set(table, { kind, reason });
  }

  /** Every copy this run knows: running, queued, cancelled, and those finished since the start. */
  snapshots(): TableSnapshot[] {
    const active = [...this.current];
    const running = new Set(this.activeTables(this.current));
    const now = this.o.now();
    return [
      ...active.map(([table, c]): TableSnapshot => {
        const status = c.cancelled ? 'cancelled' : running.has(table) ? 'copying' : 'queued';
        return {
          table,
          status,
          reason: c.reason,
          rowsDone: c.rowsDone,
          rowsTotal: c.rowsTotal,
          ...(status === 'copying'
            ? copyRate(c, this.runs.get(table), now)
            : { rowsPerSecond: null, secondsLeft: null }),
          startedAt: c.startedAt,
          finishedAt: null,
        };
      }),
      ...[...this.finished.values()].filter((f) => !this.current.has(f.table)),
    ];
  }

  /** The copies found at the target when the runner (re)connects: each resumes after its last chunk. */
  resume(stored: StoredCheckpoint): void {
    this.current = new Map(stored.copies);
    for (const [table, c] of stored.copies) {
      if (c.cancelled) continue;
      if (!this.runs.has(table)) this.runs.set(table, { since: this.o.now(), rows: 0 });
      this.o.emit({ kind: 'snapshot-resumed', table, rowsDone: c.rowsDone, rowsTotal: c.rowsTotal });
    }
  }

  /** Starts or cancels what was asked for since the last step. */
  async takeRequests(ctx: CopyContext, stored: StoredCheckpoint): Promise<void> {
    this.order = ctx.refs.map(tableKey);
    for (const [table, { kind, reason }] of [...this.requests]) {
      this.requests.delete(table);
      const t = ctx.tables.find((x) => x.source === table);
      const ref = ctx.refs.find((r) => tableKey(r) === table);
      if (!t || !ref) continue;
      if (kind === 'copy') {
        await this.start(ctx, stored, ref, t, reason);
        continue;
      }
      const copy = stored.copies.get(table);
      const position = stored.positions[table];
      if (!copy || copy.cancelled || position === undefined) continue;
      copy.cancelled = true;
      await this.o.atTarget(ctx.target.apply([], { [table]: storedPosition(position, copy) }));
      this.runs.delete(table);
      this.o.emit({ kind: 'snapshot-cancelled', table, rowsDone: copy.rowsDone, rowsTotal: copy.rowsTotal });
    }
    this.current = new Map(stored.copies);
  }

  /**
   * Tables the stream cannot read from where they stand: no position yet, or one lost (`lost`). The
   * snapshot mode decides for each between a copy, the current position without a copy, and a stop.
   * Those taken from the current position are asked for it together and written in one transaction:
   * a start of a thousand files makes no round trip per file.
   */
  async restart(ctx: CopyContext, stored: StoredCheckpoint, tables: readonly Restarted[]): Promise<void> {
    const fromNow: Restarted[] = [];
    for (const r of tables) {
      const copy =
        this.o.mode === 'initial' ||
        (this.o.mode === 'when-needed' && r.why.lost) ||
        // A copy cut short by its lost position starts again, whatever the mode: it was asked for.
        stored.copies.has(r.table.source);
      if (copy) await this.start(ctx, stored, r.ref, r.table, r.why.reason);
      else if (r.why.lost)
        throw this.o.permanent(
          `${r.why.reason} The snapshot mode is "never", so the pipeline stops rather than skip changes: ` +
            `ask for a re-snapshot of ${r.table.source}, or set the snapshot mode to "when-needed".`,
        );
      else fromNow.push(r);
    }
    if (fromNow.length === 0) return;
    const refs = fromNow.map((r) => r.ref);
    const found = ctx.source.snapshotStarts
      ? await ctx.source.snapshotStarts(refs)
      : new Map<string, string>();
    const checkpoint: Checkpoint = {};
    for (const r of fromNow)
      checkpoint[r.table.source] = found.get(tableKey(r.ref)) ?? (await ctx.source.snapshotStart(r.ref));
    await this.o.atTarget(ctx.target.apply([], checkpoint));
    for (const r of fromNow) {
      const position = checkpoint[r.table.source] as string;
      stored.positions[r.table.source] = position;
      this.o.emit({
        kind: 'snapshot-skipped',
        table: r.table.source,
        position,
        reason: `The snapshot mode is "${this.o.mode}": ${r.table.source} starts from ${ctx.source.startsFrom ?? 'the current position'} without a copy.`,
      });
    }
  }

  /** Empties the target table and records where its changes start, in one transaction. */
  private async start(
    ctx: CopyContext,
    stored: StoredCheckpoint,
    ref: TableRef,
    table: TargetTable,
    reason: string,
  ): Promise<void> {
    // The position comes first: every change after it is read, whatever the chunks see.
    const position = await ctx.source.snapshotStart(ref);
    const rowsTotal = await ctx.source.countRows(ref).catch(() => null);
    const copy: CopyState = {
      cursor: null,
      rowsDone: 0,
      rowsTotal,
      reason,
      startedAt: new Date(this.o.now()).toISOString(),
    };
    const start = { [table.source]: storedPosition(position, copy) };
    // A target without tables keeps only the copy's start: its rows follow as a fresh load.
    await this.o.atTarget(ctx.target.clear ? ctx.target.clear(table, start) : ctx.target.apply([], start));
    stored.positions[table.source] = position;
    stored.copies.set(table.source, copy);
    this.current = new Map(stored.copies);
    this.runs.set(table.source, { since: this.o.now(), rows: 0 });
    this.finished.delete(table.source);
    this.o.emit({ kind: 'snapshot-started', table: table.source, reason, rowsTotal });
  }

  /**
   * Rows for a table's next chunk: the setting, fewer when its rows are wide (memory stays bounded).
   * The first chunk is sized by the declared types (their widest row) or, when a column has no bound,
   * is small: its rows' sizes set the next one's.
   */
  private chunkRows(table: TargetTable): number {
    const size = this.rowSize.get(table.source);
    const fit = size ? Math.floor(CHUNK_BYTES / Math.max(1, size)) : this.firstChunkRows(table);
    return Math.max(1, Math.min(this.o.snapshotChunkRows, fit));
  }

  /** A table's first chunk, before any of its rows was measured: by its declared types' widest row. */
  private firstChunkRows(table: TargetTable): number {
    const bound = rowBytesBound(table.columns);
    return bound === Infinity
      ? FIRST_CHUNK_ROWS
      : Math.max(FIRST_CHUNK_ROWS, Math.floor(CHUNK_BYTES / Math.max(1, bound)));
  }

  /** The tables with a copy to run, in the entities' order. */
  private toCopy(copies: ReadonlyMap<string, CopyState>): string[] {
    return this.order.filter((t) => copies.has(t) && !copies.get(t)?.cancelled);
  }

  /** The tables copied now: the first ones in the entities' order, as many as the concurrency allows. */
  private activeTables(copies: ReadonlyMap<string, CopyState>): string[] {
    return this.toCopy(copies).slice(0, Math.max(1, this.o.concurrency));
  }

  /**
   * Chunks of each running copy for up to COPY_STEP_MS: as many tables read at once as the
   * concurrency allows, and a slot whose table finishes takes the next waiting one within the same
   * step (a fast link would otherwise leave it idle until the next). Each chunk is committed as soon
   * as it is read while the table's next chunk is read meanwhile (the source works while the target
   * writes). Every chunk read is committed before this returns, so no stream batch comes between a
   * chunk's read and its commit (docs/snapshots.md). Answers whether copies remain, and the tables
   * whose chunk failed, each with its error: a table's failure does not hold another's commit (the
   * runner decides whether it stops that table or the pipeline).
   */
  async advance(
    ctx: CopyContext,
    stored: StoredCheckpoint,
  ): Promise<{ copying: boolean; refused: Map<string, unknown> }> {
    const waiting = this.toCopy(stored.copies);
    const until = this.o.now() + this.o.stepMs;
    const refused = new Map<string, unknown>();
    const commits = { writing: Promise.resolve() };
    const slot = async () => {
      for (let name = waiting.shift(); name !== undefined; name = waiting.shift()) {
        const finished = await this.copyFor(ctx, stored, name, until, commits).catch((e: unknown) => {
          refused.set(name as string, e);
          return false;
        });
        if (!finished || this.o.now() >= until || this.o.interrupted()) return;
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, this.o.concurrency) }, slot));
    this.current = new Map(stored.copies);
    return { copying: [...stored.copies.values()].some((c) => !c.cancelled), refused };
  }

  /** One table's chunks until the step's end; answers whether its copy finished. */
  private async copyFor(
    ctx: CopyContext,
    stored: StoredCheckpoint,
    name: string,
    until: number,
    commits: { writing: Promise<void> },
  ): Promise<boolean> {
    const table = ctx.tables.find((x) => x.source === name) as TargetTable;
    const ref = ctx.refs.find((r) => tableKey(r) === name) as TableRef;
    let copy = stored.copies.get(name) as CopyState;
    // Another step is owed at once when the runner stops or pauses, or the table's copy is asked
    // to start again or cancel: a chunk read ahead is then left uncommitted, its rows read again.
    const owed = () => this.o.interrupted() || this.requests.has(name);
    let reading: ReturnType<TableCopies['readChunk']> | null = this.readChunk(ctx, ref, table, copy.cursor);
    try {
      for (;;) {
        const chunk = await (reading as ReturnType<TableCopies['readChunk']>);
        reading = null;
        if (
          chunk.next === null &&
          chunk.rows.length === 0 &&
          copy.rowsDone === 0 &&
          (copy.rowsTotal ?? 0) > 0
        )
          await this.refuseEmpty(ctx, ref);
        // The next chunk is read while this one is written, unless this step's time is spent.
        const more = chunk.next !== null && this.o.now() < until && !owed();
        if (more) reading = this.readChunk(ctx, ref, table, chunk.next);
        // Commits one after the other, whichever table they are of; one that fails does not stop the next.
        const state = copy;
        const mine = commits.writing
          .catch(() => undefined)
          .then(() => this.commit(ctx, stored, table, state, chunk));
        commits.writing = mine;
        await mine;
        if (!more || owed()) return chunk.next === null && !owed();
        copy = stored.copies.get(name) as CopyState;
      }
    } finally {
      // Never left running past the step: the source is the stream's again after it.
      await reading?.catch(() => undefined);
    }
  }

  private async readChunk(ctx: CopyContext, ref: TableRef, table: TargetTable, cursor: string | null) {
    const name = table.source;
    const chunk = await ctx.source.readChunk(ref, cursor, this.chunkRows(table));
    if (chunk.rows.length > 0) this.rowSize.set(name, averageRowBytes(chunk.rows));
    this.o.emit({ kind: 'snapshot-chunk-read', table: name, rows: chunk.rows.length });
    return chunk;
  }

  /**
   * A copy that read no row of a table the source counted rows in is never "done": counted again now,
   * rows still there mean the read did not see them (a query limit, a row filter, a permission), and
   * the table fails with that reason instead of standing empty at the target.
   */
  private async refuseEmpty(ctx: CopyContext, ref: TableRef): Promise<void> {
    const rows = await ctx.source.countRows(ref).catch(() => null);
    if (rows === null || rows === 0) return;
    throw this.o.permanent(
      `its copy read no row while the source holds ${rows} (counted again now): the read did not see them ` +
        '(a row filter or permission on the agent’s login, or the source’s query limits), so it is not marked done',
    );
  }

  private async commit(
    ctx: CopyContext,
    stored: StoredCheckpoint,
    table: TargetTable,
    copy: CopyState,
    chunk: Awaited<ReturnType<SourceAgent['readChunk']>>,
  ): Promise<void> {
    const name = table.source;
    const position = stored.positions[name] as string;
    const next: CopyState = { ...copy, cursor: chunk.next, rowsDone: copy.rowsDone + chunk.rows.length };
    const done = chunk.next === null;
    // Copied rows go in as upserts: a row the stream already wrote is overwritten by what the chunk read.
    await this.o.applyChunk(ctx.target, table, chunk, position, {
      [name]: storedPosition(position, done ? undefined : next),
    });
    const run = this.runs.get(name) ?? { since: this.o.now(), rows: 0 };
    run.rows += chunk.rows.length;
    this.runs.set(name, run);
    const rate = copyRate(next, run, this.o.now());
    this.o.emit({
      kind: 'snapshot-progress',
      table: name,
      rowsDone: next.rowsDone,
      rowsTotal: next.rowsTotal,
      ...rate,
    });
    // What the status shows moves with each chunk, not once a step.
    if (!done) {
      stored.copies.set(name, next);
      this.current.set(name, next);
      return;
    }
    stored.copies.delete(name);
    this.current.delete(name);
    this.runs.delete(name);
    this.finished.set(name, {
      table: name,
      status: 'done',
      reason: copy.reason,
      rowsDone: next.rowsDone,
      rowsTotal: next.rowsTotal,
      rowsPerSecond: rate.rowsPerSecond,
      secondsLeft: 0,
      startedAt: copy.startedAt,
      finishedAt: new Date(this.o.now()).toISOString(),
    });
    this.o.emit({ kind: 'snapshot-done', table: name, rows: next.rowsDone, position });
  }
}
