// Warnings before loss as the engine keeps them: a backlog point that carries warnings (here from an
// idle pipeline's reading) is told once as a loss-warning event and carried in the agent's status;
// the same warnings again are not told again, and their end is told as an event too.
import { describe, expect, it } from 'vitest';
import { stubRuntime } from '../../helpers/stubRuntime';
import { configureStubSource, enginesStoppedAfterEach } from '../../helpers/engine';
import { until } from '../../helpers/until';

const engine = enginesStoppedAfterEach();
const WARNING =
  'Journal SHOP/QSQJRN deletes each receiver it detaches … CHGJRN JRN(SHOP/QSQJRN) DLTRCV(*NO).';

describe('warnings before loss in the engine', () => {
  it('are told when they appear and when they end, and carried in the status meanwhile', async () => {
    let warnings = [WARNING];
    const runtime = stubRuntime({
      backlog: async () => ({ rowsToRead: 5, minutesLeft: 1, versionsBehind: null, warnings }),
    });
    const e = await engine({ runtime, idleBacklogEveryMs: 20 });
    const ids = await configureStubSource(e.client);
    await e.client.startAgent(ids);
    await e.client.pauseAgent(ids);
    const events = async () =>
      (await e.client.listEvents({ pipelineId: 'p1' })).filter((x) => x.kind === 'loss-warning');
    const status = async () =>
      (await e.client.getOverview({})).pipelines[0]?.agents.find((a) => a.id === 'src')?.status;
    await until('the warning told', async () => (await events()).length === 1);
    expect((await events())[0]?.data).toEqual({ warnings: [WARNING] });
    expect((await status())?.warnings).toEqual([WARNING]);
    // Measured again with the same warning: not told again.
    await until('more backlog points', async () => {
      const { history } = await e.client.getBacklog(ids);
      return history.length >= 3;
    });
    expect((await events()).length).toBe(1);
    warnings = [];
    await until('the end told', async () => (await events()).length === 2);
    expect((await events())[1]?.data).toEqual({ warnings: [] });
    expect((await status())?.warnings).toBeUndefined();
  });
});
