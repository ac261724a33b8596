// The exceptions store: rows a target refused, kept with their reason until retried or discarded
// (docs/runner.md). They are production rows: kept by count and age (engine settings), gone with their
// agent, never written to a log; diagnostics carry them masked (maskException).
import type { EngineSettings } from '../../../shared/engineSettings';
import { rowExceptionSchema, type ExactRow, type RowException } from '../../../shared/exceptions';
import { safeJson } from '../../../shared/config/parse';
import type { Db } from './db';

/** A refused row as the store takes it: its values already in exact JSON. */
export interface ExceptionInput {
  table: string;
  op: RowException['op'];
  key: ExactRow;
  position: string;
  values: ExactRow | null;
  error: string;
  /** The record image (hex) of a row the source could not read. */
  raw?: string;
}

interface ExceptionRecord {
  id: number;
  tbl: string;
  op: string;
  key: string;
  position: string;
  row_values: string | null;
  error: string;
  raw: string | null;
  at: string;
  tried_at: string;
  attempts: number;
}

const DAY_MS = 86_400_000;
/** Rows kept between two prunings by count. */
const PRUNE_EVERY = 500;

function toException(r: ExceptionRecord): RowException | null {
  const parsed = rowExceptionSchema.safeParse({
    id: r.id,
    table: r.tbl,
    op: r.op,
    key: safeJson(r.key),
    position: r.position,
    values: r.row_values === null ? null : safeJson(r.row_values),
    error: r.error,
    raw: r.raw,
    at: r.at,
    triedAt: r.tried_at,
    attempts: r.attempts,
  });
  return parsed.success ? parsed.data : null;
}

/** The exception with every value hidden: what a diagnostics bundle may carry (the key too is data). */
export function maskException(e: RowException): RowException {
  const mask = (row: ExactRow) => Object.fromEntries(Object.keys(row).map((k) => [k, '***']));
  return { ...e, key: mask(e.key), values: e.values && mask(e.values), raw: e.raw && '***' };
}

export function createExceptionsStore(db: Db, retention: EngineSettings) {
  const q = {
    keep: db.prepare(
      `INSERT INTO exceptions (pipeline_id, agent_id, tbl, op, key, position, row_values, error, raw, at, tried_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (pipeline_id, agent_id, tbl, key, position) DO UPDATE SET error = excluded.error`,
    ),
    countOf: db.prepare<[string, string, string], { n: number }>(
      'SELECT COUNT(*) AS n FROM exceptions WHERE pipeline_id = ? AND agent_id = ? AND tbl = ?',
    ),
    counts: db.prepare<[string, string], { tbl: string; n: number }>(
      'SELECT tbl, COUNT(*) AS n FROM exceptions WHERE pipeline_id = ? AND agent_id = ? GROUP BY tbl ORDER BY tbl',
    ),
    list: db.prepare<[string, string, string | null, string | null, number], ExceptionRecord>(
      `SELECT * FROM exceptions WHERE pipeline_id = ? AND agent_id = ? AND (? IS NULL OR tbl = ?)
       ORDER BY id DESC LIMIT ?`,
    ),
    one: db.prepare<[string, string, number], ExceptionRecord>(
      'SELECT * FROM exceptions WHERE pipeline_id = ? AND agent_id = ? AND id = ?',
    ),
    remove: db.prepare('DELETE FROM exceptions WHERE pipeline_id = ? AND agent_id = ? AND id = ?'),
    removeTable: db.prepare('DELETE FROM exceptions WHERE pipeline_id = ? AND agent_id = ? AND tbl = ?'),
    removeAll: db.prepare('DELETE FROM exceptions WHERE pipeline_id = ? AND agent_id = ?'),
    refusedAgain: db.prepare(
      'UPDATE exceptions SET error = ?, tried_at = ?, attempts = attempts + 1 WHERE pipeline_id = ? AND agent_id = ? AND id = ?',
    ),
    pruneByCount: db.prepare(
      `DELETE FROM exceptions WHERE pipeline_id = ? AND id <= (
         SELECT id FROM exceptions WHERE pipeline_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`,
    ),
    pruneByAge: db.prepare('DELETE FROM exceptions WHERE at < ?'),
    pipelines: db.prepare<[], { pipeline_id: string }>('SELECT DISTINCT pipeline_id FROM exceptions'),
  };
  let sincePrune = 0;
  const prune = (now: string) => {
    for (const { pipeline_id: p } of q.pipelines.all()) q.pruneByCount.run(p, p, retention.keepExceptions);
    q.pruneByAge.run(new Date(Date.parse(now) - retention.keepExceptionDays * DAY_MS).toISOString());
  };

  return {
    /** Keeps refused rows (a row replayed after a crash once); answers each table's count kept now. */
    keep: (pipelineId: string, agentId: string, rows: readonly ExceptionInput[], at: string) =>
      db.transaction((): Record<string, number> => {
        for (const r of rows)
          q.keep.run(
            pipelineId,
            agentId,
            r.table,
            r.op,
            JSON.stringify(r.key),
            r.position,
            r.values === null ? null : JSON.stringify(r.values),
            r.error,
            r.raw ?? null,
            at,
            at,
          );
        sincePrune += rows.length;
        if (sincePrune >= PRUNE_EVERY) {
          sincePrune = 0;
          prune(at);
        }
        const tables = [...new Set(rows.map((r) => r.table))];
        return Object.fromEntries(tables.map((t) => [t, q.countOf.get(pipelineId, agentId, t)?.n ?? 0]));
      })(),
    /** Rows kept per table. */
    counts: (pipelineId: string, agentId: string): Record<string, number> =>
      Object.fromEntries(q.counts.all(pipelineId, agentId).map((r) => [r.tbl, r.n])),
    /** The newest `limit` rows kept, of one table or all. */
    list: (pipelineId: string, agentId: string, table: string | null, limit: number): RowException[] =>
      q.list.all(pipelineId, agentId, table, table, limit).flatMap((r) => toException(r) ?? []),
    /** The rows a request names: by id, else a table's, else all (at most `limit`, oldest first). */
    select: (
      pipelineId: string,
      agentId: string,
      which: { ids?: readonly number[]; table?: string },
      limit: number,
    ): RowException[] => {
      const records = which.ids
        ? which.ids.flatMap((id) => q.one.get(pipelineId, agentId, id) ?? [])
        : q.list.all(pipelineId, agentId, which.table ?? null, which.table ?? null, limit).reverse();
      return records.flatMap((r) => toException(r) ?? []);
    },
    /** A retry's outcome: rows applied go; rows refused again keep the new error and count the try. */
    retried: (
      pipelineId: string,
      agentId: string,
      outcome: { applied: readonly number[]; refused: readonly { id: number; error: string }[] },
      at: string,
    ) =>
      db.transaction(() => {
        for (const id of outcome.applied) q.remove.run(pipelineId, agentId, id);
        for (const r of outcome.refused) q.refusedAgain.run(r.error, at, pipelineId, agentId, r.id);
      })(),
    /** Discards rows by hand: by id, a table's, or all; answers how many went. */
    discard: (pipelineId: string, agentId: string, which: { ids?: readonly number[]; table?: string }) =>
      db.transaction((): number => {
        if (which.ids)
          return which.ids.reduce((n, id) => n + q.remove.run(pipelineId, agentId, id).changes, 0);
        if (which.table) return q.removeTable.run(pipelineId, agentId, which.table).changes;
        return q.removeAll.run(pipelineId, agentId).changes;
      })(),
    /** Applies the limits now (at start-up). */
    prune,
  };
}

export type ExceptionsStore = ReturnType<typeof createExceptionsStore>;
