// The wizard's last step: the settings to an engine (the two PUTs in order, each answer shown), and
// step 1's "Test connection" result.
import { useFocusOn } from '../ui/useFocusOn';
import { useEffect } from 'react';
import { ID_RULE, idSchema, type CheckResult } from '../../shared/controlApi';
import { loadEngines } from '../store/engines';
import { EngineSelect } from '../ui/EngineSelect';
import { applyToEngine, correctCredentials, setApplyAddress } from '../store/wizard';
import { useStore } from '../store';
import { agentTypes } from '../../shared/agents';
import { openPipeline } from '../store/pipelinePage';
import { TablePicker } from '../ui/TablePicker';
import type { WizardState } from '../store/state';

export function ConnectionResult({ connection }: { connection: WizardState['connection'] }) {
  // The answer takes focus (and so comes into view) beside the button that asked for it.
  const answer = useFocusOn<HTMLParagraphElement>(connection !== 'testing' && connection);
  if (!connection) return null;
  if (connection === 'testing') return <p role="status">Testing the connection…</p>;
  const c: CheckResult = connection;
  return (
    <p
      ref={answer}
      tabIndex={-1}
      role="status"
      className={c.status === 'passed' ? 'ok' : 'problem'}
      aria-label="Connection test"
    >
      <strong>{c.status === 'passed' ? 'Connected.' : 'No connection.'}</strong> {c.message}
      {c.remedy && <span className="muted"> Remedy: {c.remedy}</span>}
    </p>
  );
}

