// One zustand store made of slices; actions live beside each slice as plain functions.
import { create } from 'zustand';
import type { AppSliceState } from './app';
import type { PipelinePageSliceState } from './pipelinePage';
import type { DiagnosticsSliceState } from './diagnostics';
import type { EnginesSliceState } from './engines';
import type { FleetSliceState } from './fleet';
import type { TablePickerSliceState } from './tablePicker';
import type { WizardSliceState } from './wizard';
import type { StartPlanSliceState } from './startPlan';
import type { SandboxSliceState } from './sandbox';
import type { PipelineSection, Screen } from '../../shared/route';

export type { Screen };
export type StoreState = AppSliceState &
  WizardSliceState &
  EnginesSliceState &
  DiagnosticsSliceState &
  PipelinePageSliceState &
  FleetSliceState &
  TablePickerSliceState &
  StartPlanSliceState &
  SandboxSliceState & {
    screen: Screen;
    /** The open pipeline's section on the Pipelines screen. */
    section: PipelineSection;
  };

export const useStore = create<StoreState>()(() => ({
  screen: 'home',
  section: 'status',
  agentTypes: [],
  wizard: undefined,
  profiles: [],
  engineChecks: {},
  diagnostics: { busy: false },
  pipelinePage: {},
  fleet: { engines: [], channel: 'none' },
  picker: undefined,
}));

export const showScreen = (screen: Screen) => useStore.setState({ screen });
export const showSection = (section: PipelineSection) => useStore.setState({ screen: 'pipelines', section });
