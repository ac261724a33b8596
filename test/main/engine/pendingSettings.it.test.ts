// Settings stored while a pipeline is paused or stopped are not the ones it holds: its status says so
// (settingsPendingSince) until it takes them, and Resume starts it again with them rather than going
// on with the old ones.
import { describe, expect, it } from 'vitest';
import type { ResolvedAgent } from '../../../main/agents/spi';
import { configureStubSource, enginesStoppedAfterEach } from '../../helpers/engine';
import { stubRuntime } from '../../helpers/stubRuntime';

const engine = enginesStoppedAfterEach();

describe('settings stored while a pipeline does not run', () => {
  it('are pending in its status until Resume starts it again with them', async () => {
    const calls: string[] = [];
    const runtime = stubRuntime({
      start: async (agent: ResolvedAgent) => {
        calls.push(`start ${String(agent.hostCredentials.username)}`);
      },
      stop: async () => {
        calls.push('stop');
      },
    });
    const e = await engine({ runtime });
    const ids = await configureStubSource(e.client);
    const pending = async () =>
      (await e.client.getOverview({})).pipelines[0]?.agents.find((a) => a.id === 'src')?.status
        .settingsPendingSince;

    await e.client.startAgent(ids);
    await e.client.pauseAgent(ids);
    // A pause alone leaves the pipeline's own settings in place: Resume goes on, nothing restarts.
    expect(await pending()).toBeNull();
    await e.client.startAgent(ids);
    expect(calls).toEqual(['start cdc', 'start cdc']);

    await e.client.pauseAgent(ids);
    await e.client.putCredentials(ids, {
      hostCredentials: {
        connectionName: 'orders',
        host: '127.0.0.1',
        databaseName: 'Sales',
        username: 'cdc_new',
      },
    });
    expect(await pending()).toEqual(expect.any(String));

    calls.length = 0;
    await e.client.startAgent(ids);
    expect(calls).toEqual(['stop', 'start cdc_new']);
    expect(await pending()).toBeNull();
    const kinds = (await e.client.listEvents({ pipelineId: 'p1' })).map((x) => x.kind);
    expect(kinds.slice(-2)).toEqual(['credentials-replaced', 'started']);

    // Stopped, then changed: pending until Start.
    await e.client.stopAgent(ids);
    await e.client.putSpecific(ids, { configuration: { sourceChangeRetentionDays: 9 } });
    expect(await pending()).toEqual(expect.any(String));
    await e.client.startAgent(ids);
    expect(await pending()).toBeNull();
  });
});
