// The Pipelines screen: pick an engine and a pipeline, then the pipeline's own page — one section at a
// time (Status, Tables, Checks, Verify, Timeline, Settings), each with its own address, so what a DBA
// does and what it answers stay on one screen.
import { useEffect } from 'react';
import { PIPELINE_SECTIONS, routeHash, SECTION_TITLES, type PipelineSection } from '../../../shared/route';
import { showSection, useStore } from '../../store';
import { loadEngines } from '../../store/engines';
import { agentWords, homeAgentOf, pipelineRoute } from '../../../shared/pipelineWords';
import {
  address,
  loadSeries,
  pickCheckerAgent,
  pickCheckerEngine,
  pipelineIn,
  refreshRun,
  selectedIn,
  trySandbox,
} from '../../store/pipelinePage';
import { EngineSelect } from '../../ui/EngineSelect';
import { PIPELINE_STATE_ID, StatusSection } from './StatusSection';
import { TablesSection } from './TablesSection';
import { ChecksSection } from './ChecksSection';
import { DeletePipeline, SettingsSection } from './SettingsSection';
import { VerifyPanel } from '../VerifyPanel';
import { EventList } from '../EventList';
import { SandboxPanel } from '../SandboxPanel';

/** The sections that are an agent's own: a target agent's are its checks and its settings. */
const AGENT_SECTIONS: ReadonlySet<PipelineSection> = new Set(['checks', 'settings']);

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
  const pipelines = agents ?? [];
  const picked = selectedIn(pipelinePage);
  // Status, Tables, Verify and Timeline are the pipeline's, read through its source: a target opened
  // for its checks or settings hands them back (its own copies and tables are none).
  const home = picked && homeAgentOf(picked.pipeline);
  const handBack = picked?.agent.role === 'target' && home?.role === 'source' && !AGENT_SECTIONS.has(section);
  useEffect(() => {
    if (handBack && picked && home) pickCheckerAgent(`${picked.pipeline.id}/${home.id}`);
  }, [handBack, picked, home]);
  const agentless = picked ? undefined : pipelineIn(pipelinePage);
  // One option per pipeline: the open one keeps the agent opened in it, the others open at their source.
  const optionValue = (p: (typeof pipelines)[number]) =>
    picked?.pipeline.id === p.id ? (selected ?? '') : `${p.id}/${homeAgentOf(p)?.id ?? ''}`;
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
            disabled={pipelines.length === 0}
            onChange={(e) => pickCheckerAgent(e.target.value)}
          >
            <option value="" disabled>
              {busy === 'loading'
                ? 'Loading…'
                : pipelines.length
                  ? 'Pick a pipeline…'
                  : 'No pipelines on this engine'}
            </option>
            {pipelines.map((p) => (
              <option key={p.id} value={optionValue(p)}>
                {p.name}: {pipelineRoute(p)} ({homeAgentOf(p)?.state ?? 'no agents'})
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
      {selected && !picked && !agentless && busy === undefined && agents && (
        <p role="alert" className="problem">
          {selected} is not a pipeline of this engine (deleted, or an old link). Pick one above.
        </p>
      )}
      {!picked && <Notices />}
      {agentless && <NoAgents pipeline={agentless} />}
      {picked && (
        <article aria-labelledby="pipeline-title" className="pipeline-page">
          <header className="pipeline-head">
            <h3 id="pipeline-title">{picked.pipeline.name}</h3>
            <span
              id={PIPELINE_STATE_ID}
              className={`state state-${pipelineState(picked)}`}
              aria-label="Pipeline state"
            >
              {pipelineState(picked)}
            </span>
            <span className="muted">{pipelineRoute(picked.pipeline)}</span>
          </header>
          <AgentsOfPipeline pipeline={picked.pipeline} open={picked.agent.id} />
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

type Picked = NonNullable<ReturnType<typeof selectedIn>>;

/** The pipeline's state is its source's: a target agent runs as part of it. */
const pipelineState = ({ pipeline, agent }: Picked) => (homeAgentOf(pipeline) ?? agent).state;

/**
 * The agents that carry the pipeline, each opened here: the sections (Checks, Settings) are the open
 * agent's, so a target's own checks are one click from its pipeline.
 */
function AgentsOfPipeline({ pipeline, open }: { pipeline: Picked['pipeline']; open: string }) {
  const hasTarget = pipeline.agents.some((a) => a.role === 'target');
  return (
    <nav aria-label={`Agents of ${pipeline.name}`} className="pipeline-agents">
      <span className="muted">Agents:</span>
      <ul>
        {pipeline.agents.map((a) => (
          <li key={a.id}>
            <button
              type="button"
              className="link"
              aria-current={a.id === open ? 'true' : undefined}
              onClick={() => {
                // A target's own sections are its checks and settings: it opens at its checks.
                if (a.role === 'target' && !AGENT_SECTIONS.has(useStore.getState().section))
                  showSection('checks');
                pickCheckerAgent(`${pipeline.id}/${a.id}`);
              }}
            >
              {agentWords(a)}
            </button>{' '}
            <span className={`state state-${a.state}`}>{a.state}</span>
          </li>
        ))}
        {!hasTarget && (
          <li className="muted">
            target: the default SQLite file, replicas/{pipeline.id}.sqlite (Settings offers another)
          </li>
        )}
      </ul>
    </nav>
  );
}

/** A pipeline left with no agent (each removed): what it holds, and the ways on. */
function NoAgents({ pipeline }: { pipeline: NonNullable<ReturnType<typeof pipelineIn>> }) {
  return (
    <article aria-labelledby="pipeline-title" className="pipeline-page">
      <header className="pipeline-head">
        <h3 id="pipeline-title">{pipeline.name}</h3>
        <span className="state" aria-label="Pipeline state">
          no agents
        </span>
      </header>
      <p>
        Pipeline {pipeline.name} has no agent: it keeps its tables and events and replicates nothing. Add a
        source on the Agents screen with pipeline id {pipeline.id}, or delete the pipeline.
      </p>
      <DeletePipeline pipeline={pipeline} />
    </article>
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
