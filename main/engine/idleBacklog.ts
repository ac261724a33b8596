// The backlog of pipelines that do not run, measured at the source as a running pipeline's runner
// measures its own: a night's backlog piles up while a pipeline waits, and the gauge, the charts,
// /metrics and the notifications must see it grow. A paused pipeline (a short hold, watched) every 10 s;
// a stopped or failed one every 5 minutes, so that the engine does not keep a connection open to a
// database someone stopped it for (the source closes after a minute unused). Each agent is measured
// alone (a source that hangs holds up only itself), never twice at once.
import type { EngineDeps } from './operationKit';
import { resolve } from './operationKit';
import { recordBacklog } from './operations';

export const IDLE_BACKLOG_EVERY_MS = 10_000;
export const STOPPED_BACKLOG_EVERY_MS = 300_000;

export function watchIdleBacklogs(
  deps: EngineDeps,
  everyMs = IDLE_BACKLOG_EVERY_MS,
  stoppedEveryMs = STOPPED_BACKLOG_EVERY_MS,
): () => void {
  const measuring = new Set<string>();
  const measuredAt = new Map<string, number>();
  const measure = async (pipelineId: string, agentId: string) => {
    const row = deps.repo.storedAgent(pipelineId, agentId);
    const agent = row && (await resolve(deps, row));
    if (!row || !agent) return;
    const figure = await deps.runtime.backlog(agent, deps.repo.entities(pipelineId));
    // Started meanwhile: its runner reports from now on. Unavailable: the last point stands.
    const now = deps.repo.storedAgent(pipelineId, agentId);
    if ('unavailable' in figure || !now || now.state === 'running') return;
    recordBacklog(deps, now, figure);
  };
  const round = () => {
    const now = Date.now();
    for (const { pipelineId, id, state } of deps.repo.idleSourceAgents()) {
      const key = `${pipelineId}/${id}`;
      const period = state === 'paused' ? everyMs : stoppedEveryMs;
      if (measuring.has(key) || now - (measuredAt.get(key) ?? -Infinity) < period) continue;
      measuring.add(key);
      measuredAt.set(key, now);
      measure(pipelineId, id)
        // A source that cannot answer now is tried again next round; its checks say why.
        .catch(() => undefined)
        .finally(() => measuring.delete(key));
    }
  };
  const timer = setInterval(round, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