export function EngineApply({ wizard }: { wizard: WizardState }) {
  const editing = wizard.editing;
  const { profileId, pipelineId, agentId } = wizard.applyTo;
  // The agent's state as its engine last pushed it, not as it was when the wizard opened: a pause or
  // stop since then lets the edit be applied.
  const pushedState = useStore((s) => {
    if (!editing) return undefined;
    const engine = s.fleet.engines.find((e) => e.profileId === editing.profileId);
    const pipeline = engine?.pipelines.find((p) => p.id === editing.pipelineId);
    return pipeline?.agents.find((a) => a.id === editing.agentId)?.status.state;
  });
  const running = (pushedState ?? editing?.state) === 'running';
  useEffect(() => void loadEngines(), []);
  const applied = wizard.applied;
  // A refusal appears beside Apply and takes focus: an Apply that seems to do nothing is a lost DBA.
  const refusal = useFocusOn<HTMLParagraphElement>(wizard.error);
  const appliedAnswer = useFocusOn<HTMLParagraphElement>(
    applied !== 'applying' && !applied?.existing && !applied?.signOn && applied,
  );
  return (
    <form
      className="apply"
      aria-label="Apply to an engine"
      onSubmit={(e) => {
        e.preventDefault();
        // An id the engine would refuse is said beside its field, and nothing is sent.
        const wrong = editing ? undefined : [pipelineId, agentId].findIndex((v) => idRuleBroken(v) !== null);
        if (wrong !== undefined && wrong >= 0) {
          document.getElementById(wrong === 0 ? 'apply-pipeline' : 'apply-agent')?.focus();
          return;
        }
        void applyToEngine();
      }}
    >
      <h4>
        {editing ? `Apply the changes to ${editing.pipelineId}/${editing.agentId}` : 'Apply to an engine'}
      </h4>
      {editing ? (
        <p className="note" aria-label="What applying does">
          {running
            ? 'The pipeline is running: pause or stop it on the Pipelines screen first (the engine refuses new settings for a running agent).'
            : 'The two objects replace the stored ones. The pipeline takes them at its next Start or Resume (Status says they wait), and reads on from its checkpoints: tables already copied are not copied again.'}
        </p>
      ) : (
        <div className="form-grid">
          <EngineSelect
            id="apply-engine"
            value={profileId}
            onChange={(id) => setApplyAddress({ profileId: id })}
          />
          <IdField
            id="apply-pipeline"
            label="Pipeline id"
            value={pipelineId}
            onChange={(v) => setApplyAddress({ pipelineId: v })}
          />
          {wizard.role === 'source' && (
            <div className="field">
              <label htmlFor="apply-pipeline-name">Pipeline name</label>
              <input
                id="apply-pipeline-name"
                value={wizard.applyTo.pipelineName ?? ''}
                placeholder={pipelineId}
                aria-describedby="apply-pipeline-name-help"
                onChange={(e) => setApplyAddress({ pipelineName: e.target.value })}
              />
              <span id="apply-pipeline-name-help" className="muted">
                What lists call a new pipeline (its id when blank); a pipeline that exists keeps its own.
              </span>
            </div>
          )}
          <IdField
            id="apply-agent"
            label="Agent id"
            value={agentId}
            onChange={(v) => setApplyAddress({ agentId: v })}
          />
        </div>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={applied === 'applying' || running}>
          {editing ? 'Apply changes' : 'Apply'}
        </button>
      </div>
      {wizard.error && (
        <p ref={refusal} tabIndex={-1} role="alert" className="problem" aria-label="Apply refused">
          {wizard.error}
        </p>
      )}
      {applied && applied !== 'applying' && applied.existing && (
        <JoinExisting existing={applied.existing} agentId={agentId} />
      )}
      {applied && applied !== 'applying' && applied.signOn && <SignOnFailed signOn={applied.signOn} />}
      {applied && applied !== 'applying' && !applied.existing && !applied.signOn && (
        <>
          <p
            ref={appliedAnswer}
            tabIndex={-1}
            role="status"
            aria-label="Apply result"
            className={applied.agent ? 'ok' : 'problem'}
          >
            {applied.agent
              ? editing
                ? 'Applied: the engine holds the new settings.'
                : applied.agent.role === 'target'
                  ? `Applied: pipeline ${pipelineId} writes here from its next Start.`
                  : 'Applied: the engine holds the agent. Next, choose its tables.'
              : 'The engine refused a step: its answer is in the requests below.'}
          </p>
          {applied.agent && applied.agent.role === 'target' && !editing && (
            <p>
              Next: check that the pipeline can write there.{' '}
              <button
                type="button"
                className="primary"
                onClick={() =>
                  void openPipeline({
                    profileId,
                    pipelineId,
                    agentId: applied.agent?.id ?? agentId,
                    section: 'checks',
                  })
                }
              >
                Open the target&apos;s checks
              </button>
            </p>
          )}
          <details open={!applied.agent}>
            <summary>The requests sent and the engine&apos;s answers</summary>
            <ol className="applied" aria-label="Requests sent">
              {applied.steps.map((s) => (
                <li key={s.request} className={s.status < 300 ? 'ok' : 'problem'}>
                  <code>{s.request}</code> → <strong>{s.status}</strong>{' '}
                  <span className="muted">{s.detail}</span>
                </li>
              ))}
            </ol>
          </details>
        </>
      )}
    </form>
  );
}

/** What is wrong with an id typed for the engine, in words; null when it is fine. */
function idRuleBroken(value: string): string | null {
  if (idSchema.safeParse(value).success) return null;
  return `Use ${ID_RULE}; "${value.slice(0, 64)}" is not one.`;
}

/** A pipeline or agent id, its rule said beside it as it is typed. */
function IdField(props: { id: string; label: string; value: string; onChange: (value: string) => void }) {
  const problem = idRuleBroken(props.value);
  return (
    <div className={`field${problem ? ' has-problem' : ''}`}>
      <label htmlFor={props.id}>{props.label}</label>
      <input
        id={props.id}
        value={props.value}
        spellCheck={false}
        aria-invalid={problem ? true : undefined}
        aria-describedby={`${props.id}-error`}
        onChange={(e) => props.onChange(e.target.value)}
      />
      <p id={`${props.id}-error`} className="problem" aria-live="polite">
        {problem}
      </p>
    </div>
  );
}

/** A pipeline of the typed id exists: what it holds, and the DBA's choice to add to it or not. */
function JoinExisting({
  existing,
  agentId,
}: {
  existing: NonNullable<Exclude<WizardState['applied'], 'applying' | undefined>['existing']>;
  agentId: string;
}) {
  const question = useFocusOn<HTMLDivElement>(existing);
  const replaced = existing.agents.find((a) => a.id === agentId);
  const held = existing.agents.map(
    (a) => `${a.id} (${agentTypes[a.type].title}, ${a.role === 'source' ? 'its source' : 'a target'})`,
  );
  return (
    <div ref={question} tabIndex={-1} role="alertdialog" aria-label="The pipeline exists" className="note">
      <p>
        <strong>Pipeline {existing.pipelineId} already exists</strong> on this engine
        {held.length > 0 ? `, with ${held.join(' and ')}.` : ', with no agent yet.'}{' '}
        {replaced
          ? `Its agent ${agentId} would take these settings in place of its own.`
          : `Agent ${agentId} would be added to it.`}{' '}
        Nothing has been sent.
      </p>
      <div className="actions">
        <button type="button" className="primary" onClick={() => void applyToEngine({ joinExisting: true })}>
          {replaced ? `Replace the settings of ${agentId}` : `Add ${agentId} to ${existing.pipelineId}`}
        </button>
        <button type="button" onClick={() => setApplyAddress({})}>
          Cancel, to choose another pipeline id
        </button>
      </div>
    </div>
  );
}

/**
 * Every rule passed but signing on with these settings failed: nothing is stored until the DBA says
 * so (a host down for maintenance is a reason to store them anyway; a mistyped password is not).
 */
function SignOnFailed({ signOn }: { signOn: CheckResult }) {
  const question = useFocusOn<HTMLDivElement>(signOn);
  const editing = useStore((s) => s.wizard?.editing !== undefined);
  return (
    <div
      ref={question}
      tabIndex={-1}
      role="alertdialog"
      aria-label="Sign-on failed"
      className="note problem-box"
    >
      <p>
        <strong>Signing on with these settings failed:</strong> {signOn.message}
        {signOn.remedy && <span className="muted"> Remedy: {signOn.remedy}</span>}
      </p>
      <p>
        Nothing has been stored. Stored anyway, they show as failing to sign on until they are fixed
        {editing ? ', and the pipeline fails at its next Start or Resume' : ''}.
      </p>
      <div className="actions">
        <button type="button" className="primary" onClick={correctCredentials}>
          Correct the credentials
        </button>
        <button type="button" onClick={() => void applyToEngine({ despiteSignOn: true })}>
          Apply anyway
        </button>
      </div>
    </div>
  );
}

/** Step 3, once the engine took both objects: the pipeline's tables. */
export function TablesStep() {
  const open = useStore((s) => s.picker !== undefined);
  return open ? <TablePicker /> : null;
}
