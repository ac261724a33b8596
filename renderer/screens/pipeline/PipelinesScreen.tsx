// The Pipelines screen: pick an engine and a pipeline, then the pipeline's own page — one section at a
// time (Status, Tables, Checks, Verify, Timeline, Settings), each with its own address, so what a DBA
// does and what it answers stay on one screen.
import { useEffect } from 'react';
import { PIPELINE_SECTIONS, routeHash, SECTION_TITLES, type PipelineSection } from '../../../shared/route';
import { showSection, useStore } from '../../store';
import { loadEngines } from '../../store/engines';
import {
  address,
  loadSeries,
  pickCheckerAgent,
  pickCheckerEngine,
  refreshRun,
  selectedIn,
  trySandbox,
} from '../../store/pipelinePage';
import { EngineSelect } from '../../ui/EngineSelect';
import { StatusSection } from './StatusSection';
import { TablesSection } from './TablesSection';
import { ChecksSection } from './ChecksSection';
import { SettingsSection } from './SettingsSection';
import { VerifyPanel } from '../VerifyPanel';
import { EventList } from '../EventList';
import { SandboxPanel } from '../SandboxPanel';

export function PipelinesScreen() {
  const pipelinePage = useStore((s) => s.pipelinePage);
  const section = useStore((s) => s.section);
  const { profileId, agents, selected, busy } = pipelinePage;
  const profiles = useStore((s) => s.profiles);
  useEffect(() => {
    void loadEngines();
  }, []);
  // One engine: nothing to pick.
  useEffect(() => {
    const only = profiles.length === 1 ? profiles[0] : undefined;
    if (only && !profileId) void pickCheckerEngine(only.id);
  }, [profiles, profileId]);
  // Read once when a pipeline is opened, whichever section; pushes keep it current from then on.
  useEffect(() => {
    if (!selected) return;
    void refreshRun();
    void loadSeries();
  }, [selected]);
  const sources = (agents ?? []).flatMap((p) => p.agents.map((a) => ({ pipeline: p, agent: a })));
  const picked = selectedIn(pipelinePage);
  return (
    <section aria-labelledby="pipelines-title">
      <h2 id="pipelines-title">Pipelines</h2>
      <div className="form-grid pipeline-picker">
        <EngineSelect
          id="pipeline-engine"
          value={profileId ?? ''}
          onChange={(id) => void pickCheckerEngine(id)}
          placeholder="Pick an engine…"
        />
        <div className="field">
          <label htmlFor="pipeline-select">Pipeline</label>
          <select
            id="pipeline-select"
            value={selected ?? ''}
            disabled={sources.length === 0}
            onChange={(e) => pickCheckerAgent(e.target.value)}
          >
            <option value="" disabled>
              {busy === 'loading'
                ? 'Loading…'
                : sources.length
                  ? 'Pick a pipeline…'
                  : 'No pipelines on this engine'}
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
        </div>
      </div>
      {selected && !picked && busy === undefined && agents && (
        <p role="alert" className="problem">
          {selected} is not a pipeline of this engine (deleted, or an old link). Pick one above.
        </p>
      )}
      {!picked && <Notices />}
      {picked && (
        <article aria-labelledby="pipeline-title" className="pipeline-page">
          <header className="pipeline-head">
            <h3 id="pipeline-title">
              {picked.pipeline.name} <span className="muted">/ {picked.agent.name}</span>
            </h3>
            <span className={`state state-${picked.agent.state}`} aria-label="Pipeline state">
              {picked.agent.state}
            </span>
            <span className="muted">{picked.agent.type}</span>
          </header>
          <SectionTabs current={section} />
          <Notices />
          <div aria-label={`${SECTION_TITLES[section]} section`} role="region" className="section-body">
            <Section section={section} />
          </div>
        </article>
      )}
      <SandboxPanel />
    </section>
  );
}

/** The sections as links: each its own address, the current one marked. */
function SectionTabs({ current }: { current: PipelineSection }) {
  const at = address();
  if (!at) return null;
  return (
    <nav aria-label="Pipeline sections" className="section-tabs">
      {PIPELINE_SECTIONS.map((s) => (
        <a
          key={s}
          href={routeHash({ screen: 'pipelines', at, section: s })}
          aria-current={s === current ? 'page' : undefined}
          onClick={(e) => {
            e.preventDefault();
            showSection(s);
          }}
        >
          {SECTION_TITLES[s]}
        </a>
      ))}
    </nav>
  );
}

/** What the last action answered, above the section it was done in. */
function Notices() {
  const notice = useStore((s) => s.pipelinePage.notice);
  const error = useStore((s) => s.pipelinePage.error);
  return (
    <>
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
    </>
  );
}

function Section({ section }: { section: PipelineSection }) {
  const pipelinePage = useStore((s) => s.pipelinePage);
  const agent = selectedIn(pipelinePage)?.agent;
  switch (section) {
    case 'status':
      return <StatusSection />;
    case 'tables':
      return <TablesSection />;
    case 'checks':
      return <ChecksSection />;
    case 'verify':
      return (
        <VerifyPanel
          running={agent?.state === 'running'}
          tables={(pipelinePage.snapshots?.tables ?? []).map((t) => t.table)}
        />
      );
    case 'timeline':
      return <EventList events={pipelinePage.events} />;
    case 'settings':
      return <SettingsSection />;
  }
}
