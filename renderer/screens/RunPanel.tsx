// Running the selected pipeline: its state, start/pause/stop, each table's copy (progress, rate,
// time left, cancel), its charts and recent events: read once when opened, then kept current by pushes.
import { useEffect, useState } from 'react';
import { useStore } from '../store';
import type { SnapshotsAnswer, TableSnapshot } from '../../shared/snapshots';
import { controlAgent, loadSeries, refreshRun, selectedIn, snapshotTable } from '../store/checks';
import { Charts } from './Charts';
import { BacklogGauge } from './BacklogGauge';
import { VerifyPanel } from './VerifyPanel';
import { EventList } from './EventList';
import { count, duration } from '../../shared/format';

export function RunPanel() {
  const checker = useStore((s) => s.checker);
  const { selected, events, busy, backlog, snapshots } = checker;
  const agent = selectedIn(checker)?.agent;
  // Which pipeline's Stop is being confirmed: another pipeline opened shows its own Stop button.
  const [stopAsked, setStopAsked] = useState<string | null>(null);
  const confirmingStop = stopAsked !== null && stopAsked === selected;
  useEffect(() => {
    if (!selected) return;
    void refreshRun();
    void loadSeries();
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
        {!confirmingStop && (
          <button
            type="button"
            disabled={(!running && agent.state !== 'paused') || busy !== undefined}
            onClick={() => setStopAsked(selected ?? null)}
          >
            Stop…
          </button>
        )}
        {confirmingStop && (
          <span role="group" aria-label="Confirm stop">
            Stop the pipeline? It reads no more changes until started again; the backlog grows meanwhile.{' '}
            <button
              type="button"
              className="primary"
              onClick={() => {
                setStopAsked(null);
                void controlAgent('stop');
              }}
            >
              Yes, stop it
            </button>{' '}
            <button type="button" onClick={() => setStopAsked(null)}>
              Cancel
            </button>
          </span>
        )}
      </div>
      <SnapshotProgress snapshots={snapshots} busy={busy !== undefined} />
      <BacklogGauge backlog={backlog} />
      <Charts />
      <VerifyPanel running={running} tables={(snapshots?.tables ?? []).map((t) => t.table)} />
      <EventList events={events} />
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
