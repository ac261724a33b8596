// The charts' figures: per agent and per source table, a row a minute — changes applied, the peak lag
// and where its time went (the slowest batch's split), and the backlog seen in it — kept a day. Batches add to their minute, so a busy pipeline writes a
// row per table per batch at most, and a window is read back in one grouped query.
import type { Db } from './db';
import { batchFigures, latencyInSeconds, type BatchLatency } from '../../../shared/batchEvent';
import {
  SERIES_WINDOWS,
  type SeriesAnswer,
  type SeriesPoint,
  type SeriesWindow,
} from '../../../shared/liveFeed';

const MINUTE_MS = 60_000;
const KEEP_MINUTES = 24 * 60 + 10;
/** Rows written between two prunings of minutes older than a day. */
const PRUNE_EVERY = 500;
/** The agent as a whole, beside its tables. */
const WHOLE = '';

interface Row {
  tbl: string;
  bucket: number;
  changes: number;
  lag_ms: number | null;
  backlog_rows: number | null;
  source_ms: number | null;
  engine_ms: number | null;
  target_ms: number | null;
}

interface Figures {
  table: string;
  changes: number;
  lagMs: number | null;
  latency: BatchLatency | null;
  backlogRows: number | null;
}

/**
 * Keeps the larger of two figures, either of which may be unknown: a minute's lag is its worst. Its
 * backlog is its newest reading instead, a level: a backlog drained within the minute reads 0 at once.
 */
const PEAK = (column: string) =>
  `${column} = MAX(COALESCE(${column}, excluded.${column}), COALESCE(excluded.${column}, ${column}))`;

/** A part of the split follows the peak lag: the slowest batch's, so the three add up to the lag. */
const OF_PEAK = (column: string) =>
  `${column} = CASE WHEN excluded.lag_ms > COALESCE(lag_ms, -1) THEN excluded.${column} ELSE ${column} END`;
const PARTS = ['source_ms', 'engine_ms', 'target_ms'];

function splitOf(row: Row): SeriesPoint['latency'] {
  const { source_ms: sourceMs, engine_ms: engineMs, target_ms: targetMs } = row;
  return sourceMs === null || engineMs === null || targetMs === null
    ? null
    : latencyInSeconds({ sourceMs, engineMs, targetMs });
}

export function createSeriesStore(db: Db) {
  const upsert = db.prepare(
    `INSERT INTO series (pipeline_id, agent_id, tbl, minute, changes, lag_ms, backlog_rows, ${PARTS.join(', ')})
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (pipeline_id, agent_id, tbl, minute) DO UPDATE SET
       changes = changes + excluded.changes, ${PARTS.map(OF_PEAK).join(', ')}, ${PEAK('lag_ms')},
       backlog_rows = COALESCE(excluded.backlog_rows, backlog_rows)`,
  );
  const prune = db.prepare('DELETE FROM series WHERE minute < ?');
  // A step of several minutes keeps the split of its slowest minute (peak = 1), as each minute keeps its slowest batch's.
  const read = db.prepare<[number, string, string, number], Row>(
    `SELECT tbl, bucket, SUM(changes) AS changes, MAX(lag_ms) AS lag_ms, MAX(backlog_rows) AS backlog_rows,
            ${PARTS.map((p) => `MAX(CASE WHEN peak = 1 THEN ${p} END) AS ${p}`).join(', ')}
       FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY tbl, bucket ORDER BY lag_ms DESC) AS peak
               FROM (SELECT *, CAST(minute * 60 / ? AS INTEGER) AS bucket FROM series
                      WHERE pipeline_id = ? AND agent_id = ? AND minute >= ?))
      GROUP BY tbl, bucket`,
  );
  let written = 0;
  const write = db.transaction(
    (pipelineId: string, agentId: string, at: number, rows: readonly Figures[]) => {
      const minute = Math.floor(at / MINUTE_MS);
      for (const r of rows) {
        const l = r.latency;
        upsert.run(
          pipelineId,
          agentId,
          r.table,
          minute,
          r.changes,
          r.lagMs,
          r.backlogRows,
          l?.sourceMs ?? null,
          l?.engineMs ?? null,
          l?.targetMs ?? null,
        );
      }
      written += rows.length;
      if (written < PRUNE_EVERY) return;
      written = 0;
      prune.run(minute - KEEP_MINUTES);
    },
  );

  return {
    /** A committed batch as the runner reports it (batch-applied): its changes and lag, whole and per table. */
    addBatch(pipelineId: string, agentId: string, at: number, event: object) {
      const { changes, lagMs, latency, tables } = batchFigures(event);
      write(pipelineId, agentId, at, [
        { table: WHOLE, changes, lagMs, latency, backlogRows: null },
        ...tables.map((t) => ({ table: t.table, changes: t.changes, lagMs, latency, backlogRows: null })),
      ]);
    },

    /** A backlog point: the agent's rows waiting, and each table's when the source counts them. */
    addBacklog(
      pipelineId: string,
      agentId: string,
      at: number,
      rows: number | null,
      perTable: readonly { table: string; rowsToRead: number | null }[] = [],
    ) {
      write(pipelineId, agentId, at, [
        { table: WHOLE, changes: 0, lagMs: null, latency: null, backlogRows: rows },
        ...perTable.map((t) => ({
          table: t.table,
          changes: 0,
          lagMs: null,
          latency: null,
          backlogRows: t.rowsToRead,
        })),
      ]);
    },

    /** The window's steps, oldest first, ending with the one now is in; steps without figures included. */
    read(pipelineId: string, agentId: string, window: SeriesWindow, now: number): SeriesAnswer {
      const { seconds, step } = SERIES_WINDOWS[window];
      const count = seconds / step;
      const last = Math.floor(now / 1000 / step);
      const first = last - count + 1;
      const rows = read.all(step, pipelineId, agentId, Math.floor((first * step) / 60));
      const byTable = new Map<string, Map<number, Row>>();
      for (const row of rows) {
        const buckets = byTable.get(row.tbl) ?? new Map<number, Row>();
        buckets.set(row.bucket, row);
        byTable.set(row.tbl, buckets);
      }
      const pointsOf = (buckets: Map<number, Row> | undefined): SeriesPoint[] =>
        Array.from({ length: count }, (_, i) => {
          const bucket = first + i;
          const row = buckets?.get(bucket);
          return {
            at: new Date(bucket * step * 1000).toISOString(),
            changes: row?.changes ?? 0,
            lagSeconds: row?.lag_ms == null ? null : row.lag_ms / 1000,
            backlogRows: row?.backlog_rows ?? null,
            latency: row ? splitOf(row) : null,
          };
        });
      return {
        agentId,
        window,
        stepSeconds: step,
        points: pointsOf(byTable.get(WHOLE)),
        tables: [...byTable.keys()]
          .filter((t) => t !== WHOLE)
          .sort()
          .map((table) => ({ table, points: pointsOf(byTable.get(table)) })),
      };
    },
  };
}

export type SeriesStore = ReturnType<typeof createSeriesStore>;
