// Choosing a pipeline's tables from the source's catalogue: search, a schema, a page at a time; per
// table its rows, key, change feed and what would stop it (with the statement that fixes it); the
// target name of each chosen table and its own schema-change policy (the pipeline's unless chosen);
// saved as the pipeline's entities, the outcome beside the button.
import { SCHEMA_CHANGE_CHOICES, type SchemaChanges } from '../../shared/agents/common';
import { useFocusOn } from './useFocusOn';
import { useState } from 'react';
import { count } from '../../shared/format';
import { useStore } from '../store';
import { openPipeline } from '../store/pipelinePage';
import { changeFeedText } from './changeFeed';
import {
  chooseAllMatching,
  chooseShown,
  closePicker,
  keylessRule,
  keyOf,
  nextPage,
  previousPage,
  saveTables,
  setFilter,
  setRowIdentification,
  setSchemaChanges,
  setRowFilter,
  setForceCcsid,
  overridesCcsid,
  setTableMode,
  setTarget,
  toggle,
} from '../store/tablePicker';
import type { ChosenTable } from '../store/state';
import { rowFilterProblem } from '../../shared/rowFilter';
import { parseForceCcsid } from '../../shared/ccsidOverride';
import { TABLE_MODE_NAMES, type TableMode } from '../../shared/shaping';

/** A mode chosen in the select: one of the schema's kinds (anything else is live). */
const tableModeKind = (value: string): TableMode['kind'] =>
  value === 'softDelete' || value === 'history' ? value : 'live';

/** A chosen table's typed setting, its parse error beside it as it is typed. */
function CheckedInput(props: {
  id: string;
  label: string;
  placeholder: string;
  value: string;
  problem: string | null;
  onChange: (value: string) => void;
  size?: number;
}) {
  const { id, problem } = props;
  return (
    <>
      <input
        aria-label={props.label}
        placeholder={props.placeholder}
        size={props.size}
        value={props.value}
        aria-invalid={problem !== null}
        aria-describedby={problem ? id : undefined}
        onChange={(e) => props.onChange(e.target.value)}
      />
      {problem && (
        <span id={id} className="problem">
          {problem}
        </span>
      )}
    </>
  );
}

const domId = (prefix: string, tableKey: string) => `${prefix}-${tableKey.replace(/[^A-Za-z0-9]/g, '_')}`;

/** A chosen table's row filter (docs/shaping.md). */
const RowFilterInput = ({ tableKey, name, value }: { tableKey: string; name: string; value: string }) => (
  <CheckedInput
    id={domId('filter', tableKey)}
    label={`Row filter of ${name}`}
    placeholder="every row"
    value={value}
    problem={rowFilterProblem(value)}
    onChange={(typed) => setRowFilter(tableKey, typed)}
  />
);

/** A chosen file's CCSID override (65535 or wrongly tagged text, docs/journal-agent.md). */
function ForceCcsidInput({ tableKey, name, value }: { tableKey: string; name: string; value: string }) {
  const parsed = parseForceCcsid(value);
  return (
    <CheckedInput
      id={domId('ccsid', tableKey)}
      label={`Text CCSID of ${name}`}
      placeholder="as tagged"
      size={12}
      value={value}
      problem={'problem' in parsed ? parsed.problem : null}
      onChange={(typed) => setForceCcsid(tableKey, typed)}
    />
  );
}

/** A keyless table's rows told apart: by RRN, or by the columns of a logical key the DBA types. */
function RowIdentification({
  tableKey,
  name,
  chosen,
}: {
  tableKey: string;
  name: string;
  chosen: ChosenTable['rowIdentification'];
}) {
  return (
    <>
      <select
        aria-label={`Row identification of ${name}`}
        value={chosen?.kind ?? ''}
        onChange={(e) =>
          setRowIdentification(
            tableKey,
            e.target.value === 'rrn'
              ? { kind: 'rrn' }
              : e.target.value === 'logicalKey'
                ? { kind: 'logicalKey', columns: '' }
                : undefined,
          )
        }
      >
        <option value="">none: choose…</option>
        <option value="logicalKey">a logical key (columns)</option>
        <option value="rrn">RRN (relative record number; a reorganisation renumbers rows)</option>
      </select>
      {chosen?.kind === 'logicalKey' && (
        <input
          aria-label={`Key columns of ${name}`}
          placeholder="columns, comma-separated"
          value={chosen.columns}
          onChange={(e) => setRowIdentification(tableKey, { kind: 'logicalKey', columns: e.target.value })}
        />
      )}
    </>
  );
}

