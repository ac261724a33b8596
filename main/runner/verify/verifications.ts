// A pipeline's verify or repair, driven by the runner: one step of one table after each batch, so the
// runner's changes and the verify's reads never interleave within a step. A repair first copies the
// last report's differing rows again (read from the source now, written as upserts and deletes in one
// transaction; changes the pipeline has not applied yet come after them and bring the rows up to
// date), then verifies those tables again.
import { randomUUID } from 'node:crypto';
import type { VerifyOptions, VerifyReport, VerifyStatus } from '../../../shared/verify';
import {
  tableKey,
  type Change,
  type ColumnShape,
  type SourceAgent,
  type TableRef,
} from '../../agents/source';
import type { Target, TargetReadBack, TargetTable } from '../../agents/target';
import { byKey, keyText } from './canonical';
import { rowMatch } from './rowMatch';
import { TableVerifyJob, type Found, type StepResult } from './tableVerify';

export interface VerifyRunContext {
  source: SourceAgent;
  target: Target;
  tables: readonly TargetTable[];
  refs: readonly TableRef[];
  /** Tables whose copy is in progress: verified once it is done. */
  copying: ReadonlySet<string>;
  caughtUpReadStartedAt: number;
  /** The stream's last read found no change: a verify may work longer before the next read. */
  streamIdle: boolean;
  /** Tables whose entity skips the source's deletes: rows only at the target are theirs to keep. */
  keepsDeleted?: ReadonlySet<string>;
  now(): number;
}

/** A verify or repair that cannot start, in words for the API's 409. */
export class VerifyRefused extends Error {}

const REPAIR_ROWS_PER_STEP = 1000;
/**
 * The time a verify works within one runner step before the stream's next read: a second, as a copy
 * (tableCopies.ts), so the stream's lag grows by a second at most while either runs.
 */
const SLICE_MS = 1000;
/** The slice when the stream's last read found nothing: fewer reads of an idle stream between them. */
const IDLE_SLICE_MS = 4000;

export class Verifications {
  private run: {
    id: string;
    kind: 'verify' | 'repair';
    options: VerifyOptions;
    requestedAt: number;
    finishedAt: number | null;
    jobs: TableVerifyJob[];
    /** For a repair: per table, the differences still to copy again. */
    toRepair: Map<string, Found[]>;
    repaired: Record<string, number>;
  } | null = null;

  constructor(private readonly onFinished?: (report: VerifyReport) => void) {}

  get running(): boolean {
    return this.run !== null && this.run.finishedAt === null;
  }

  /** Starts a verify of `tables` (keys of the entities' tables); refused while one runs. */
  verify(tables: readonly string[], options: VerifyOptions, now: number): VerifyReport {
    this.refuseWhileRunning();
    this.run = {
      id: randomUUID(),
      kind: 'verify',
      options,
      requestedAt: now,
      finishedAt: null,
      jobs: tables.map((t) => new TableVerifyJob(t, options)),
      toRepair: new Map(),
      repaired: {},
    };
    return this.report(now) as VerifyReport;
  }

  /** Copies the last verify's differing rows again, then verifies those tables again. */
  repair(now: number): VerifyReport {
    this.refuseWhileRunning();
    const last = this.run;
    if (!last) throw new VerifyRefused('There is no verify to repair from: verify the pipeline first.');
    const differing = last.jobs.filter((j) => j.found.length > 0);
    if (differing.length === 0) throw new VerifyRefused('The last verify found no differences to repair.');
    const partial = differing.find((j) => !j.repairable);
    if (partial)
      throw new VerifyRefused(
        `${partial.table} differs in more rows than a repair copies one by one: copy the table again (a re-snapshot).`,
      );
    this.run = {
      id: randomUUID(),
      kind: 'repair',
      options: last.options,
      requestedAt: now,
      finishedAt: null,
      jobs: differing.map((j) => new TableVerifyJob(j.table, last.options)),
      toRepair: new Map(differing.map((j) => [j.table, [...j.found]])),
      repaired: {},
    };
    return this.report(now) as VerifyReport;
  }

  cancel(now: number): boolean {
    if (!this.running || !this.run) return false;
    for (const j of this.run.jobs) j.cancel(now);
    this.run.toRepair.clear();
    this.close(now);
    return true;
  }

  private refuseWhileRunning(): void {
    if (this.running)
      throw new VerifyRefused('A verify or repair of this pipeline is running: wait for it or cancel it.');
  }

