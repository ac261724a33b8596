// A batch-applied event's figures, read once for everyone who counts them (the engine's metrics and
// charts, the renderer's live charts): its data is the runner's object, untyped once it has crossed a
// store or the wire, so each figure that is not a finite number reads as absent.
import type { LatencySplit } from './liveFeed';

/** A batch's latency, in milliseconds, by where the time went; the three add up to its lag. */
export interface BatchLatency {
  /** From the newest change's commit at the source until the engine had read it. */
  sourceMs: number;
  /** From the read until the target was handed the batch: the engine's own work and waits. */
  engineMs: number;
  /** The target's apply, up to its commit. */
  targetMs: number;
}

/** The split in seconds, as a status and a chart step carry it (LatencySplit). */
export function latencyInSeconds(l: BatchLatency): LatencySplit {
  return {
    sourceSeconds: l.sourceMs / 1000,
    engineSeconds: l.engineMs / 1000,
    targetSeconds: l.targetMs / 1000,
  };
}

export interface BatchFigures {
  changes: number;
  /** From the newest change's commit at the source to its commit at the target; null when unknown. */
  lagMs: number | null;
  /** lagMs by where the time went; null when unknown (and from runners that do not say). */
  latency: BatchLatency | null;
  /** Per source table of the batch: its changes by operation, and their sum. */
  tables: { table: string; inserts: number; updates: number; deletes: number; changes: number }[];
}

export const finiteOrNull = (v: unknown): number | null =>
  typeof v === 'number' && Number.isFinite(v) ? v : null;

export function batchFigures(data: object): BatchFigures {
  const d = data as Record<string, unknown>;
  const perTable = d.tables && typeof d.tables === 'object' ? Object.entries(d.tables) : [];
  return {
    changes: finiteOrNull(d.changes) ?? 0,
    lagMs: finiteOrNull(d.lagMs),
    latency: latencyOf(d.latency),
    tables: perTable.map(([table, counts]) => {
      const c = (counts ?? {}) as Record<string, unknown>;
      const inserts = finiteOrNull(c.inserts) ?? 0;
      const updates = finiteOrNull(c.updates) ?? 0;
      const deletes = finiteOrNull(c.deletes) ?? 0;
      return { table, inserts, updates, deletes, changes: inserts + updates + deletes };
    }),
  };
}

function latencyOf(v: unknown): BatchLatency | null {
  if (!v || typeof v !== 'object') return null;
  const l = v as Record<string, unknown>;
  const sourceMs = finiteOrNull(l.sourceMs);
  const engineMs = finiteOrNull(l.engineMs);
  const targetMs = finiteOrNull(l.targetMs);
  return sourceMs === null || engineMs === null || targetMs === null
    ? null
    : { sourceMs, engineMs, targetMs };
}
