// Verify and repair of the selected running pipeline (docs/verify.md): what to verify and how gently,
// the report as it advances (per table rows compared of total, rate, time left, what differs), the
// repair of exactly those rows, the report saved as CSV or JSON, and the reports kept.
import { useState } from 'react';
import {
  VERIFY_DEFAULTS,
  verifiedClean,
  verifyTotals,
  type TableVerify,
  type VerifyReport,
} from '../../shared/verify';
import { useStore } from '../store';
import { askVerify, saveReport } from '../store/verify';
import { count, dateTime, duration } from '../../shared/format';
import { FilterSelect } from '../ui/FilterSelect';

const SHOWN = 20;

function summary(r: VerifyReport): string {
  const { rowsCompared, missing, extra, different, repaired } = verifyTotals(r);
  const what = r.kind === 'repair' ? `Repair (${count(repaired)} rows copied again), then verify` : 'Verify';
  if (r.finishedAt === null) return `${what}: ${r.status}, ${count(rowsCompared)} rows compared so far`;
  if (verifiedClean(r))
    return `${what}: the replica equals the source (${count(rowsCompared)} rows compared)`;
  return `${what} ${r.status}: ${count(missing)} missing, ${count(extra)} extra, ${count(different)} different of ${count(rowsCompared)} rows`;
}

function tableText(t: TableVerify): string {
  const of = t.rowsTotal !== null ? ` of ${count(Math.max(t.rowsTotal, t.rowsCompared))}` : '';
  const found = `${count(t.counts.missing)} missing, ${count(t.counts.extra)} extra, ${count(t.counts.different)} different`;
  switch (t.status) {
    case 'queued':
      return 'waiting (a copy of the table runs, or another table is being verified)';
    case 'rechecking':
      return `${count(t.rowsCompared)} rows compared; ${count(t.pending)} rows seen changing, read again once the pipeline is past them; ${found}`;
    case 'failed':
      return `failed: ${t.reason ?? 'no reason given'}`;
    case 'cancelled':
      return `cancelled after ${count(t.rowsCompared)}${of} rows; ${found}`;
    case 'done':
      return `${count(t.rowsCompared)} rows compared in ${count(t.chunks)} chunk${t.chunks === 1 ? '' : 's'}; ${found}`;
    default:
      return [
        `${count(t.rowsCompared)}${of} rows compared`,
        t.rowsPerSecond !== null ? `${count(t.rowsPerSecond)} rows/s` : null,
        t.secondsLeft !== null ? `about ${duration(t.secondsLeft)} left` : null,
        found,
      ]
        .filter(Boolean)
        .join(', ');
  }
}

function Differences({ t }: { t: TableVerify }) {
  const total = t.counts.missing + t.counts.extra + t.counts.different;
  if (t.differences.length === 0) return null;
  return (
    <table className="differences" aria-label={`Rows of ${t.table} that differ`}>
      <thead>
        <tr>
          <th scope="col">Row (key)</th>
          <th scope="col">At the target</th>
          <th scope="col">Columns that differ</th>
        </tr>
      </thead>
      <tbody>
        {t.differences.slice(0, SHOWN).map((d) => (
          <tr key={`${d.kind}${JSON.stringify(d.key)}`}>
            <td>
              <code>
                {Object.entries(d.key)
                  .map(([k, v]) => `${k} = ${v}`)
                  .join(', ')}
              </code>
            </td>
            <td>
              {d.kind === 'missing'
                ? 'missing'
                : d.kind === 'extra'
                  ? 'extra (not at the source)'
                  : 'different'}
            </td>
            <td>{d.columns.join(', ')}</td>
          </tr>
        ))}
      </tbody>
      {total > SHOWN && (
        <tfoot>
          <tr>
            <td colSpan={3}>and {count(total - SHOWN)} more: save the report to see them all</td>
          </tr>
        </tfoot>
      )}
    </table>
  );
}

