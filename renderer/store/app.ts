import type { Api } from '../platform/api';
import { loadEngines } from './engines';
import { useStore } from './index';

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
