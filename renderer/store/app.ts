import type { z } from 'zod';
import type { agentTypeSummarySchema, appInfoSchema } from '../../shared/api';
import type { Api } from '../platform/api';
import { loadEngines } from './engines';
import { useStore } from './index';

export interface AppSliceState {
  api?: Api;
  appInfo?: z.infer<typeof appInfoSchema>;
  agentTypes: z.infer<typeof agentTypeSummarySchema>[];
  loadError?: string;
}

export async function loadApp(api: Api): Promise<void> {
  useStore.setState({ api, loadError: undefined });
  try {
    const [appInfo, agentTypes] = await Promise.all([api.getAppInfo({}), api.listAgentTypes({})]);
    useStore.setState({ appInfo, agentTypes });
    await loadEngines();
  } catch (error) {
    useStore.setState({ loadError: error instanceof Error ? error.message : 'The app could not load.' });
  }
}
