// Every source agent of the engine that is configured, running or paused, each with its backlog gauge
// and last hour, refreshed every 5 s: the whole engine at a glance.
import { useEffect, useState } from 'react';
import type { z } from 'zod';
import type { backlogAnswerSchema } from '../../shared/controlApi';
import { useStore } from '../store';
import { BacklogGauge } from './BacklogGauge';

type Backlog = z.infer<typeof backlogAnswerSchema>;
const WATCHED = new Set(['configured', 'running', 'paused']);

export function BacklogOverview() {
  const { api } = useStore.getState();
  const { profileId, agents } = useStore((s) => s.checker);
  const watched = (agents ?? []).flatMap((p) =>
    p.agents
      .filter((a) => a.role === 'source' && WATCHED.has(a.state))
      .map((a) => ({ pipeline: p, agent: a })),
  );
  const keys = watched.map((w) => `${w.pipeline.id}/${w.agent.id}`).join(' ');
  const [backlogs, setBacklogs] = useState<Record<string, Backlog | undefined>>({});
  useEffect(() => {
    if (!api || !profileId || !keys) return;
    let live = true;
    const load = async () => {
      const answers = await Promise.all(
        keys.split(' ').map(async (key) => {
          const [pipelineId = '', agentId = ''] = key.split('/');
          const answer = await api
            .getEngineBacklog({ profileId, pipelineId, agentId })
            .catch(() => undefined);
          return [key, answer] as const;
        }),
      );
      if (live) setBacklogs(Object.fromEntries(answers));
    };
    void load();
    const timer = setInterval(() => void load(), 5000);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [api, profileId, keys]);
  if (watched.length === 0) return null;
  return (
    <section aria-labelledby="overview-title">
      <h3 id="overview-title">Backlog overview</h3>
      <ul className="overview">
        {watched.map(({ pipeline, agent }) => {
          const key = `${pipeline.id}/${agent.id}`;
          return (
            <li key={key} aria-label={`Backlog of ${key}`}>
              <strong>{pipeline.name}</strong>{' '}
              <span className="muted">
                / {agent.id} ({agent.type}, {agent.state})
              </span>
              <BacklogGauge backlog={backlogs[key]} />
            </li>
          );
        })}
      </ul>
    </section>
  );
}
