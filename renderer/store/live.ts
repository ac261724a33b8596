// What a pushed status or event changes in the open pipeline: its agent's state, the gauge's figure, the
// event list, the charts' newest step, and — only when an event says they changed — its copies or its
// verify, read once. The whole pipeline is read once when it is opened (refreshRun); never on a timer.
import type { AgentStatus, SeriesAnswer, SeriesPoint } from '../../shared/liveFeed';
import type { z } from 'zod';
import type { backlogPointSchema } from '../../shared/controlApi';
import type { PushMessage } from '../../shared/push';
import { batchFigures, latencyInSeconds } from '../../shared/batchEvent';
import { address, EVENTS_KEPT, patch, refreshCopies, refreshVerify, withAgent } from './pipelinePage';
import { refreshExceptions } from './exceptions';
import { useStore } from './index';
import { runPart, shownNow } from './answerOrder';

type Status = Extract<PushMessage, { type: 'status' }>;
type Event = Extract<PushMessage, { type: 'event' }>;

/** A step with nothing in it yet. */
const emptyStep = (at: string): SeriesPoint => ({
  at,
  changes: 0,
  lagSeconds: null,
  backlogRows: null,
  latency: null,
});

/**
 * Adds to the step `at` falls in, moving the window on when it is past the newest step. As the engine
 * keeps it (store/series.ts): the step's changes summed, its lag the peak with its batch's split, and
 * its backlog the newest reading, a level (a backlog drained within the minute reads 0 at once). A
 * step of several minutes (the day's) is the highest of its minutes' readings: the peak, here.
 */
export function addToSeries(
  points: SeriesPoint[],
  stepSeconds: number,
  at: string,
  add: {
    changes?: number;
    lagSeconds?: number | null;
    latency?: SeriesPoint['latency'];
    backlogRows?: number | null;
  },
): SeriesPoint[] {
  const stepMs = stepSeconds * 1000;
  const bucket = Math.floor(Date.parse(at) / stepMs) * stepMs;
  let next = points;
  const last = next.at(-1);
  if (last && bucket > Date.parse(last.at)) {
    const added: SeriesPoint[] = [];
    for (let t = Date.parse(last.at) + stepMs; t <= bucket; t += stepMs)
      added.push(emptyStep(new Date(t).toISOString()));
    next = [...next, ...added].slice(-next.length);
  }
  const peak = (a: number | null, b: number | null | undefined) =>
    b === undefined || b === null ? a : a === null ? b : Math.max(a, b);
  // The step's split is its slowest batch's, as the engine keeps it (store/series.ts).
  const slower = (p: SeriesPoint) =>
    add.lagSeconds !== undefined && add.lagSeconds !== null && add.lagSeconds > (p.lagSeconds ?? -1);
  return next.map((p) =>
    Date.parse(p.at) !== bucket
      ? p
      : {
          ...p,
          changes: p.changes + (add.changes ?? 0),
          lagSeconds: peak(p.lagSeconds, add.lagSeconds),
          backlogRows:
            stepSeconds > 60 ? peak(p.backlogRows, add.backlogRows) : (add.backlogRows ?? p.backlogRows),
          latency: slower(p) ? (add.latency ?? null) : p.latency,
        },
  );
}

function seriesWithBatch(series: SeriesAnswer, at: string, data: object): SeriesAnswer {
  const batch = batchFigures(data);
  const lagSeconds = batch.lagMs === null ? null : batch.lagMs / 1000;
  const latency = batch.latency && latencyInSeconds(batch.latency);
  const add = (points: SeriesPoint[], changes: number) =>
    addToSeries(points, series.stepSeconds, at, { changes, lagSeconds, latency });
  const tables = series.tables.map((t) => {
    const counts = batch.tables.find((b) => b.table === t.table);
    return counts ? { ...t, points: add(t.points, counts.changes) } : t;
  });
  for (const counts of batch.tables)
    if (!tables.some((t) => t.table === counts.table)) {
      const empty = series.points.map((p) => emptyStep(p.at));
      tables.push({ table: counts.table, points: add(empty, counts.changes) });
    }
  return { ...series, points: add(series.points, batch.changes), tables };
}

type BacklogPoint = z.infer<typeof backlogPointSchema>;

/**
 * The gauge's point for a pushed status: its rows waiting and time left; what only the source's own
 * query tells (minutes left by its estimate, versions behind) taken from `known`, the point before.
 */
export function backlogPointOf(
  status: AgentStatus,
  at: string,
  known?: BacklogPoint | null,
): BacklogPoint | null {
  if (status.backlogRows === null) return null;
  return {
    at,
    rowsToRead: status.backlogRows,
    minutesLeft: known?.minutesLeft ?? null,
    versionsBehind: known?.versionsBehind ?? null,
    measuredMinutesLeft: status.secondsLeft === null ? null : status.secondsLeft / 60,
  };
}

const isOpen = (profileId: string, pipelineId: string) => {
  const at = address();
  return at !== undefined && at.profileId === profileId && at.pipelineId === pipelineId ? at : undefined;
};

function applyStatus(message: Status): void {
  const { profileId, agents, backlog, series } = useStore.getState().pipelinePage;
  if (profileId !== message.profileId || !agents) return;
  const { status } = message;
  // Any agent of the engine shown: its state in the picker; the open one's gauge and chart as well.
  // Each is newer than what a read sent before it answers (answerOrder).
  shownNow(runPart('agent', message));
  const withState = withAgent(agents, message.pipelineId, message.agentId, (a) => ({
    ...a,
    state: status.state,
    failureReason: status.failureReason,
  }));
  const at = isOpen(message.profileId, message.pipelineId);
  if (!at || at.agentId !== message.agentId) {
    patch({ agents: withState });
    return;
  }
  const point = backlogPointOf(status, message.at, backlog?.current);
  if (backlog && point) shownNow(runPart('backlog', at));
  patch({
    agents: withState,
    // The gauge follows the runner's backlog points.
    backlog: backlog && point ? { ...backlog, unavailableReason: null, current: point } : backlog,
    series:
      series && status.backlogRows !== null
        ? {
            ...series,
            points: addToSeries(series.points, series.stepSeconds, message.at, {
              backlogRows: status.backlogRows,
            }),
          }
        : series,
  });
}

function applyEvent(message: Event): void {
  const at = isOpen(message.profileId, message.pipelineId);
  if (!at) return;
  const { events, series } = useStore.getState().pipelinePage;
  const { event } = message;
  if (events?.some((e) => e.id === event.id)) return;
  patch({
    events: [...(events ?? []), event].slice(-EVENTS_KEPT),
    series:
      series && event.kind === 'batch-applied' && event.agentId === at.agentId
        ? seriesWithBatch(series, event.at, event.data)
        : series,
  });
  if (/^(snapshot|resnapshot|table-)/.test(event.kind)) void refreshCopies();
  if (/^(verify|repair)/.test(event.kind)) void refreshVerify();
  if (/^(rows-refused|exceptions-)/.test(event.kind)) void refreshExceptions();
}

export function applyToOpenPipeline(message: Status | Event): void {
  if (message.type === 'status') applyStatus(message);
  else applyEvent(message);
}
