// Every source agent of the engine that is configured, running, paused or stopped, each with its backlog gauge:
// every engine at a glance on Home, from the statuses main pushes (no request of its own).
import { useStore } from '../store';
import { BacklogGauge } from './BacklogGauge';
import { backlogPointOf } from '../store/live';

const WATCHED = new Set(['configured', 'running', 'paused', 'stopped']);

export function BacklogOverview() {
  const engines = useStore((s) => s.fleet.engines);
  const watched = engines.flatMap((engine) =>
    engine.pipelines.flatMap((p) =>
      p.agents
        .filter((a) => a.role === 'source' && WATCHED.has(a.status.state))
        .map((a) => ({ engine, pipeline: p, agent: a })),
    ),
  );
  if (watched.length === 0) return null;
  return (
    <section aria-labelledby="overview-title">
      <h3 id="overview-title">Backlog overview</h3>
      <ul className="overview">
        {watched.map(({ engine, pipeline, agent }) => {
          const key = `${pipeline.id}/${agent.id}`;
          const { status } = agent;
          const backlog = {
            agentId: agent.id,
            // No time of its own: the picture's statuses carry none.
            current: backlogPointOf(status, ''),
            unavailableReason:
              'not measured yet: a running or paused pipeline every 10 s, a stopped or failed one every 5 minutes.',
            history: [],
          };
          return (
            <li key={`${engine.profileId}/${key}`} aria-label={`Backlog of ${key}`}>
              <strong>{pipeline.name}</strong>{' '}
              <span className="muted">
                / {agent.id} ({agent.type}, {status.state}
                {engines.length > 1 ? `, ${engine.name}` : ''})
              </span>
              <BacklogGauge backlog={backlog} />
            </li>
          );
        })}
      </ul>
    </section>
  );
}
