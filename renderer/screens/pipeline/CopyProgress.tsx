// Each table's copy while the pipeline runs: a bar with rows done of total, the rate and the time left,
// and a cancel (or, for a table whose replication stopped, a copy again).
import type { SnapshotsAnswer, TableSnapshot } from '../../../shared/snapshots';
import { count, duration } from '../../../shared/format';
import { snapshotTable } from '../../store/pipelinePage';

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
    case 'suspended':
      return `${t.reason}. Fix the cause, then resume it: it reads on from where it stood.`;
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

/** `only`: which copies to list (the Status section lists those under way or needing the DBA). */
export function CopyProgress({
  snapshots,
  busy,
  only = () => true,
}: {
  snapshots: SnapshotsAnswer | undefined;
  busy: boolean;
  only?: (t: TableSnapshot) => boolean;
}) {
  const tables = (snapshots?.tables ?? []).filter(only);
  if (tables.length === 0) return null;
  return (
    <table className="snapshots" aria-label="Snapshots">
      <tbody>
        {tables.map((t) => {
          const total = t.status === 'done' ? t.rowsDone : Math.max(t.rowsTotal ?? 0, t.rowsDone);
          const stopped = t.status === 'stopped' || t.status === 'suspended';
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
                {t.status === 'suspended' && (
                  <button
                    type="button"
                    disabled={busy}
                    aria-label={`Resume ${t.table}`}
                    onClick={() => void snapshotTable(t.table, 'resume')}
                  >
                    Resume
                  </button>
                )}
                {stopped && (
                  <button
                    type="button"
                    disabled={busy}
                    aria-label={`Copy again ${t.table}`}
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
