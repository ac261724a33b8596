// The rows the target refused, kept aside by the engine: how many per table, the newest with their key,
// values and the target's words; retried (each row read again from the source, as it is now) once the
// cause is fixed, discarded, or exported as CSV. Shown only when some are kept.
import { count, dateTime } from '../../../shared/format';
import { exactText, type ExactRow } from '../../../shared/exceptions';
import { useStore } from '../../store';
import { actOnExceptions, EXCEPTIONS_SHOWN, exportExceptions, loadExceptions } from '../../store/exceptions';

const rowText = (row: ExactRow | null) =>
  row === null
    ? ''
    : Object.entries(row)
        .map(([k, v]) => `${k} = ${exactText(v)}`)
        .join(', ');

export function ExceptionsPanel() {
  const exceptions = useStore((s) => s.pipelinePage.exceptions);
  const table = useStore((s) => s.pipelinePage.exceptionsTable);
  const busy = useStore((s) => s.pipelinePage.busy !== undefined);
  const running = useStore((s) => s.pipelinePage.snapshots?.running ?? false);
  const counts = Object.entries(exceptions?.counts ?? {});
  if (!exceptions || counts.length === 0) return null;
  const total = counts.reduce((n, [, c]) => n + c, 0);
  const shown = table === undefined ? total : (exceptions.counts[table] ?? 0);
  const which = table === undefined ? {} : { table };
  return (
    <section aria-labelledby="exceptions-title" className="exceptions">
      <h4 id="exceptions-title">Rows kept aside</h4>
      <p role="status">
        <strong>
          {count(total)} {total === 1 ? 'row' : 'rows'} of {counts.length}{' '}
          {counts.length === 1 ? 'table' : 'tables'}
        </strong>{' '}
        refused by the target and kept with its reason; the tables go on. Fix the cause (at the target, or the
        row at the source), then retry: each row is read again from the source as it is now.
      </p>
      <div className="row-actions">
        <label htmlFor="exceptions-table">Table</label>
        <select
          id="exceptions-table"
          value={table ?? ''}
          onChange={(e) => void loadExceptions(e.target.value === '' ? undefined : e.target.value)}
        >
          <option value="">All tables ({count(total)})</option>
          {counts.map(([t, n]) => (
            <option key={t} value={t}>
              {t} ({count(n)})
            </option>
          ))}
        </select>
        <button
          type="button"
          disabled={!running || busy}
          title={
            running
              ? undefined
              : 'Start the pipeline to retry: a retry reads the source and writes the target.'
          }
          onClick={() => void actOnExceptions('retry', which)}
        >
          Retry {table === undefined ? 'all' : `all of ${table}`}
        </button>
        <button type="button" disabled={busy} onClick={() => void actOnExceptions('discard', which)}>
          Discard {table === undefined ? 'all' : `all of ${table}`}
        </button>
        <button type="button" onClick={() => void exportExceptions()}>
          Export CSV
        </button>
      </div>
      {shown > EXCEPTIONS_SHOWN && (
        <p className="muted">
          The newest {count(EXCEPTIONS_SHOWN)} of {count(shown)} are listed; the CSV holds them all.
        </p>
      )}
      <table className="tables" aria-label="Rows kept aside">
        <thead>
          <tr>
            <th scope="col">Table</th>
            <th scope="col">Operation</th>
            <th scope="col">Key</th>
            <th scope="col">Values</th>
            <th scope="col">Source position</th>
            <th scope="col">Refused because</th>
            <th scope="col">Kept at</th>
            <th scope="col">Tries</th>
            <th scope="col">Row</th>
          </tr>
        </thead>
        <tbody>
          {exceptions.rows.map((e) => (
            <tr key={e.id}>
              <td>{e.table}</td>
              <td>{e.op}</td>
              <td>{rowText(e.key)}</td>
              <td className="values">
                {rowText(e.values)}
                {e.raw !== null && (
                  <span className="muted"> (record image of {e.raw.length / 2} bytes kept; in the CSV)</span>
                )}
              </td>
              <td>{e.position}</td>
              <td>{e.error}</td>
              <td>{dateTime(e.at)}</td>
              <td>{e.attempts}</td>
              <td>
                <button
                  type="button"
                  disabled={!running || busy}
                  aria-label={`Retry ${e.table} ${rowText(e.key)}`}
                  onClick={() => void actOnExceptions('retry', { ids: [e.id] })}
                >
                  Retry
                </button>{' '}
                <button
                  type="button"
                  disabled={busy}
                  aria-label={`Discard ${e.table} ${rowText(e.key)}`}
                  onClick={() => void actOnExceptions('discard', { ids: [e.id] })}
                >
                  Discard
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
