// The two-step form of one agent type: host credentials, then agent-specific settings.
import { agentTypes } from '../../shared/agents';
import { fieldsOf, parseSection, withKeptSecrets } from '../../shared/config/parse';
import type { SectionId } from '../../shared/config/section';
import { useStore } from '../store';
import { useEffect, useRef } from 'react';
import { closeWizard, fieldFocused, goBack, setField, submitStep, testConnection } from '../store/wizard';
import { ConnectionResult, EngineApply, TablesStep } from './EngineApply';
import { SchemaForm } from '../ui/SchemaForm';
import { problemsByField, toBody } from '../store/formValues';
import type { WizardState } from '../store/state';

const STEPS: SectionId[] = ['hostCredentials', 'configuration'];

export function AgentWizard() {
  const wizard = useStore((s) => s.wizard);
  if (!wizard) return null;
  const definition = agentTypes[wizard.agentType];
  return (
    <section className="wizard" aria-labelledby="wizard-title">
      <header className="wizard-head">
        <h2 id="wizard-title">
          {wizard.editing ? 'Edit ' : ''}
          {wizard.role === 'target' ? `${definition.database} target` : `${definition.title} agent`}{' '}
          <span className="muted">({definition.database})</span>
        </h2>
        <button type="button" className="link" onClick={closeWizard}>
          Close
        </button>
      </header>
      <ol className="steps" aria-label="Steps">
        {STEPS.map((id, i) => (
          <li key={id} aria-current={wizard.step === id ? 'step' : undefined}>
            {i + 1}. {definition.sections[id].title}
          </li>
        ))}
        <li aria-current={wizard.step === 'done' ? 'step' : undefined}>3. Apply and choose tables</li>
      </ol>
      {wizard.step === 'done' ? (
        <>
          <Summary wizard={wizard} />
          <EngineApply wizard={wizard} />
          <TablesStep />
        </>
      ) : (
        <Step wizard={wizard} sectionId={wizard.step} />
      )}
    </section>
  );
}

function Step({ wizard, sectionId }: { wizard: WizardState; sectionId: SectionId }) {
  const section = agentTypes[wizard.agentType].sections[sectionId];
  const values = wizard.values[sectionId];
  // Inline errors come from the same schema main uses, for the fields the user has touched.
  const body = toBody(section, values);
  const local = parseSection(section, wizard.editing ? withKeptSecrets(section, body) : body);
  const localProblems = local.ok ? [] : local.problems;
  const shown = problemsByField([...wizard.serverProblems[sectionId], ...localProblems], section);
  const visible = Object.fromEntries(Object.entries(shown).filter(([key]) => wizard.touched[sectionId][key]));
  const { ui } = agentTypes[wizard.agentType];
  const note = ui?.stepNotes?.[sectionId];
  const focusField = wizard.focusField;
  // A refused Apply comes back here: its field (opened, when under Advanced) takes the focus.
  useEffect(() => {
    if (!focusField) return;
    document.getElementById(`${section.id}-${focusField}`)?.focus();
    fieldFocused();
  }, [focusField, section.id]);
  const heading = useStepHeading(sectionId, focusField !== undefined);
  return (
    <form
      noValidate
      aria-label={section.title}
      onSubmit={(e) => {
        e.preventDefault();
        void submitStep();
      }}
    >
      <h3 id={`step-${sectionId}-title`} ref={heading} tabIndex={-1} className="step-title">
        Step {STEPS.indexOf(sectionId) + 1} of 3: {section.title}
      </h3>
      <p className="muted">{section.description}</p>
      {wizard.editing && sectionId === 'hostCredentials' && (
        <p className="note">
          Editing {wizard.editing.pipelineId}/{wizard.editing.agentId}: leave the password blank to keep the
          one stored on the engine (it is then left out of the request, never sent empty).
        </p>
      )}
      <SchemaForm
        section={section}
        values={values}
        problems={visible}
        onChange={(key, value) => setField(sectionId, key, value)}
        emptyChoiceLabel={(key) => ui?.inheritedChoice?.(key, wizard.accepted.hostCredentials) ?? ''}
      />
      {note && <p className="note">{note}</p>}
      {wizard.error && (
        <p role="alert" className="problem">
          {wizard.error}
        </p>
      )}
      <div className="actions">
        {sectionId === 'configuration' && (
          <button type="button" onClick={goBack}>
            Back
          </button>
        )}
        {sectionId === 'hostCredentials' && (
          <button
            type="button"
            onClick={() => void testConnection()}
            disabled={wizard.connection === 'testing'}
          >
            Test connection
          </button>
        )}
        <button type="submit" className="primary" disabled={wizard.busy}>
          {sectionId === 'hostCredentials' ? 'Next' : 'Check settings'}
        </button>
      </div>
      {sectionId === 'hostCredentials' && <ConnectionResult connection={wizard.connection} />}
    </form>
  );
}

/** One section's accepted values as a DBA reads them: each field's label and value, secrets as set. */
function Review({ wizard, id }: { wizard: WizardState; id: SectionId }) {
  const section = agentTypes[wizard.agentType].sections[id];
  const values = wizard.accepted[id] ?? {};
  const shown = (key: string, kind: string) => {
    const value = values[key];
    // Accepted secrets come back redacted: what the form holds says whether one was typed.
    if (kind === 'secret')
      return wizard.values[id][key] ? 'set (hidden)' : wizard.editing ? 'kept as stored' : 'not set';
    if (value === null || value === undefined || value === '') return '–';
    if (typeof value === 'boolean') return value ? 'yes' : 'no';
    return typeof value === 'object' ? JSON.stringify(value) : String(value);
  };
  return (
    <>
      <h4>{section.title}</h4>
      <dl className="settings-list">
        {fieldsOf(section).map(({ key, meta }) => (
          <div key={key}>
            <dt>{meta.label}</dt>
            <dd>{shown(key, meta.kind)}</dd>
          </div>
        ))}
      </dl>
    </>
  );
}

/**
 * A step opens at its top, its heading focused: after Next the keyboard is on the new step, not on the
 * page body 27 Tabs away, and a long step 1 does not leave step 2 scrolled to its middle. A field to
 * correct (a refused Apply) takes the focus instead.
 */
function useStepHeading(step: string, fieldToFocus: boolean) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (fieldToFocus) return;
    ref.current?.scrollIntoView({ block: 'start' });
    ref.current?.focus({ preventScroll: true });
    // Only a new step moves the focus; a field focused meanwhile keeps it.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [step]);
  return ref;
}

function Summary({ wizard }: { wizard: WizardState }) {
  const heading = useStepHeading('done', false);
  const bodies = {
    credentials: { hostCredentials: wizard.accepted.hostCredentials },
    specific: { configuration: wizard.accepted.configuration },
  };
  return (
    <div role="status" className="summary">
      <h3 ref={heading} tabIndex={-1} className="step-title">
        Step 3 of 3: Settings accepted
      </h3>
      <p>Both steps are valid. Review them, then apply them to an engine below.</p>
      <Review wizard={wizard} id="hostCredentials" />
      <Review wizard={wizard} id="configuration" />
      <details>
        <summary>As the control API&apos;s two PUT bodies (secrets hidden)</summary>
        <h4>PUT …/config/credentials</h4>
        <pre>{JSON.stringify(bodies.credentials, null, 2)}</pre>
        <h4>PUT …/config/specific</h4>
        <pre>{JSON.stringify(bodies.specific, null, 2)}</pre>
      </details>
      <div className="actions">
        <button type="button" onClick={goBack}>
          Back
        </button>
      </div>
    </div>
  );
}
