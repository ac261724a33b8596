// What the cockpit reads of an engine: every pipeline's agents with their status in one answer
// (GET /overview), an agent's charts over the last hour or day (GET …/series/{window}); the event stream
// itself is served by server.ts from deps.feed.
import { seriesWindowSchema, type AgentStatus } from '../../shared/liveFeed';
import { latencyInSeconds } from '../../shared/batchEvent';
import { problem } from '../platform/problem';
import { agentOr404, ok, type EngineDeps, type Operations } from './operationKit';

/** An agent's status from the store (state, last failure) and the runner's latest figures. */
export function agentStatus(deps: EngineDeps, pipelineId: string, agentId: string): AgentStatus | undefined {
  const row = deps.repo.storedAgent(pipelineId, agentId);
  if (!row) return undefined;
  const figures = deps.metrics.figures(pipelineId, agentId);
  const running = row.state === 'running';
  const held = row.role === 'source' ? deps.runtime.heldTables?.(pipelineId, agentId) : null;
  // Not applying, rows waiting: the last batch's lag is history; the age of the oldest waiting change,
  // at least, is how far behind it is.
  const waitedSeconds =
    !running && (figures.backlogRows ?? 0) > 0 && figures.waitingSince
      ? Math.max(0, (deps.now().getTime() - Date.parse(figures.waitingSince)) / 1000)
      : null;
  return {
    state: row.state,
    failureReason: row.failureReason,
    lagSeconds: waitedSeconds ?? figures.lagSeconds,
    ...(waitedSeconds !== null && figures.waitingSince && { waitingSince: figures.waitingSince }),
    idleSince: running ? figures.idleSince : null,
    heartbeat:
      running && figures.heartbeat
        ? {
            ...figures.heartbeat,
            latency: figures.heartbeat.latency && latencyInSeconds(figures.heartbeat.latency),
          }
        : null,
    backlogRows: figures.backlogRows,
    secondsLeft: figures.secondsLeft,
    changesPerSecond: running ? figures.changesPerSecond : null,
    lastBatchAt: figures.lastBatchAt,
    latency: figures.latency && latencyInSeconds(figures.latency),
    freshness: figures.freshness,
    lastFailure: deps.repo.lastFailure(pipelineId, agentId),
    ...(figures.warnings.length > 0 && { warnings: figures.warnings }),
    ...(figures.stream && { stream: figures.stream }),
    ...(row.role === 'source' && {
      tableCount: deps.repo.entities(pipelineId).length,
      tablesSuspended: deps.runtime.suspendedTables?.(pipelineId, agentId) ?? [],
      ...(held && { tablesHeld: held }),
      exceptions: Object.values(deps.exceptions.counts(pipelineId, agentId)).reduce((n, c) => n + c, 0),
      lastSchemaChange: deps.repo.lastSchemaChange(pipelineId, agentId),
      // Only a pipeline that holds settings from an earlier start can be behind the stored ones.
      ...pendingOf(deps, row),
    }),
  };
}

/** Settings stored since the paused or stopped pipeline took its own, and how their sign-on fared. */
function pendingOf(deps: EngineDeps, row: { pipelineId: string; id: string; state: string }) {
  const waits = row.state === 'paused' || row.state === 'stopped';
  const since = waits ? deps.repo.settingsPendingSince(row.pipelineId, row.id) : null;
  return {
    settingsPendingSince: since,
    pendingSignOn: since ? deps.repo.pendingSignOn(row.pipelineId, row.id) : null,
  };
}

export const liveOperations: Pick<Operations, 'getOverview' | 'getSeries'> = {
  getOverview: (_request, deps) =>
    ok({
      at: deps.now().toISOString(),
      pipelines: deps.repo.pipelines().map((pipeline) => ({
        ...pipeline,
        agents: deps.repo.storedAgents(pipeline.id).flatMap((a) => {
          const status = agentStatus(deps, pipeline.id, a.id);
          return status ? [{ id: a.id, name: a.name, type: a.type, role: a.role, status }] : [];
        }),
      })),
    }),

  getSeries: ({ params }, deps) => {
    const row = agentOr404(deps, params);
    const window = seriesWindowSchema.safeParse(params.window);
    if (!window.success)
      throw problem.notFound(
        `There is no window "${String(params.window).slice(0, 32)}"; the windows are hour and day.`,
      );
    return ok(deps.series.read(row.pipelineId, row.id, window.data, deps.now().getTime()));
  },
};
