// One zustand store made of slices; actions live beside each slice as plain functions.
import { create } from 'zustand';
import type { PipelineSection, Screen } from '../../shared/route';
import type { StoreState } from './state';

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
