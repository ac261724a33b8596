// Running the selected pipeline: its state, start/pause/stop, each table's copy (progress, rate,
// time left, cancel) and recent events,
// refreshed every two seconds while shown.
import { useEffect } from 'react';
import { useStore } from '../store';
import type { SnapshotsAnswer, TableSnapshot } from '../../shared/snapshots';
import { controlAgent, refreshRun, snapshotTable } from '../store/checks';
import { BacklogGauge } from './BacklogGauge';
import { VerifyPanel } from './VerifyPanel';
import { count, duration } from '../ui/format';

const describe = (kind: string, data: Record<string, unknown>): string => {
  const n = (k: string) => (typeof data[k] === 'number' ? (data[k] as number).toLocaleString('en') : '?');
  switch (kind) {
    case 'snapshot-started':
      return `Snapshot of ${String(data.table)} started (${String(data.reason)}): ${n('rowsTotal')} rows`;
    case 'snapshot-resumed':
      return `Snapshot of ${String(data.table)} resumed after ${n('rowsDone')} of ${n('rowsTotal')} rows`;
    case 'snapshot-progress':
      return `Snapshot of ${String(data.table)}: ${n('rowsDone')} of ${n('rowsTotal')} rows, ${n('rowsPerSecond')} rows/s${
        typeof data.secondsLeft === 'number' ? `, about ${duration(data.secondsLeft)} left` : ''
      }`;
    case 'snapshot-done':
      return `Snapshot of ${String(data.table)} done: ${n('rows')} rows`;
    case 'snapshot-cancelled':
      return `Snapshot of ${String(data.table)} cancelled at ${n('rowsDone')} of ${n('rowsTotal')} rows`;
    case 'snapshot-skipped':
      return String(data.reason ?? kind);
    case 'batch-applied':
      return `Applied ${n('changes')} changes (${n('inserts')} inserts, ${n('updates')} updates, ${n('deletes')} deletes)${
        typeof data.lagMs === 'number' ? `, lag ${(data.lagMs / 1000).toFixed(1)} s` : ''
      }`;
    case 'schema-changed':
      return `Columns of ${String(data.table ?? '')} changed — ${String(data.reason ?? '')}`;
    case 'table-stopped':
      return `Replication of ${String(data.table ?? '')} stopped — ${String(data.reason ?? '')}`;
    case 'verify-finished':
      return `${data.verify === 'repair' ? `Repair (${n('repaired')} rows copied again), then verify` : 'Verify'} ${String(data.status)}: ${n('rowsCompared')} rows compared, ${n('missing')} missing, ${n('extra')} extra, ${n('different')} different`;
    case 'verify-requested':
      return `Verify asked for (${data.table ? String(data.table) : 'every table'}, ${n('chunkRows')} rows per chunk)`;
    case 'verify-repair-requested':
      return 'Repair of the differing rows asked for';
    case 'verify-cancel-requested':
      return 'Verify cancelled';
    case 'resnapshot':
    case 'retrying':
    case 'failed':
      return `${kind}: ${String(data.reason ?? '')}`;
    default:
      return kind;
  }
};

export function RunPanel() {
  const { agents, selected, events, busy, backlog, snapshots } = useStore((s) => s.checker);
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
      <SnapshotProgress snapshots={snapshots} busy={busy !== undefined} />
      <BacklogGauge backlog={backlog} />
      <VerifyPanel running={running} tables={(snapshots?.tables ?? []).map((t) => t.table)} />
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

function copyText(t: TableSnapshot): string {
  const of = t.rowsTotal !== null ? ` of ${count(Math.max(t.rowsTotal, t.rowsDone))}` : '';
  switch (t.status) {
    case 'queued':
      return `waiting for a free connection (${t.reason})`;
    case 'cancelled':
      return `cancelled at ${count(t.rowsDone)}${of} rows: the target table is incomplete until it is copied again`;
    case 'done':
      return `done: ${count(t.rowsDone)} rows${t.rowsPerSecond ? `, ${count(t.rowsPerSecond)} rows/s` : ''}`;
    case 'stopped':
      return `replication stopped: ${t.reason}. Copy it again once the table is back.`;
    default:
      return [
        `${count(t.rowsDone)}${of} rows`,
        t.rowsPerSecond !== null ? `${count(t.rowsPerSecond)} rows/s` : null,
        t.secondsLeft !== null ? `about ${duration(t.secondsLeft)} left` : null,
      ]
        .filter(Boolean)
        .join(', ');
  }
}

/** Per table, its copy: a bar with rows done of total, the rate and the time left, and a cancel. */
function SnapshotProgress({ snapshots, busy }: { snapshots: SnapshotsAnswer | undefined; busy: boolean }) {
  const tables = snapshots?.tables ?? [];
  if (tables.length === 0) return null;
  return (
    <table className="snapshots" aria-label="Snapshots">
      <tbody>
        {tables.map((t) => {
          const total = t.status === 'done' ? t.rowsDone : Math.max(t.rowsTotal ?? 0, t.rowsDone);
          const stopped = t.status === 'stopped';
          return (
            <tr key={t.table}>
              <th scope="row">{t.table}</th>
              <td>
                {!stopped && (
                  <progress
                    value={t.rowsDone}
                    max={Math.max(total, 1)}
                    aria-label={`Snapshot of ${t.table}`}
                  />
                )}
              </td>
              <td>{copyText(t)}</td>
              <td>
                {(t.status === 'copying' || t.status === 'queued') && (
                  <button
                    type="button"
                    disabled={busy}
                    aria-label={`Cancel the copy of ${t.table}`}
                    onClick={() => void snapshotTable(t.table, 'cancel')}
                  >
                    Cancel
                  </button>
                )}
                {t.status === 'stopped' && (
                  <button
                    type="button"
                    disabled={busy}
                    aria-label={`Copy ${t.table} again`}
                    onClick={() => void snapshotTable(t.table, 'copy')}
                  >
                    Copy again
                  </button>
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
