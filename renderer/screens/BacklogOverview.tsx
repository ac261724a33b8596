// Each pipeline Home lists, with its source's backlog gauge, in Home's order: the overview and the list
// above it count the same pipelines (from the statuses main pushes; no request of its own).
import { BacklogGauge } from './BacklogGauge';
import { backlogPointOf } from '../store/live';
import type { HomeRow } from './homeRow';
import { plural } from '../../shared/format';

export function BacklogOverview({ rows }: { rows: readonly HomeRow[] }) {
  if (rows.length === 0) return null;
  const engines = new Set(rows.map((r) => r.engine.profileId));
  return (
    <section aria-labelledby="overview-title">
      <h3 id="overview-title">Backlog overview</h3>
      <p className="muted">{plural(rows.length, 'pipeline')}, as listed above.</p>
      <ul className="overview">
        {rows.map(({ engine, pipeline, agent }) => {
          const { status } = agent;
          const backlog = {
            agentId: agent.id,
            // No time of its own: the picture's statuses carry none.
            current: backlogPointOf(status, ''),
            unavailableReason:
              status.state === 'new' || status.state === 'configured'
                ? 'not measured: the pipeline has not started yet.'
                : 'not measured yet: a running or paused pipeline every 10 s, a stopped or failed one every 5 minutes.',
            history: [],
          };
          return (
            <li key={`${engine.profileId}/${pipeline.id}`} aria-label={`Backlog of ${pipeline.name}`}>
              <strong>{pipeline.name}</strong>{' '}
              <span className="muted">
                ({status.state}
                {engines.size > 1 ? `, ${engine.name}` : ''})
              </span>
              {agent.role === 'source' ? (
                <BacklogGauge backlog={backlog} state={status.state} />
              ) : (
                <p className="muted">No source agent: nothing to wait for.</p>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