  /** One step of the run, after the runner's batch. */
  async advance(ctx: VerifyRunContext): Promise<StepResult | 'idle'> {
    const run = this.run;
    if (!run || run.finishedAt !== null) return 'idle';
    const readBack = ctx.target.readBack;
    const now = ctx.now();
    if (!readBack) {
      for (const j of run.jobs)
        j.fail(now, `${ctx.target.description} cannot be read back, so it cannot be verified.`);
      this.close(now);
      return 'done';
    }
    for (const [table, found] of run.toRepair) {
      if (ctx.copying.has(table)) continue;
      await this.repairSome(ctx, readBack, table, found);
      if (found.length === 0) run.toRepair.delete(table);
      return 'worked';
    }
    const job = run.jobs.find((j) => !j.finished && !ctx.copying.has(j.table));
    if (!job) {
      if (run.jobs.every((j) => j.finished)) {
        this.close(now);
        return 'done';
      }
      return 'waiting';
    }
    const table = ctx.tables.find((t) => t.source === job.table);
    const ref = ctx.refs.find((r) => tableKey(r) === job.table);
    if (!table || !ref) {
      job.fail(now, 'the pipeline no longer reads this table');
      return 'worked';
    }
    try {
      // Steps for up to a slice of time, then back to the stream: its lag grows by a slice at most.
      // A stream with nothing to read lets a verify work four times as long between its reads.
      const until = now + (ctx.streamIdle ? IDLE_SLICE_MS : SLICE_MS);
      let result: StepResult;
      do
        result = await job.step({
          source: ctx.source,
          readBack,
          // Provenance columns say how a row got there (a copy, a change): never the source's to compare.
          table: { ...table, columns: table.columns.filter((c) => !c.provenance) },
          ref,
          now: ctx.now,
          caughtUpReadStartedAt: ctx.caughtUpReadStartedAt,
          keepsDeleted: ctx.keepsDeleted?.has(job.table) ?? false,
        });
      while (result === 'worked' && !job.finished && ctx.now() < until);
      return result === 'done' ? 'worked' : result;
    } catch (error) {
      // A verify's failure is the verify's, never the pipeline's: the table says why.
      job.fail(ctx.now(), error instanceof Error ? error.message : String(error));
      return 'worked';
    } finally {
      await job.settle();
    }
  }

  /** Up to a step's worth of differing rows read from the source now and written, in one transaction. */
  private async repairSome(
    ctx: VerifyRunContext,
    readBack: TargetReadBack,
    table: string,
    found: Found[],
  ): Promise<void> {
    const ref = ctx.refs.find((r) => tableKey(r) === table);
    const t = ctx.tables.find((x) => x.source === table);
    const some = found.splice(0, REPAIR_ROWS_PER_STEP);
    if (!ref || !t) return;
    const rows = await ctx.source.readRows(
      ref,
      some.map((f) => f.sourceKey),
    );
    const digits = (c: ColumnShape) => readBack.keptDigits(c);
    const bySourceKey = byKey(t.columns, t.key, rows, rowMatch(t.columns, t.key, digits).source);
    const changes: Change[] = some.map((f): Change => {
      const row = bySourceKey.get(keyText(t.key.map((k) => f.key[k] ?? '')))?.row ?? null;
      return row
        ? { table, op: 'insert', key: f.sourceKey, row, changedColumns: null, position: 'repair' }
        : { table, op: 'delete', key: f.targetKey, row: null, changedColumns: null, position: 'repair' };
    });
    // No checkpoint moves: the stream's positions stay where the runner keeps them.
    await ctx.target.apply(changes, {});
    if (this.run) this.run.repaired[table] = (this.run.repaired[table] ?? 0) + changes.length;
  }

  private close(now: number): void {
    if (!this.run) return;
    this.run.finishedAt = now;
    const report = this.report(now);
    if (report) this.onFinished?.(report);
  }

  report(now: number): VerifyReport | null {
    const run = this.run;
    if (!run) return null;
    const tables = run.jobs.map((j) => j.report(now));
    const status: VerifyStatus =
      run.finishedAt === null
        ? run.toRepair.size > 0 || tables.some((t) => t.status === 'verifying')
          ? 'verifying'
          : tables.some((t) => t.status === 'rechecking')
            ? 'rechecking'
            : 'queued'
        : tables.some((t) => t.status === 'cancelled')
          ? 'cancelled'
          : tables.some((t) => t.status === 'failed')
            ? 'failed'
            : 'done';
    return {
      id: run.id,
      kind: run.kind,
      status,
      options: { chunkRows: run.options.chunkRows, rowsPerSecond: run.options.rowsPerSecond },
      requestedAt: new Date(run.requestedAt).toISOString(),
      finishedAt: run.finishedAt === null ? null : new Date(run.finishedAt).toISOString(),
      repaired: { ...run.repaired },
      tables,
    };
  }
}
