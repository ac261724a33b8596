// The selected agent's entity tables in one sortable, filterable table: primary key, and Change
// Tracking or journaling (images, journal) per table, with what stops the agent, and a re-snapshot of
// the table while the pipeline runs. Built for hundreds.
import { useMemo, useState } from 'react';
import type { TableState } from '../../shared/controlApi';
import { useStore } from '../store';
import { loadTables, snapshotTable } from '../store/checks';

type Column = { key: string; label: string; text: (t: TableState) => string };

const COLUMNS: Column[] = [
  { key: 'table', label: 'Table', text: (t) => t.table },
  { key: 'id', label: 'Row identification', text: (t) => t.rowIdentification },
  { key: 'pk', label: 'Primary key', text: (t) => (t.exists ? t.primaryKey.join(', ') || 'none' : '') },
  {
    key: 'feed',
    label: 'Change feed',
    text: (t) =>
      t.changeTracking !== null
        ? t.changeTracking
          ? 'Change Tracking on'
          : 'Change Tracking off'
        : t.journal
          ? `${t.journal} ${t.journalImages ?? ''}`.trim()
          : t.exists
            ? 'not journaled'
            : '',
  },
  { key: 'problem', label: 'Status', text: (t) => t.problem ?? 'ready' },
];

export function TablesView() {
  const tables = useStore((s) => s.checker.tables);
  const running = useStore((s) => s.checker.snapshots?.running ?? false);
  const busy = useStore((s) => s.checker.busy !== undefined);
  const [filter, setFilter] = useState('');
  const [sort, setSort] = useState<{ key: string; ascending: boolean }>({ key: 'table', ascending: true });
  const rows = useMemo(() => {
    if (!Array.isArray(tables)) return [];
    const needle = filter.trim().toLowerCase();
    const column = COLUMNS.find((c) => c.key === sort.key) ?? COLUMNS[0];
    return tables
      .filter((t) => !needle || COLUMNS.some((c) => c.text(t).toLowerCase().includes(needle)))
      .sort(
        (a, b) => (column ? column.text(a).localeCompare(column.text(b)) : 0) * (sort.ascending ? 1 : -1),
      );
  }, [tables, filter, sort]);
  return (
    <section aria-labelledby="tables-title">
      <h3 id="tables-title">Tables</h3>
      <div className="row-actions">
        <button type="button" onClick={() => void loadTables()} disabled={tables === 'loading'}>
          {Array.isArray(tables) ? 'Reload tables' : 'Show tables'}
        </button>
        {Array.isArray(tables) && (
          <>
            <label htmlFor="tables-filter">Filter tables</label>
            <input
              id="tables-filter"
              type="search"
              value={filter}
              onChange={(e) => setFilter(e.target.value)}
            />
            <span className="muted" aria-live="polite">
              {rows.length} of {tables.length} tables
            </span>
          </>
        )}
      </div>
      {Array.isArray(tables) && (
        <table className="tables" aria-label="Entity tables">
          <thead>
            <tr>
              {COLUMNS.map((c) => (
                <th
                  key={c.key}
                  scope="col"
                  aria-sort={sort.key === c.key ? (sort.ascending ? 'ascending' : 'descending') : 'none'}
                >
                  <button
                    type="button"
                    className="link"
                    onClick={() =>
                      setSort((s) => ({ key: c.key, ascending: s.key === c.key ? !s.ascending : true }))
                    }
                  >
                    {c.label}
                    {sort.key === c.key && <span aria-hidden="true">{sort.ascending ? ' ▲' : ' ▼'}</span>}
                  </button>
                </th>
              ))}
              <th scope="col">Copy</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((t) => (
              <tr key={t.table} className={t.problem ? 'problem-row' : undefined}>
                {COLUMNS.map((c) => (
                  <td key={c.key}>{c.text(t)}</td>
                ))}
                <td>
                  <button
                    type="button"
                    disabled={!running || busy}
                    title={running ? undefined : 'Start the pipeline to copy a table again.'}
                    aria-label={`Re-snapshot ${t.table}`}
                    onClick={() => void snapshotTable(t.table, 'copy')}
                  >
                    Re-snapshot
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
