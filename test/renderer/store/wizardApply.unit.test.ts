// The wizard's "Apply" in the renderer store, with a stand-in API: problems the engine names go back
// beside their fields, on the step that holds them.
import { describe, expect, it } from 'vitest';
import type { Api } from '../../../renderer/platform/api';
import { useStore } from '../../../renderer/store';
import { applyToEngine, openWizard } from '../../../renderer/store/wizard';

describe('applyToEngine', () => {
  it('returns to the step of the first field the engine refused, with its message beside it', async () => {
    const problem = { pointer: '/hostCredentials/port', received: '', rule: '', message: 'port is refused.' };
    const api = {
      applyAgentConfig: async () => ({
        steps: [{ request: 'PUT …/config/credentials', status: 422, detail: 'Invalid values.' }],
        problems: [problem],
        agent: null,
      }),
    } as unknown as Api;
    useStore.setState({ api });
    openWizard('journal');
    useStore.setState((s) => (s.wizard ? { wizard: { ...s.wizard, step: 'done' } } : s));
    await applyToEngine();
    const wizard = useStore.getState().wizard;
    expect(wizard?.step).toBe('hostCredentials');
    expect(wizard?.serverProblems.hostCredentials).toEqual([problem]);
    expect(wizard?.serverProblems.configuration).toEqual([]);
    expect(wizard?.touched.hostCredentials.connectionName).toBe(true);
    expect(wizard?.applied).toMatchObject({ steps: [{ status: 422 }] });
    expect(wizard?.focusField).toBe('port');
  });
});
