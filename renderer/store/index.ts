// One zustand store made of slices; actions live beside each slice as plain functions.
import { create } from 'zustand';
import type { AppSliceState } from './app';
import type { WizardSliceState } from './wizard';

export type StoreState = AppSliceState & WizardSliceState;

export const useStore = create<StoreState>()(() => ({ agentTypes: [], wizard: undefined }));
