// A schema change at the source as the engine tells it: each applied or withheld change is an event,
// and the latest one is carried in the agent's status (the app rings a notification for a new one,
// test/main/app/alerts.unit.test.ts).
import { describe, expect, it } from 'vitest';
import type { StartContext } from '../../../main/agents/spi';
import { configureStubSource, enginesStoppedAfterEach } from '../../helpers/engine';
import { stubRuntime } from '../../helpers/stubRuntime';
import { until } from '../../helpers/until';

const engine = enginesStoppedAfterEach();

describe('schema changes in the engine', () => {
  it('are events, and the latest, applied or withheld, is in the status', async () => {
    let running: StartContext | undefined;
    const runtime = stubRuntime({
      start: async (_agent, ctx) => {
        running = ctx;
      },
    });
    const e = await engine({ runtime });
    const ids = await configureStubSource(e.client);
    const status = async () =>
      (await e.client.getOverview({})).pipelines[0]?.agents.find((a) => a.id === 'src')?.status;
    expect((await status())?.lastSchemaChange).toBeNull();
    await e.client.startAgent(ids);
    await until('the runtime started', () => running !== undefined);
    running?.report('schema-changed', { table: 'dbo.Orders', reason: 'dbo.Orders: column Note added' });
    expect((await status())?.lastSchemaChange).toMatchObject({
      table: 'dbo.Orders',
      reason: 'dbo.Orders: column Note added',
      withheld: false,
    });
    running?.report('schema-change-withheld', {
      table: 'dbo.Orders',
      reason: 'column Extra added at the source left out, as the schema-change policy says',
    });
    expect((await status())?.lastSchemaChange).toMatchObject({ table: 'dbo.Orders', withheld: true });
    const kinds = (await e.client.listEvents({ pipelineId: 'p1' })).map((x) => x.kind);
    expect(kinds).toEqual(expect.arrayContaining(['schema-changed', 'schema-change-withheld']));
  });
});
