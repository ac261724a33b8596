import { agentTypes, SECTION_IDS, type AgentType } from '../../shared/agents';
import type { SectionId } from '../../shared/config/section';
import { secretKeysOf } from '../../shared/config/parse';
import { initialValues, toBody, type FormValue } from './formValues';
import { useStore } from './index';
import { closePicker, openPicker } from './tablePicker';
import type { ApplyAddress, ApplyConsent, WizardState } from './state';

const update = (change: (w: WizardState) => Partial<WizardState>) =>
  useStore.setState((s) => (s.wizard ? { wizard: { ...s.wizard, ...change(s.wizard) } } : s));

export function openWizard(
  agentType: AgentType,
  role: 'source' | 'target' = agentTypes[agentType].roles[0] ?? 'source',
  pipelineId?: string,
): void {
  const { sections } = agentTypes[agentType];
  // Another pipeline's table picker (its "Saved: 4 tables") is not this wizard's step 3.
  closePicker();
  useStore.setState({
    wizard: {
      agentType,
      role,
      pipelineId,
      applyTo: {
        profileId: 'local',
        pipelineId: pipelineId ?? 'pipeline-1',
        agentId: role === 'target' ? 'target' : (agentTypes[agentType].ui?.defaultAgentId ?? 'source'),
      },
      step: 'hostCredentials',
      values: {
        hostCredentials: initialValues(sections.hostCredentials),
        configuration: initialValues(sections.configuration),
      },
      touched: { hostCredentials: {}, configuration: {} },
      serverProblems: { hostCredentials: [], configuration: [] },
      accepted: {},
      busy: false,
    },
  });
}

/** A stored value as the form shows it: secrets blank (kept unless typed), unknowns empty. */
function formValueOf(value: unknown, secret: boolean): FormValue {
  if (secret || value === null || value === undefined) return '';
  return typeof value === 'boolean' ? value : String(value);
}

/** The wizard over an agent an engine holds, its settings filled in, to change and apply them again. */
export function openWizardToEdit(
  agentType: AgentType,
  stored: {
    role: 'source' | 'target';
    hostCredentials: Record<string, unknown> | null;
    configuration: Record<string, unknown> | null;
  },
  editing: NonNullable<WizardState['editing']>,
): void {
  openWizard(agentType, stored.role, editing.pipelineId);
  const { sections } = agentTypes[agentType];
  const filled = (id: SectionId) => {
    const secrets = new Set(secretKeysOf(sections[id]));
    const values = { ...initialValues(sections[id]) };
    for (const key of Object.keys(values))
      if (stored[id] && Object.hasOwn(stored[id], key))
        values[key] = formValueOf(stored[id][key], secrets.has(key));
    return values;
  };
  update(() => ({
    values: { hostCredentials: filled('hostCredentials'), configuration: filled('configuration') },
    applyTo: { profileId: editing.profileId, pipelineId: editing.pipelineId, agentId: editing.agentId },
    editing,
  }));
}

/** The engine, pipeline or agent id typed at Apply: the wizard keeps it until the DBA changes it. */
export function setApplyAddress(change: Partial<ApplyAddress>): void {
  update((w) => ({ applyTo: { ...w.applyTo, ...change }, applied: undefined, consent: undefined }));
}

/** The refused field has been focused. */
export function fieldFocused(): void {
  update(() => ({ focusField: undefined }));
}

export function closeWizard(): void {
  useStore.setState({ wizard: undefined });
}

export function setField(section: SectionId, key: string, value: FormValue): void {
  update((w) => ({
    values: { ...w.values, [section]: { ...w.values[section], [key]: value } },
    touched: { ...w.touched, [section]: { ...w.touched[section], [key]: true } },
    serverProblems: {
      ...w.serverProblems,
      [section]: w.serverProblems[section].filter((p) => !p.pointer.startsWith(`/${section}/${key}`)),
    },
    // A result about other values would mislead.
    ...(section === 'hostCredentials' && { connection: undefined }),
    applied: undefined,
  }));
}

/** From a failed sign-on back to step 1, the password focused (what most often is wrong). */
export function correctCredentials(): void {
  update((w) => ({
    step: 'hostCredentials',
    focusField: secretKeysOf(agentTypes[w.agentType].sections.hostCredentials)[0],
    applied: undefined,
    consent: undefined,
  }));
}

export function goBack(): void {
  update((w) => ({ step: w.step === 'done' ? 'configuration' : 'hostCredentials', error: undefined }));
}

