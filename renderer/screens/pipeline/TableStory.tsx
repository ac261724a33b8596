// One table's story, opened from the Tables section: its columns on both sides (the source's type and
// the type the target declares), on demand its first rows as the target gets them, its copies, what
// changed at the source and what the pipeline did, its last changes applied, and what each verify
// found of it.
import { useFocusOn } from '../../ui/useFocusOn';
import { useEffect, useState } from 'react';
import type { ColumnsAnswer } from '../../../shared/controlApi';
import { count, dateTime } from '../../../shared/format';
import { forcedCcsidText, textOrderText } from '../../../shared/ccsidOverride';
import { tableStory, type StoryLine } from '../../../shared/tableStory';
import { useStore } from '../../store';
import { address, failure, patch } from '../../store/pipelinePage';
import { ShapingEditor } from './ShapingEditor';

function Lines({ title, lines, empty }: { title: string; lines: StoryLine[]; empty: string }) {
  return (
    <>
      <h5>{title}</h5>
      {lines.length === 0 ? (
        <p className="muted">{empty}</p>
      ) : (
        <ol className="events">
          {lines.map((l, i) => (
            <li key={`${l.at}-${i}`}>
              <time dateTime={l.at}>{dateTime(l.at)}</time> {l.text}
            </li>
          ))}
        </ol>
      )}
    </>
  );
}

type Sample = NonNullable<ColumnsAnswer['tables'][number]['sample']>;
/** Rows a story's sample shows: a glance at what leaves the source, not a browser of the table. */
const SAMPLE_ROWS = 5;

