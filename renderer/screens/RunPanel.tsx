// Running the selected pipeline: its state, start/pause/stop, snapshot progress and recent events,
// refreshed every two seconds while shown.
import { useEffect } from 'react';
import { useStore } from '../store';
import { controlAgent, refreshRun } from '../store/checks';
import { BacklogGauge } from './BacklogGauge';

const describe = (kind: string, data: Record<string, unknown>): string => {
  const n = (k: string) => (typeof data[k] === 'number' ? (data[k] as number).toLocaleString('en') : '?');
  switch (kind) {
    case 'snapshot-progress':
      return `Snapshot of ${String(data.table)}: ${n('rowsDone')} of ${n('rowsTotal')} rows, ${n('rowsPerSecond')} rows/s`;
    case 'snapshot-done':
      return `Snapshot of ${String(data.table)} done: ${n('rows')} rows`;
    case 'batch-applied':
      return `Applied ${n('changes')} changes (${n('inserts')} inserts, ${n('updates')} updates, ${n('deletes')} deletes)${
        typeof data.lagMs === 'number' ? `, lag ${(data.lagMs / 1000).toFixed(1)} s` : ''
      }`;
    case 'resnapshot':
    case 'retrying':
    case 'failed':
      return `${kind}: ${String(data.reason ?? '')}`;
    default:
      return kind;
  }
};

export function RunPanel() {
  const { agents, selected, events, busy, backlog } = useStore((s) => s.checker);
  const [pipelineId, agentId] = (selected ?? '').split('/');
  const agent = agents?.find((p) => p.id === pipelineId)?.agents.find((a) => a.id === agentId);
  useEffect(() => {
    if (!selected) return;
    void refreshRun();
    const timer = setInterval(() => void refreshRun(), 2000);
    return () => clearInterval(timer);
  }, [selected]);
  if (!agent || agent.role !== 'source') return null;
  const running = agent.state === 'running';
  return (
    <section aria-labelledby="run-title">
      <h3 id="run-title">Run</h3>
      <p>
        State: <strong aria-label="Pipeline state">{agent.state}</strong>
        {agent.failureReason && <span className="problem"> {agent.failureReason}</span>}
      </p>
      <div className="row-actions">
        <button
          type="button"
          className="primary"
          disabled={running || busy !== undefined}
          onClick={() => void controlAgent('start')}
        >
          {agent.state === 'paused' ? 'Resume' : 'Start'}
        </button>
        <button
          type="button"
          disabled={!running || busy !== undefined}
          onClick={() => void controlAgent('pause')}
        >
          Pause
        </button>
        <button
          type="button"
          disabled={(!running && agent.state !== 'paused') || busy !== undefined}
          onClick={() => void controlAgent('stop')}
        >
          Stop
        </button>
      </div>
      <BacklogGauge backlog={backlog} />
      <h4>Recent events</h4>
      <ol className="events" aria-label="Pipeline events">
        {(events ?? [])
          .slice(-20)
          .reverse()
          .map((e) => (
            <li key={e.id}>
              <span className="muted">{e.at.slice(11, 19)}</span> {describe(e.kind, e.data)}
            </li>
          ))}
      </ol>
    </section>
  );
}