/** A select's value as a policy; the empty option is the pipeline's. */
const schemaChangeChoice = (value: string): SchemaChanges | undefined =>
  SCHEMA_CHANGE_CHOICES.find((c) => c === value);

export function TablePicker() {
  const picker = useStore((s) => s.picker);
  // In the wizard, the next step is the pipeline; on the pipeline's Tables, it is already open.
  const screen = useStore((s) => s.screen);
  const [search, setSearch] = useState('');
  const opened = picker
    ? `${picker.address.profileId}/${picker.address.pipelineId}/${picker.address.agentId}`
    : '';
  // Opened (after Apply, or from the Pipelines screen): brought into view with focus on its title.
  const heading = useFocusOn<HTMLHeadingElement>(opened);
  // The outcome takes focus where the DBA acted.
  const result = useFocusOn<HTMLParagraphElement>(picker?.result);
  if (!picker) return null;
  const { page, chosen, loading, saving } = picker;
  const chosenCount = Object.keys(chosen).length;
  const shown = page?.tables ?? [];
  const pageNumber = picker.cursors.length;
  const ccsids = overridesCcsid(picker.address.agentType);
  return (
    <section className="picker" aria-labelledby="picker-title">
      <header className="wizard-head">
        <h3 id="picker-title" ref={heading} tabIndex={-1}>
          Tables of {picker.address.pipelineId}
        </h3>
        <button type="button" className="link" onClick={closePicker}>
          Close
        </button>
      </header>
      <form
        className="form-grid"
        role="search"
        aria-label="Find tables"
        onSubmit={(e) => {
          e.preventDefault();
          void setFilter({ search });
        }}
      >
        <div className="field">
          <label htmlFor="picker-search">Name contains</label>
          <input id="picker-search" value={search} onChange={(e) => setSearch(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="picker-schema">Schema or library</label>
          <select
            id="picker-schema"
            value={picker.schema}
            onChange={(e) => void setFilter({ search, schema: e.target.value })}
          >
            <option value="">
              All ({count(page?.schemas.reduce((n, s) => n + s.tables, 0) ?? 0)} tables)
            </option>
            {page?.schemas.map((s) => (
              <option key={s.schema} value={s.schema}>
                {s.schema} ({count(s.tables)})
              </option>
            ))}
          </select>
        </div>
        <div className="actions">
          <button type="submit">Find</button>
        </div>
      </form>
      {picker.error && (
        <p role="alert" className="problem">
          {picker.error}
        </p>
      )}
      <div className="actions">
        <button type="button" disabled={shown.length === 0} onClick={() => chooseShown(true)}>
          Choose all shown
        </button>
        <button type="button" disabled={shown.length === 0} onClick={() => chooseShown(false)}>
          Choose none shown
        </button>
        {(page?.matching ?? 0) > shown.length && (
          <>
            <button
              type="button"
              disabled={picker.choosingAll === true}
              onClick={() => void chooseAllMatching(true)}
            >
              Choose all {count(page?.matching ?? 0)} matching
            </button>
            <button
              type="button"
              disabled={picker.choosingAll === true}
              onClick={() => void chooseAllMatching(false)}
            >
              Let go of all {count(page?.matching ?? 0)} matching
            </button>
          </>
        )}
        <span className="muted" role="status" aria-label="Picker status">
          {loading || picker.choosingAll
            ? 'Reading the catalogue…'
            : `${count(page?.matching ?? 0)} matching, page ${pageNumber}; ${count(chosenCount)} chosen.`}
          {picker.notice && !picker.choosingAll && <> {picker.notice}</>}
        </span>
      </div>
      <table className="tables" aria-label="Source tables">
        <thead>
          <tr>
            <th scope="col">Replicate</th>
            <th scope="col">Table</th>
            <th scope="col">Rows</th>
            <th scope="col">Primary key</th>
            <th scope="col">Change feed</th>
            <th scope="col">What would stop it</th>
            <th scope="col">Target table</th>
            <th scope="col">Schema changes</th>
            <th scope="col">Row filter</th>
            <th scope="col">Mode</th>
            {ccsids && (
              <th
                scope="col"
                title="The CCSID the file's text is in, over its tags: 273, or NAME=273, RAW=1141"
              >
                Text CCSID
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {shown.map((t, row) => {
            const key = keyOf(t);
            const pick = chosen[key];
            const name = `${t.schema}.${t.table}`;
            const keyless = keylessRule(picker.address.agentType, t);
            const refused = keyless?.kind === 'refused' ? keyless.reason : undefined;
            const unkeyed =
              keyless?.kind === 'choose-key' && !pick?.rowIdentification ? keyless.note : undefined;
            const stops = refused ?? unkeyed ?? t.problem;
            return (
              <tr key={key} className={stops ? 'problem-row' : undefined}>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`Replicate ${name}`}
                    checked={pick !== undefined}
                    disabled={refused !== undefined && pick === undefined}
                    aria-describedby={refused ? `picker-stops-${row}` : undefined}
                    onChange={(e) => toggle(t, e.target.checked)}
                  />
                </td>
                <td>{name}</td>
                <td>{t.rows === null ? '' : count(t.rows)}</td>
                <td>
                  {t.primaryKey.join(', ') ||
                    (keyless?.kind === 'choose-key' && pick ? (
                      <RowIdentification tableKey={key} name={name} chosen={pick.rowIdentification} />
                    ) : (
                      'none'
                    ))}
                </td>
                <td>{changeFeedText(t)}</td>
                <td id={`picker-stops-${row}`}>
                  {stops ?? 'nothing'}
                  {t.fix && (
                    <details>
                      <summary>Fix</summary>
                      <pre>{t.fix}</pre>
                    </details>
                  )}
                </td>
                <td>
                  {pick && (
                    <input
                      aria-label={`Target table of ${name}`}
                      value={pick.target}
                      onChange={(e) => setTarget(key, e.target.value)}
                    />
                  )}
                </td>
                <td>
                  {pick && (
                    <select
                      aria-label={`Schema changes of ${name}`}
                      value={pick.schemaChanges ?? ''}
                      onChange={(e) => setSchemaChanges(key, schemaChangeChoice(e.target.value))}
                    >
                      <option value="">As the pipeline</option>
                      {SCHEMA_CHANGE_CHOICES.map((c) => (
                        <option key={c} value={c}>
                          {c}
                        </option>
                      ))}
                    </select>
                  )}
                </td>
                <td>{pick && <RowFilterInput tableKey={key} name={name} value={pick.rowFilter ?? ''} />}</td>
                <td>
                  {pick && (
                    <select
                      aria-label={`Mode of ${name} at the target`}
                      value={pick.tableMode ?? 'live'}
                      onChange={(e) => setTableMode(key, tableModeKind(e.target.value))}
                    >
                      {Object.entries(TABLE_MODE_NAMES).map(([mode, words]) => (
                        <option key={mode} value={mode}>
                          {words}
                        </option>
                      ))}
                    </select>
                  )}
                </td>
                {ccsids && (
                  <td>
                    {pick && <ForceCcsidInput tableKey={key} name={name} value={pick.forceCcsid ?? ''} />}
                  </td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
      {/* Kept at the bottom of the view however long the page: Save and its answer always in sight. */}
      <div className="actions picker-bar">
        <button type="button" disabled={pageNumber < 2 || loading} onClick={() => void previousPage()}>
          Previous page
        </button>
        <button type="button" disabled={!page?.next || loading} onClick={() => void nextPage()}>
          Next page
        </button>
        <button type="button" className="primary" disabled={saving} onClick={() => void saveTables()}>
          {saving ? 'Saving…' : `Save ${count(chosenCount)} table${chosenCount === 1 ? '' : 's'}`}
        </button>
        {picker.result && (
          <p
            ref={result}
            tabIndex={-1}
            role={picker.result.ok ? 'status' : 'alert'}
            className={picker.result.ok ? 'ok' : 'problem'}
            aria-label="Save result"
          >
            {picker.result.message}
          </p>
        )}
      </div>
      {picker.result?.ok && screen !== 'pipelines' && (
        <p>
          Next: the pipeline&apos;s checks, then Start.{' '}
          <button
            type="button"
            className="primary"
            onClick={() => void openPipeline({ ...picker.address, section: 'checks' })}
          >
            Open the pipeline&apos;s checks
          </button>
        </p>
      )}
    </section>
  );
}
