// One zustand store made of slices; actions live beside each slice as plain functions.
import { create } from 'zustand';
import type { AppSliceState } from './app';
import type { ChecksSliceState } from './checks';
import type { DiagnosticsSliceState } from './diagnostics';
import type { EnginesSliceState } from './engines';
import type { WizardSliceState } from './wizard';

export type Screen = 'agents' | 'engines' | 'checks' | 'diagnostics';
export type StoreState = AppSliceState &
  WizardSliceState &
  EnginesSliceState &
  DiagnosticsSliceState &
  ChecksSliceState & { screen: Screen };

export const useStore = create<StoreState>()(() => ({
  screen: 'agents',
  agentTypes: [],
  wizard: undefined,
  profiles: [],
  engineChecks: {},
  diagnostics: { busy: false },
  checker: {},
}));

export const showScreen = (screen: Screen) => useStore.setState({ screen });
