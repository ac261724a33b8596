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
      <SnapshotProgress events={events ?? []} />
      <BacklogGauge backlog={backlog} />
      <h4>Recent events</h4>
      {/* The list scrolls: focusable, so a keyboard can scroll it too. */}
      <ol className="events" aria-label="Pipeline events" tabIndex={0}>
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

type RunEvent = NonNullable<ReturnType<typeof useStore.getState>['checker']['events']>[number];

/** Per table, the latest snapshot figure: a bar while it runs, the row count once done. */
function SnapshotProgress({ events }: { events: readonly RunEvent[] }) {
  const latest = new Map<string, RunEvent>();
  for (const e of events)
    if ((e.kind === 'snapshot-progress' || e.kind === 'snapshot-done') && typeof e.data.table === 'string')
      latest.set(e.data.table, e);
  if (latest.size === 0) return null;
  return (
    <table className="snapshots" aria-label="Snapshots">
      <tbody>
        {[...latest.entries()].map(([table, e]) => {
          const done = e.kind === 'snapshot-done';
          const rows = Number(done ? e.data.rows : e.data.rowsDone) || 0;
          const total = done ? rows : Number(e.data.rowsTotal) || 0;
          return (
            <tr key={table}>
              <th scope="row">{table}</th>
              <td>
                <progress value={rows} max={Math.max(total, 1)} aria-label={`Snapshot of ${table}`} />
              </td>
              <td>
                {done
                  ? `${rows.toLocaleString('en')} rows`
                  : `${rows.toLocaleString('en')} of ${total.toLocaleString('en')} rows, ${Number(e.data.rowsPerSecond).toLocaleString('en')} rows/s`}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