/** The table's first rows as the target gets them, read on demand (a read of production). */
function SampleRows({ table, saved }: { table: string; saved: number }) {
  // The table a DBA asked rows of: read then, and again after each save while it is shown.
  const [wanted, setWanted] = useState<string | undefined>();
  const [sample, setSample] = useState<
    { table: string; saved: number; answer: Sample | string } | undefined
  >();
  const asked = wanted === table;
  // Rows read before the last save stay shown while they are read again.
  const shown = asked && sample?.table === table ? sample : undefined;
  const reading = asked && shown?.saved !== saved;
  useEffect(() => {
    const { api } = useStore.getState();
    const at = address();
    if (!asked || !api || !at) return;
    let live = true;
    api
      .describeEngineTableColumns({ ...at, tables: [table], sampleRows: SAMPLE_ROWS })
      .then((answer) => {
        const found = answer.tables[0]?.sample;
        if (live)
          setSample({
            table,
            saved,
            answer: found ?? 'The shaping does not fit the table: no row is shaped.',
          });
      })
      .catch((error: unknown) => live && setSample({ table, saved, answer: failure(at, error) }));
    return () => {
      live = false;
    };
  }, [asked, table, saved]);
  return (
    <>
      <h5>Rows as the target gets them</h5>
      {shown === undefined ? (
        <p className="row-actions">
          <button type="button" disabled={reading} onClick={() => setWanted(table)}>
            {reading ? 'Reading…' : `Show the first ${SAMPLE_ROWS} rows, shaped`}
          </button>
        </p>
      ) : typeof shown.answer === 'string' ? (
        <p role="alert" className="problem">
          {shown.answer}
        </p>
      ) : shown.answer.rows.length === 0 ? (
        <p className="muted">
          None: of the {count(shown.answer.read)} rows read first, the filter let none through.
        </p>
      ) : (
        <table className="tables" aria-label={`Rows of ${table} as the target gets them`}>
          <caption className="muted">
            The first {count(shown.answer.rows.length)} rows the filter lets through, masked and renamed as
            the target holds them.
          </caption>
          <thead>
            <tr>
              {shown.answer.columns.map((c) => (
                <th key={c} scope="col">
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {shown.answer.rows.map((r, i) => (
              <tr key={i}>
                {r.map((v, j) => (
                  <td key={j}>{v ?? <span className="muted">null</span>}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

export function TableStory({ table }: { table: string }) {
  const events = useStore((s) => s.pipelinePage.events);
  const verify = useStore((s) => s.pipelinePage.verify);
  // Keyed by table: another table's answer reads as "still reading" until its own arrives.
  const [read, setRead] = useState<{ table: string; answer: ColumnsAnswer | string } | undefined>();
  // Bumped when the shaping is saved: the columns are read again, as the target will now get them.
  const [saved, setSaved] = useState(0);
  const [editing, setEditing] = useState(false);
  const columns = read?.table === table ? read.answer : undefined;
  const heading = useFocusOn<HTMLHeadingElement>(table);
  useEffect(() => {
    const { api } = useStore.getState();
    const at = address();
    if (!api || !at) return;
    let current = true;
    api
      .describeEngineTableColumns({ ...at, tables: [table] })
      .then((answer) => current && setRead({ table, answer }))
      .catch((error: unknown) => current && setRead({ table, answer: failure(at, error) }));
    return () => {
      current = false;
    };
  }, [table, saved]);
  const story = tableStory(table, events ?? [], verify);
  const described = typeof columns === 'object' ? columns.tables[0] : undefined;
  return (
    <section className="table-story" aria-labelledby="story-title">
      <header className="wizard-head">
        <h4 id="story-title" ref={heading} tabIndex={-1}>
          Story of {table}
        </h4>
        <button type="button" className="link" onClick={() => patch({ storyTable: undefined })}>
          Close
        </button>
      </header>
      <h5>Columns</h5>
      {columns === undefined && <p className="muted">Reading the columns at the source…</p>}
      {typeof columns === 'string' && (
        <p role="alert" className="problem">
          {columns}
        </p>
      )}
      {typeof columns === 'object' && !described && (
        <p className="problem">The source does not hold {table} now.</p>
      )}
      {described && typeof columns === 'object' && (
        <table className="tables" aria-label={`Columns of ${table}`}>
          <caption className="muted">
            At the target: {described.targetTable} ({columns.targetType})
          </caption>
          <thead>
            <tr>
              <th scope="col">Column</th>
              <th scope="col">Source type</th>
              <th scope="col">At the target</th>
              <th scope="col">Target type</th>
              <th scope="col">What leaves the source</th>
              <th scope="col">Nulls</th>
              <th scope="col">Key</th>
            </tr>
          </thead>
          <tbody>
            {described.columns.map((c) => (
              <tr key={c.name}>
                <th scope="row">{c.name}</th>
                <td>{c.sourceType}</td>
                <td>{c.targetName ?? '–'}</td>
                <td>{c.targetType ?? '–'}</td>
                <td>{c.targetName === null ? 'left out' : (c.mask ?? 'as it is')}</td>
                <td>{c.nullable ? 'allowed' : 'not null'}</td>
                <td>{c.key ? 'key' : ''}</td>
              </tr>
            ))}
            {described.added.map((c) => (
              <tr key={`added-${c.name}`}>
                <th scope="row">–</th>
                <td>–</td>
                <td>{c.name}</td>
                <td>{c.targetType ?? '–'}</td>
                <td>
                  added by the pipeline (provenance, a soft delete’s flag and time, a history’s valid from and
                  to)
                </td>
                <td>allowed</td>
                <td />
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {described && (
        <>
          <p>
            {described.rowFilter ? (
              <>
                Rows: only those where <code>{described.rowFilter}</code>.
              </>
            ) : (
              'Rows: every row.'
            )}{' '}
            {described.skipsDeletes ? 'Deletes at the source are skipped: the target keeps every row.' : ''}
            {described.mode ? ` Mode: ${described.mode}.` : ''}
          </p>
          {described.forceCcsid !== null && <p>{forcedCcsidText(described.forceCcsid)}</p>}
          {described.textOrder !== null && <p>{textOrderText(described.textOrder)}</p>}
          {described.shapingProblem && (
            <p role="alert" className="problem">
              The shaping does not fit the table, so it is held at Start: {described.shapingProblem}
            </p>
          )}
          {!described.shapingProblem && <SampleRows table={table} saved={saved} />}
          {editing ? (
            <ShapingEditor table={table} columns={described.columns} onSaved={() => setSaved((n) => n + 1)} />
          ) : (
            <p className="row-actions">
              <button type="button" onClick={() => setEditing(true)}>
                Shape this table
              </button>
            </p>
          )}
        </>
      )}
      <Lines title="Copies" lines={story.copies} empty="No copy among the events kept." />
      <Lines
        title="Changes at the source, and what was done"
        lines={story.changesAtSource}
        empty="No schema change or stop among the events kept."
      />
      <h5>Last changes applied</h5>
      {story.lastChanges.length === 0 ? (
        <p className="muted">None among the events kept.</p>
      ) : (
        <ol className="events">
          {story.lastChanges.map((c, i) => (
            <li key={`${c.at}-${i}`}>
              <time dateTime={c.at}>{dateTime(c.at)}</time> {count(c.inserts)} inserted, {count(c.updates)}{' '}
              updated, {count(c.deletes)} deleted
            </li>
          ))}
        </ol>
      )}
      <Lines
        title="Verify results"
        lines={story.verifies}
        empty="Not verified yet: the Verify section compares it with the source."
      />
    </section>
  );
}
