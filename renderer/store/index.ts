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
/**
 * Opens a section of the open pipeline. What an action answered belongs to the section it was done in:
 * another section opens without it.
 */
export const showSection = (section: PipelineSection) =>
  useStore.setState((s) => ({
    screen: 'pipelines',
    section,
    ...(s.section !== section && {
      pipelinePage: { ...s.pipelinePage, notice: undefined, error: undefined },
    }),
  }));