export function VerifyPanel({ running, tables }: { running: boolean; tables: string[] }) {
  const { verify, busy } = useStore((s) => s.pipelinePage);
  const [table, setTable] = useState('');
  const [chunkRows, setChunkRows] = useState(String(VERIFY_DEFAULTS.chunkRows));
  const [rate, setRate] = useState('');
  const current = verify?.current ?? null;
  const inProgress = current !== null && current.finishedAt === null;
  const last = current ?? verify?.history[0] ?? null;
  const canRepair =
    running && !inProgress && current !== null && current.kind === 'verify' && !verifiedClean(current);
  return (
    <section aria-labelledby="verify-title">
      <h4 id="verify-title">Verify the replica</h4>
      <p className="muted">
        Compares every row at the target with the source while the pipeline runs; rows still changing are read
        again once the pipeline has applied them.
      </p>
      <div className="verify-options">
        <FilterSelect
          label="Tables"
          all="Every table"
          value={table}
          options={tables.map((t) => ({ value: t, label: t }))}
          onChange={setTable}
          disabled={inProgress}
        />
        <label>
          Rows per chunk
          <input
            type="number"
            min={10}
            max={100000}
            value={chunkRows}
            onChange={(e) => setChunkRows(e.target.value)}
            disabled={inProgress}
          />
        </label>
        <label>
          At most rows/s (empty: no limit)
          <input
            type="number"
            min={100}
            value={rate}
            onChange={(e) => setRate(e.target.value)}
            disabled={inProgress}
          />
        </label>
      </div>
      <div className="row-actions">
        <button
          type="button"
          disabled={!running || inProgress || busy !== undefined}
          onClick={() =>
            void askVerify('verify', {
              ...(table ? { table } : {}),
              chunkRows: Number(chunkRows),
              rowsPerSecond: rate.trim() === '' ? null : Number(rate),
            })
          }
        >
          Verify
        </button>
        <button
          type="button"
          disabled={!canRepair || busy !== undefined}
          onClick={() => void askVerify('repair')}
        >
          Repair the differing rows
        </button>
        <button
          type="button"
          disabled={!inProgress || busy !== undefined}
          onClick={() => void askVerify('cancel')}
        >
          Cancel verify
        </button>
      </div>
      {!running && <p className="muted">Start the pipeline to verify it.</p>}
      {last && (
        <div aria-live="polite">
          <p>
            <strong>{summary(last)}</strong>
            {last.finishedAt && <span className="muted"> — {dateTime(last.finishedAt)}</span>}
          </p>
          {/* Said while it runs, and gone when it is done: the report's own state, never a stale banner. */}
          {last.finishedAt === null && (
            <p className="muted" role="status">
              {last.kind === 'repair'
                ? 'Repairing: the differing rows are copied again, then verified again.'
                : 'Verifying: the pipeline keeps running; rows still changing are read again once it is past them.'}
            </p>
          )}
          <ul className="copies" aria-label="Verify by table">
            {last.tables.map((t) => (
              <li key={t.table}>
                <span className="table-name">{t.table}</span>{' '}
                {t.rowsTotal !== null && t.status === 'verifying' && (
                  <progress
                    max={Math.max(1, t.rowsTotal)}
                    value={Math.min(t.rowsCompared, t.rowsTotal)}
                    aria-label={`Verify of ${t.table}`}
                  />
                )}{' '}
                <span>{tableText(t)}</span>
                <Differences t={t} />
              </li>
            ))}
          </ul>
          {last.finishedAt && (
            <div className="row-actions">
              <button type="button" onClick={() => saveReport(last, 'csv')}>
                Save differences as CSV
              </button>
              <button type="button" onClick={() => saveReport(last, 'json')}>
                Save report as JSON
              </button>
            </div>
          )}
        </div>
      )}
      {(verify?.history.length ?? 0) > 0 && (
        <details>
          <summary>Earlier verifies ({verify?.history.length})</summary>
          <ul aria-label="Earlier verifies">
            {verify?.history.map((r) => (
              <li key={r.id}>
                <span className="muted">
                  {(r.finishedAt ?? r.requestedAt).slice(0, 19).replace('T', ' ')}
                </span>{' '}
                {summary(r)}
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}