/** Sends the current step to main, which has the last word; moves on only when it accepts. */
export async function submitStep(): Promise<void> {
  const { wizard, api } = useStore.getState();
  if (!wizard || !api || wizard.step === 'done' || wizard.busy) return;
  const sectionId = wizard.step;
  const section = agentTypes[wizard.agentType].sections[sectionId];
  const touchedAll = Object.fromEntries(Object.keys(wizard.values[sectionId]).map((k) => [k, true]));
  update((w) => ({ busy: true, error: undefined, touched: { ...w.touched, [sectionId]: touchedAll } }));
  try {
    const result = await api.validateAgentSection({
      agentType: wizard.agentType,
      section: sectionId,
      body: toBody(section, wizard.values[sectionId]),
      keepSecrets: wizard.editing !== undefined,
    });
    if (result.ok) {
      update((w) => ({
        busy: false,
        accepted: { ...w.accepted, [sectionId]: result.value },
        serverProblems: { ...w.serverProblems, [sectionId]: [] },
        step: sectionId === 'hostCredentials' ? 'configuration' : 'done',
      }));
    } else {
      update((w) => ({ busy: false, serverProblems: { ...w.serverProblems, [sectionId]: result.problems } }));
    }
  } catch (error) {
    update(() => ({ busy: false, error: error instanceof Error ? error.message : 'The check failed.' }));
  }
}

const failure = (error: unknown) => (error instanceof Error ? error.message : 'The request failed.');

/** Step 1's "Test connection": signs on with the credentials as they stand, from this app. */
export async function testConnection(): Promise<void> {
  const { wizard, api } = useStore.getState();
  if (!wizard || !api || wizard.connection === 'testing') return;
  const section = agentTypes[wizard.agentType].sections.hostCredentials;
  update(() => ({ connection: 'testing', error: undefined }));
  try {
    const hostCredentials = toBody(section, wizard.values.hostCredentials);
    // Editing: the engine holding the agent signs on, with its stored password when the field is blank.
    const editing = wizard.editing && {
      profileId: wizard.editing.profileId,
      pipelineId: wizard.editing.pipelineId,
      agentId: wizard.editing.agentId,
    };
    const connection = await api.testHostCredentials({
      agentType: wizard.agentType,
      hostCredentials,
      ...(editing && { editing }),
    });
    update(() => ({ connection }));
  } catch (error) {
    update(() => ({ connection: undefined, error: failure(error) }));
  }
}

/**
 * "Apply": both objects to an engine, the two PUTs in order; the engine's field problems go back to
 * their fields, the first one focused. A pipeline that exists is joined only once the DBA confirmed
 * (`joinExisting`); an edit always changes its own.
 */
export async function applyToEngine(agreed: ApplyConsent = {}): Promise<void> {
  const { wizard, api } = useStore.getState();
  if (!wizard || !api || wizard.applied === 'applying') return;
  const target = wizard.applyTo;
  const { sections } = agentTypes[wizard.agentType];
  // Consent given to the question before this one still holds (joined, then asked about the sign-on).
  const consent = agreed.despiteSignOn ? { ...wizard.consent, ...agreed } : agreed;
  const joinExisting = consent.joinExisting === true;
  update(() => ({ applied: 'applying', error: undefined, consent }));
  // The tables of an earlier Apply's pipeline are not this one's.
  closePicker();
  try {
    const { pipelineName, ...address } = target;
    const applied = await api.applyAgentConfig({
      ...address,
      ...(pipelineName?.trim() && { pipelineName: pipelineName.trim() }),
      agentType: wizard.agentType,
      role: wizard.role,
      hostCredentials: toBody(sections.hostCredentials, wizard.values.hostCredentials),
      configuration: toBody(sections.configuration, wizard.values.configuration),
      // An edit changes its own agent; a target wizard opened for a pipeline adds to that one.
      joinExisting:
        joinExisting ||
        wizard.editing !== undefined ||
        (wizard.role === 'target' && wizard.pipelineId === target.pipelineId),
      ...(consent.despiteSignOn && { applyDespiteSignOn: true }),
    });
    const refusedStep = SECTION_IDS.find((id) =>
      applied.problems.some((p) => p.pointer.startsWith(`/${id}/`)),
    );
    // Accepted whole: the tables are the next step, on the same engine and pipeline.
    // A new source's next step is its tables; an edit's tables are changed on the pipeline's Tables.
    if (
      wizard.role === 'source' &&
      !wizard.editing &&
      applied.steps.length > 0 &&
      applied.steps.every((step) => step.status < 300)
    )
      void openPicker({ ...address, agentType: wizard.agentType });
    const firstRefused = applied.problems.find(
      (p) => refusedStep && p.pointer.startsWith(`/${refusedStep}/`),
    );
    update((w) => ({
      applied,
      ...(refusedStep && {
        step: refusedStep,
        focusField: firstRefused?.pointer.split('/')[2],
        serverProblems: Object.fromEntries(
          SECTION_IDS.map((id) => [id, applied.problems.filter((p) => p.pointer.startsWith(`/${id}/`))]),
        ) as WizardState['serverProblems'],
        touched: Object.fromEntries(
          SECTION_IDS.map((id) => [id, Object.fromEntries(Object.keys(w.values[id]).map((k) => [k, true]))]),
        ) as WizardState['touched'],
      }),
    }));
  } catch (error) {
    update(() => ({ applied: undefined, error: failure(error) }));
  }
}
