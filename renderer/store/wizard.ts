import { agentTypes, type AgentType } from '../../shared/agents';
import type { SectionId } from '../../shared/config/section';
import type { Problem } from '../../shared/config/problems';
import { initialValues, toBody, type FormValue, type FormValues } from '../wizard/formValues';
import { useStore } from './index';

export type WizardStep = SectionId | 'done';

export interface WizardState {
  agentType: AgentType;
  step: WizardStep;
  values: Record<SectionId, FormValues>;
  /** Fields the user has edited or tried to submit: only these show errors while typing. */
  touched: Record<SectionId, Record<string, boolean>>;
  /** What main said at the last submit, until the field is edited again. */
  serverProblems: Record<SectionId, Problem[]>;
  /** The objects main accepted, secrets redacted. */
  accepted: Partial<Record<SectionId, Record<string, unknown>>>;
  busy: boolean;
  error?: string;
}

export interface WizardSliceState {
  wizard: WizardState | undefined;
}

const update = (change: (w: WizardState) => Partial<WizardState>) =>
  useStore.setState((s) => (s.wizard ? { wizard: { ...s.wizard, ...change(s.wizard) } } : s));

export function openWizard(agentType: AgentType): void {
  const { sections } = agentTypes[agentType];
  useStore.setState({
    wizard: {
      agentType,
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
