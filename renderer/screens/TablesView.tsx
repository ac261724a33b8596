// The selected agent's entity tables in one sortable, filterable table: primary key, and Change
// Tracking or journaling (images, journal) per table, rows copied, changes applied in the last hour and
// the last one's time, with what stops the agent, and a re-snapshot of the table while the pipeline
// runs. Built for hundreds.
import { useMemo, useState } from 'react';
import type { TableActivity, TableState } from '../../shared/controlApi';
import type { TableSnapshot } from '../../shared/snapshots';
import { count, dateTime } from '../../shared/format';
import { useStore } from '../store';
import { changeFeedText } from '../ui/changeFeed';
import { loadTables, patch, snapshotTable } from '../store/pipelinePage';

/**
 * A table's row: the source's view of it, what the pipeline applied of it lately, its copy, its rows
 * kept aside, and why it is suspended (or stopped) when it is.
 */
type TableRow = TableState & {
  activity: TableActivity | null;
  copied: number | null;
  kept: number;
  halted: { status: 'suspended' | 'stopped'; reason: string } | null;
};

type Column = {
  key: string;
  label: string;
  text: (t: TableRow) => string;
  /** How the column sorts, when not by its text (counts, times). */
  order?: (t: TableRow) => number;
};

const applied = (a: TableActivity | null) => (a ? a.inserts + a.updates + a.deletes : 0);

const COLUMNS: Column[] = [
  { key: 'table', label: 'Table', text: (t) => t.table },
  { key: 'id', label: 'Row identification', text: (t) => t.rowIdentification },
  { key: 'pk', label: 'Primary key', text: (t) => (t.exists ? t.primaryKey.join(', ') || 'none' : '') },
  {
    key: 'feed',
    label: 'Change feed',
    text: changeFeedText,
  },
  {
    key: 'copied',
    label: 'Rows copied',
    text: (t) => (t.copied === null ? '' : count(t.copied)),
    order: (t) => t.copied ?? -1,
  },
  {
    key: 'applied',
    label: 'Last hour: ins / upd / del',
    text: (t) =>
      t.activity
        ? `${count(t.activity.inserts)} / ${count(t.activity.updates)} / ${count(t.activity.deletes)}`
        : '',
    order: (t) => applied(t.activity),
  },
  {
    key: 'last',
    label: 'Last change applied',
    text: (t) => (t.activity?.lastChangeAt ? dateTime(t.activity.lastChangeAt) : ''),
    order: (t) => (t.activity?.lastChangeAt ? Date.parse(t.activity.lastChangeAt) : 0),
  },
  {
    key: 'kept',
    label: 'Rows kept aside',
    text: (t) => (t.kept > 0 ? count(t.kept) : ''),
    order: (t) => t.kept,
  },
  {
    key: 'problem',
    label: 'Status',
    // A suspension's reason says "… was suspended"; a stop's says why only.
    text: (t) =>
      t.halted
        ? t.halted.status === 'suspended'
          ? t.halted.reason
          : `stopped: ${t.halted.reason}`
        : (t.problem ?? 'ready'),
  },
];

/** A copy's entry that says the table is suspended or stopped on its own; null when it reads on. */
function haltedOf(c: TableSnapshot | undefined): TableRow['halted'] {
  return c && (c.status === 'suspended' || c.status === 'stopped')
    ? { status: c.status, reason: c.reason }
    : null;
}

export function TablesView() {
  const tables = useStore((s) => s.pipelinePage.tables);
  const activity = useStore((s) => s.pipelinePage.tableActivity);
  const snapshots = useStore((s) => s.pipelinePage.snapshots);
  const running = snapshots?.running ?? false;
  const busy = useStore((s) => s.pipelinePage.busy !== undefined);
  const kept = useStore((s) => s.pipelinePage.exceptions?.counts);
  const [filter, setFilter] = useState('');
  const [sort, setSort] = useState<{ key: string; ascending: boolean }>({ key: 'table', ascending: true });
  const rows = useMemo(() => {
    if (!Array.isArray(tables)) return [];
    const needle = filter.trim().toLowerCase();
    const column = COLUMNS.find((c) => c.key === sort.key) ?? COLUMNS[0];
    const compare = (a: TableRow, b: TableRow) =>
      !column
        ? 0
        : column.order
          ? column.order(a) - column.order(b)
          : column.text(a).localeCompare(column.text(b));
    return tables
      .map((t): TableRow => ({
        ...t,
        activity: activity?.find((a) => a.table === t.table) ?? null,
        copied: snapshots?.tables.find((c) => c.table === t.table)?.rowsDone ?? null,
        kept: kept?.[t.table] ?? 0,
        halted: haltedOf(snapshots?.tables.find((c) => c.table === t.table)),
      }))
      .filter((t) => !needle || COLUMNS.some((c) => c.text(t).toLowerCase().includes(needle)))
      .sort((a, b) => compare(a, b) * (sort.ascending ? 1 : -1));
  }, [tables, activity, snapshots, kept, filter, sort]);
  const suspended = (snapshots?.tables ?? []).filter((c) => haltedOf(c) !== null).length;
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
            {suspended > 0 && (
              <strong className="problem" role="status">
                {suspended} of {tables.length} tables suspended
              </strong>
            )}
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
              <tr key={t.table} className={t.problem || t.halted ? 'problem-row' : undefined}>
                {COLUMNS.map((c) =>
                  c.key === 'table' ? (
                    <td key={c.key}>
                      <button
                        type="button"
                        className="link"
                        aria-label={`Story of ${t.table}`}
                        onClick={() => patch({ storyTable: t.table })}
                      >
                        {t.table}
                      </button>
                    </td>
                  ) : (
                    <td key={c.key}>{c.text(t)}</td>
                  ),
                )}
                <td>
                  {t.halted?.status === 'suspended' && (
                    <button
                      type="button"
                      disabled={!running || busy}
                      aria-label={`Resume ${t.table}`}
                      onClick={() => void snapshotTable(t.table, 'resume')}
                    >
                      Resume
                    </button>
                  )}{' '}
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
