// What a pushed status or event changes in the open pipeline: its agent's state, the gauge's figure, the
// event list, the charts' newest step, and — only when an event says they changed — its copies or its
// verify, read once. The whole pipeline is read once when it is opened (refreshRun); never on a timer.
import type { SeriesAnswer, SeriesPoint } from '../../shared/liveFeed';
import type { PushMessage } from '../../shared/push';
import { address, EVENTS_KEPT, patch, refreshCopies, refreshVerify } from './checks';
import { useStore } from './index';

type Status = Extract<PushMessage, { type: 'status' }>;
type Event = Extract<PushMessage, { type: 'event' }>;

/** Adds to the step `at` falls in, moving the window on when it is past the newest step. */
function addToSeries(
  points: SeriesPoint[],
  stepSeconds: number,
  at: string,
  add: { changes?: number; lagSeconds?: number | null; backlogRows?: number | null },
): SeriesPoint[] {
  const stepMs = stepSeconds * 1000;
  const bucket = Math.floor(Date.parse(at) / stepMs) * stepMs;
  let next = points;
  const last = next.at(-1);
  if (last && bucket > Date.parse(last.at)) {
    const added: SeriesPoint[] = [];
    for (let t = Date.parse(last.at) + stepMs; t <= bucket; t += stepMs)
      added.push({ at: new Date(t).toISOString(), changes: 0, lagSeconds: null, backlogRows: null });
    next = [...next, ...added].slice(-next.length);
  }
  const peak = (a: number | null, b: number | null | undefined) =>
    b === undefined || b === null ? a : a === null ? b : Math.max(a, b);
  return next.map((p) =>
    Date.parse(p.at) !== bucket
      ? p
      : {
          ...p,
          changes: p.changes + (add.changes ?? 0),
          lagSeconds: peak(p.lagSeconds, add.lagSeconds),
          backlogRows: peak(p.backlogRows, add.backlogRows),
        },
  );
}

function seriesWithBatch(series: SeriesAnswer, at: string, data: Record<string, unknown>): SeriesAnswer {
  const changes = typeof data.changes === 'number' ? data.changes : 0;
  const lagSeconds = typeof data.lagMs === 'number' ? data.lagMs / 1000 : null;
  const perTable =
    data.tables && typeof data.tables === 'object' ? (data.tables as Record<string, unknown>) : {};
  const tableChanges = (counts: unknown) => {
    const c = (counts ?? {}) as Record<string, unknown>;
    return ['inserts', 'updates', 'deletes'].reduce(
      (n, k) => n + (typeof c[k] === 'number' ? (c[k] as number) : 0),
      0,
    );
  };
  const tables = series.tables.map((t) =>
    t.table in perTable
      ? {
          ...t,
          points: addToSeries(t.points, series.stepSeconds, at, {
            changes: tableChanges(perTable[t.table]),
            lagSeconds,
          }),
        }
      : t,
  );
  for (const [table, counts] of Object.entries(perTable))
    if (!tables.some((t) => t.table === table)) {
      const empty = series.points.map((p) => ({ ...p, changes: 0, lagSeconds: null, backlogRows: null }));
      tables.push({
        table,
        points: addToSeries(empty, series.stepSeconds, at, { changes: tableChanges(counts), lagSeconds }),
      });
    }
  return {
    ...series,
    points: addToSeries(series.points, series.stepSeconds, at, { changes, lagSeconds }),
    tables,
  };
}

const isOpen = (profileId: string, pipelineId: string) => {
  const at = address();
  return at !== undefined && at.profileId === profileId && at.pipelineId === pipelineId ? at : undefined;
};

function applyStatus(message: Status): void {
  const at = isOpen(message.profileId, message.pipelineId);
  if (!at || at.agentId !== message.agentId) return;
  const { agents, backlog, series } = useStore.getState().checker;
  const { status } = message;
  const current = backlog?.current;
  patch({
    agents: agents?.map((p) =>
      p.id !== message.pipelineId
        ? p
        : {
            ...p,
            agents: p.agents.map((a) =>
              a.id === message.agentId
                ? { ...a, state: status.state, failureReason: status.failureReason }
                : a,
            ),
          },
    ),
    // The gauge follows the runner's backlog points; what only the source's own query tells stays.
    backlog:
      backlog && status.backlogRows !== null
        ? {
            ...backlog,
            unavailableReason: null,
            current: {
              at: message.at,
              rowsToRead: status.backlogRows,
              minutesLeft: current?.minutesLeft ?? null,
              versionsBehind: current?.versionsBehind ?? null,
              measuredMinutesLeft: status.secondsLeft === null ? null : status.secondsLeft / 60,
            },
          }
        : backlog,
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
  const { events, series } = useStore.getState().checker;
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
}

export function applyToOpenPipeline(message: Status | Event): void {
  if (message.type === 'status') applyStatus(message);
  else applyEvent(message);
}
