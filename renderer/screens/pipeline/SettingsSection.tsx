// A pipeline's Settings: what its agent holds (secrets only said to be set), edited through the same
// wizard, and the pipeline deleted with what goes with it said first.
import { useState } from 'react';
import { Confirm } from '../../ui/Confirm';
import { showScreen, useStore } from '../../store';
import { openWizard } from '../../store/wizard';
import { selectedIn } from '../../store/pipelinePage';
import { deleteSelectedPipeline, editSelectedAgent, removeSelectedAgent } from '../../store/pipelineAdmin';
import { dateTime } from '../../../shared/format';
import { redactedEntries } from '../../../shared/config/parse';
import type { Section } from '../../../shared/config/section';
import { agentTypes } from '../../../shared/agents';
import { agentKind, agentWords } from '../../../shared/pipelineWords';

function Values({
  title,
  section,
  declared,
}: {
  title: string;
  section: Record<string, unknown> | null;
  declared: Section;
}) {
  if (!section) return <p className="muted">{title}: not set yet.</p>;
  return (
    <>
      <h4>{title}</h4>
      <dl className="settings-list">
        {redactedEntries(section, declared).map(({ key, label, text }) => (
          <div key={key}>
            <dt>{label}</dt>
            <dd>{text}</dd>
          </div>
        ))}
      </dl>
    </>
  );
}

/** Where the pipeline writes, and the way to choose a target of the DBA's own. */
function WritesTo({
  pipeline,
}: {
  pipeline: { id: string; agents: { id: string; type: string; role: string }[] };
}) {
  // The list selected whole (a filtered copy would be a new answer each render).
  const types = useStore((s) => s.agentTypes).filter((t) => t.roles.includes('target'));
  const [type, setType] = useState('');
  const target = pipeline.agents.find((a) => a.role === 'target');
  return (
    <>
      <h4>Target</h4>
      <p>
        {target
          ? `Writes through target agent ${target.id} (${target.type}); open it in the agents above to check or edit it.`
          : `Writes to the default SQLite file, replicas/${pipeline.id}.sqlite in the app's data folder.`}
      </p>
      {!target && (
        <p className="row-actions">
          <label htmlFor="target-type">Write elsewhere</label>
          <select id="target-type" value={type} onChange={(e) => setType(e.target.value)}>
            <option value="">Choose a target…</option>
            {types.map((t) => (
              <option key={t.type} value={t.type}>
                {t.database}
              </option>
            ))}
          </select>
          <button
            type="button"
            disabled={!type}
            onClick={() => {
              const chosen = types.find((t) => t.type === type);
              if (!chosen) return;
              openWizard(chosen.type, 'target', pipeline.id);
              showScreen('agents');
            }}
          >
            Set it up…
          </button>
        </p>
      )}
    </>
  );
}

/** Delete pipeline…, and its confirmation saying what goes with it. */
export function DeletePipeline({
  pipeline,
}: {
  pipeline: { id: string; name: string; agents: { name: string }[] };
}) {
  const busy = useStore((s) => s.pipelinePage.busy !== undefined);
  // Which pipeline's delete is being confirmed: another one opened shows its own button.
  const [deleting, setDeleting] = useState<string | null>(null);
  if (deleting !== pipeline.id)
    return (
      <p className="row-actions">
        <button type="button" disabled={busy} onClick={() => setDeleting(pipeline.id)}>
          Delete pipeline…
        </button>
      </p>
    );
  const agents = pipeline.agents.map((a) => a.name);
  return (
    <Confirm
      label="Confirm delete"
      yes="Yes, delete it"
      onYes={() => {
        setDeleting(null);
        void deleteSelectedPipeline();
      }}
      onCancel={() => setDeleting(null)}
    >
      Delete pipeline {pipeline.name}
      {agents.length > 0 ? ` with its agents (${agents.join(', ')}),` : ','} the list of tables it replicates
      and its events and verify reports? The rows it wrote stay in the target, and the source keeps its
      checkpoint rows until removed there. A running pipeline must be stopped first.
    </Confirm>
  );
}

export function SettingsSection() {
  const pipelinePage = useStore((s) => s.pipelinePage);
  const picked = selectedIn(pipelinePage);
  const [removing, setRemoving] = useState<string | null>(null);
  if (!picked) return null;
  const { pipeline, agent } = picked;
  const others = pipeline.agents.filter((a) => a.id !== agent.id);
  const busy = pipelinePage.busy !== undefined;
  return (
    <>
      <p className="muted">
        Agent {agentWords(agent)}, last changed {dateTime(agent.updatedAt)}.
      </p>
      <p className="row-actions">
        <button type="button" className="primary" disabled={busy} onClick={editSelectedAgent}>
          Edit agent…
        </button>
        <button
          type="button"
          disabled={busy || removing !== null}
          onClick={() => setRemoving(pipelinePage.selected ?? null)}
        >
          Remove agent…
        </button>
      </p>
      {removing === pipelinePage.selected && (
        <Confirm
          label="Confirm remove agent"
          yes={`Yes, remove ${agent.id}`}
          onYes={() => {
            setRemoving(null);
            void removeSelectedAgent();
          }}
          onCancel={() => setRemoving(null)}
        >
          Remove the {agent.role} agent {agent.id} ({agentKind(agent)}) from pipeline {pipeline.name}? Its
          settings, its rows kept aside and its verify reports go.{' '}
          {others.length > 0
            ? `The pipeline keeps ${others.map((a) => a.id).join(' and ')}, its tables and its events.`
            : 'The pipeline stays, with its tables and events, and no agent.'}{' '}
          {agent.role === 'source'
            ? 'Without a source it replicates nothing until one is added.'
            : `Without it the pipeline writes to the default SQLite file, replicas/${pipeline.id}.sqlite.`}{' '}
          The rows written stay in the target. A running agent must be stopped first.
        </Confirm>
      )}
      <DeletePipeline pipeline={pipeline} />
      <WritesTo pipeline={pipeline} />
      <Values
        title="Host credentials"
        section={agent.hostCredentials}
        declared={agentTypes[agent.type].sections.hostCredentials}
      />
      <Values
        title="Agent settings"
        section={agent.configuration}
        declared={agentTypes[agent.type].sections.configuration}
      />
    </>
  );
}
