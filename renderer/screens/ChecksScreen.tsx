// The checker: an agent's connection and permission checks as its engine runs them, with remedies
// and the statements that fix them.
import { dateTime } from '../../shared/format';
import { useEffect, useRef, useState } from 'react';
import { FIXABLE_CHECK_IDS } from '../../shared/controlApi';
import { useStore } from '../store';
import { loadEngines } from '../store/engines';
import {
  applyFix,
  pickCheckerAgent,
  pickCheckerEngine,
  recheck,
  runChecks,
  trySandbox,
  selectedIn,
} from '../store/checks';
import { CheckList } from '../ui/CheckList';
import { checksHeadline } from '../../shared/checkSummary';
import { EngineSelect } from '../ui/EngineSelect';
import { RunPanel } from './RunPanel';
import { TablePicker } from './TablePicker';
import { openPicker } from '../store/tablePicker';
import { deleteSelectedPipeline, editSelectedAgent } from '../store/pipelineAdmin';
import { TablesView } from './TablesView';
import { BacklogOverview } from './BacklogOverview';

export function ChecksScreen() {
  const checker = useStore((s) => s.checker);
  const { profileId, agents, selected, results, busy, notice, error } = checker;
  const profiles = useStore((s) => s.profiles);
  const resultsRef = useRef<HTMLDivElement>(null);
  // Which pipeline's Delete is being confirmed: another one chosen meanwhile is not.
  const [deleting, setDeleting] = useState<string | null>(null);
  useEffect(() => {
    void loadEngines();
  }, []);
  // One engine: nothing to pick.
  useEffect(() => {
    const only = profiles.length === 1 ? profiles[0] : undefined;
    if (only && !profileId) void pickCheckerEngine(only.id);
  }, [profiles, profileId]);
  // The results appear under the button that asked for them, and take focus.
  useEffect(() => {
    if (results) resultsRef.current?.focus();
  }, [results]);
  const sources = (agents ?? []).flatMap((p) => p.agents.map((a) => ({ pipeline: p, agent: a })));
  const picked = selectedIn(checker);
  const chosenSource =
    profileId && picked && picked.agent.role === 'source'
      ? { profileId, pipelineId: picked.pipeline.id, agentId: picked.agent.id, agentType: picked.agent.type }
      : undefined;
  return (
    <section aria-labelledby="checks-title">
      <h2 id="checks-title">Pipelines</h2>
      <p className="muted">
        Checks an agent&apos;s connection and permissions on its engine, against the source database, and runs
        its pipeline.
      </p>
      <div className="form-grid">
        <EngineSelect
          id="checker-engine"
          value={profileId ?? ''}
          onChange={(id) => void pickCheckerEngine(id)}
          placeholder="Pick an engine…"
        />
        <div className="field">
          <label htmlFor="checker-agent">Agent</label>
          <select
            id="checker-agent"
            value={selected ?? ''}
            disabled={sources.length === 0}
            onChange={(e) => pickCheckerAgent(e.target.value)}
          >
            <option value="" disabled>
              {busy === 'loading'
                ? 'Loading…'
                : sources.length
                  ? 'Pick an agent…'
                  : 'No agents on this engine'}
            </option>
            {sources.map(({ pipeline, agent }) => (
              <option key={`${pipeline.id}/${agent.id}`} value={`${pipeline.id}/${agent.id}`}>
                {pipeline.name} / {agent.name} ({agent.type}, {agent.state})
              </option>
            ))}
          </select>
        </div>
        <div className="actions">
          <button type="button" disabled={busy !== undefined} onClick={() => void trySandbox()}>
            Try the sandbox
          </button>
          <button
            type="button"
            disabled={!chosenSource || busy !== undefined}
            onClick={() => chosenSource && void openPicker(chosenSource)}
          >
            Choose tables
          </button>
          <button type="button" disabled={!picked || busy !== undefined} onClick={editSelectedAgent}>
            Edit agent…
          </button>
          <button
            type="button"
            disabled={!picked || busy !== undefined || deleting !== null}
            onClick={() => setDeleting(selected ?? null)}
          >
            Delete pipeline…
          </button>
          <button
            type="button"
            className="primary"
            disabled={!selected || busy !== undefined}
            onClick={() => void runChecks()}
          >
            {busy === 'checking' ? 'Checking…' : 'Run checks'}
          </button>
        </div>
      </div>
      {picked && deleting === selected && (
        <p role="group" aria-label="Confirm delete" className="note">
          Delete pipeline {picked.pipeline.name} with its agents (
          {picked.pipeline.agents.map((a) => a.name).join(', ')}), the list of tables it replicates and its
          events and verify reports? The rows it wrote stay in the target, and the source keeps its checkpoint
          rows until removed there. A running pipeline must be stopped first.{' '}
          <button
            type="button"
            className="primary"
            onClick={() => {
              setDeleting(null);
              void deleteSelectedPipeline();
            }}
          >
            Yes, delete it
          </button>{' '}
          <button type="button" onClick={() => setDeleting(null)}>
            Cancel
          </button>
        </p>
      )}
      {error && (
        <p role="alert" className="problem">
          {error}
        </p>
      )}
      {notice && (
        <p role="status" className="ok">
          {notice}
        </p>
      )}
      {results && (
        <div aria-label="Check results" ref={resultsRef} tabIndex={-1}>
          <p>
            <strong>{checksHeadline(results.checks, results.tables ?? null)}</strong>{' '}
            <span className="muted">Checked at {dateTime(results.checkedAt)}.</span>
          </p>
          <CheckList
            checks={results.checks}
            fixable={FIXABLE_CHECK_IDS}
            onApply={(id) => void applyFix(id)}
            onRecheck={(id) => void recheck(id)}
          />
        </div>
      )}
      <TablePicker />
      <RunPanel />
      {selected && <TablesView />}
      <BacklogOverview />
    </section>
  );
}
