// POST …/config/validate: both settings objects checked as the two PUTs check them, with nothing stored
// — for an agent that exists (its stored password fills a left-out one) and for one that does not yet
// (its type given, its pipeline not made), seen by the name rules as if it were there.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_FILE } from '../../../main/engine/engine';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../../simulators/mssql';
import { SEED_AGENT_LOGIN } from '../../../simulators/mssql/seed';
import { refusalInWords, startTestEngine, type RunningEngine } from '../../helpers/engine';

let sandbox: SandboxSqlServer;
let e: RunningEngine;
const ids = { pipelineId: 'held', agentId: 'sql' };

const credentials = (over: Record<string, unknown> = {}) => ({
  connectionName: 'sandbox',
  host: '127.0.0.1',
  port: sandbox.port,
  databaseName: 'Sales',
  username: SEED_AGENT_LOGIN.name,
  password: SEED_AGENT_LOGIN.password,
  ...over,
});

beforeAll(async () => {
  [sandbox, e] = await Promise.all([startSandboxSqlServer({ seed: true }), startTestEngine()]);
  await e.client.createPipeline({}, { id: ids.pipelineId, name: 'Held' });
  await e.client.createAgent(ids, { id: ids.agentId, type: 'change-tracking', role: 'source' });
  await e.client.putCredentials(ids, { hostCredentials: credentials() });
  await e.client.putSpecific(ids, { configuration: { sourceChangeRetentionDays: 5 } });
  await e.client.putEntities(ids, {
    entities: [{ source: { schema: 'dbo', table: 'Customers' }, target: { table: 'customers' } }],
  });
});
afterAll(async () => {
  await e?.stop();
  await sandbox?.close();
});

/** What the engine holds, to show a validate changed none of it. */
const holdings = async () => ({
  pipelines: (await e.client.listPipelines({})).map((p) => p.id),
  agent: await e.client.getAgent(ids),
  events: (await e.client.listEvents({ pipelineId: ids.pipelineId })).length,
});

describe('POST …/config/validate', () => {
  it('checks an agent of a pipeline not made yet, signs on, and stores nothing', async () => {
    const before = await holdings();
    const answer = await e.client.validateConfig(
      { pipelineId: 'not-yet', agentId: 'src' },
      {
        type: 'change-tracking',
        hostCredentials: credentials(),
        configuration: {},
        signOn: true,
      },
    );
    expect(answer).toMatchObject({ exists: false, signOn: { id: 'connection', status: 'passed' } });
    expect(answer.hostCredentials).not.toHaveProperty('password');
    // The configuration as it would be stored: the defaults filled in.
    expect(Object.keys(answer.configuration)).toContain('sourceChangeRetentionDays');
    expect(await holdings()).toEqual(before);
  });

  it('names every field problem of both objects at once', async () => {
    const r = await refusalInWords(
      e.client.validateConfig(
        { pipelineId: 'not-yet', agentId: 'src' },
        {
          type: 'change-tracking',
          hostCredentials: credentials({ port: 70000 }),
          configuration: { sourceChangeRetentionDays: 0, noSuchSetting: true },
        },
      ),
    );
    expect(r.status).toBe(422);
    expect(r.pointers.sort()).toEqual([
      '/configuration/noSuchSetting',
      '/configuration/sourceChangeRetentionDays',
      '/hostCredentials/port',
    ]);
  });

  it('asks for the type of an agent that does not exist, and refuses a type other than the stored one', async () => {
    const missing = await refusalInWords(
      e.client.validateConfig(
        { pipelineId: 'not-yet', agentId: 'src' },
        { hostCredentials: credentials(), configuration: {} },
      ),
    );
    expect(missing).toMatchObject({ status: 422, pointers: ['/type'] });
    const other = await refusalInWords(
      e.client.validateConfig(ids, { type: 'journal', hostCredentials: {}, configuration: {} }),
    );
    expect(other.status).toBe(409);
    expect(other.detail).toContain('is a change-tracking agent, not journal');
  });

  it('signs on with the stored password when none is given, and tells a wrong one, storing nothing', async () => {
    const before = await holdings();
    const { password: _left, ...withoutPassword } = credentials();
    const kept = await e.client.validateConfig(ids, {
      hostCredentials: withoutPassword,
      configuration: { sourceChangeRetentionDays: 9 },
      signOn: true,
    });
    expect(kept).toMatchObject({ exists: true, signOn: { status: 'passed' } });
    const wrong = await e.client.validateConfig(ids, {
      hostCredentials: credentials({ password: 'Not-The-Password-1' }),
      configuration: {},
      signOn: true,
    });
    expect(wrong.signOn).toMatchObject({ status: 'failed', message: expect.stringContaining('18456') });
    expect(JSON.stringify(wrong)).not.toContain('Not-The-Password-1');
    expect(await holdings()).toEqual(before);
  });

  it("sees a target not made yet as the name rules would: the engine's own store is refused", async () => {
    const r = await refusalInWords(
      e.client.validateConfig(
        { pipelineId: ids.pipelineId, agentId: 'replica' },
        {
          type: 'sqlite',
          role: 'target',
          hostCredentials: { connectionName: 'replica', path: join(e.dataDir, STORE_FILE) },
          configuration: {},
        },
      ),
    );
    expect(r).toMatchObject({ status: 422, pointers: ['/hostCredentials/path'] });
    // A source for a pipeline whose target is taken is refused as POST …/agents would refuse it.
    await e.client.createAgent(ids, { id: 'dst', type: 'sqlite', role: 'target' });
    const second = await refusalInWords(
      e.client.validateConfig(
        { pipelineId: ids.pipelineId, agentId: 'replica' },
        { type: 'sqlite', role: 'target', hostCredentials: {}, configuration: {} },
      ),
    );
    expect(second.status).toBe(409);
    expect(second.detail).toContain('has a target agent already');
    await e.client.deleteAgent({ pipelineId: ids.pipelineId, agentId: 'dst' });
  });

  it('refuses settings for a running agent, as the PUTs do', async () => {
    await e.client.startAgent(ids);
    try {
      const r = await refusalInWords(
        e.client.validateConfig(ids, { hostCredentials: credentials(), configuration: {} }),
      );
      expect(r.status).toBe(409);
      expect(r.detail).toContain('is running; pause or stop it before changing its settings');
    } finally {
      await e.client.stopAgent(ids);
    }
  });
});

describe('credentials stored while a pipeline waits', () => {
  const status = async () =>
    (await e.client.getOverview({})).pipelines
      .find((p) => p.id === ids.pipelineId)
      ?.agents.find((a) => a.id === ids.agentId)?.status;

  it('carry the sign-on tried with them just before, and say when none was tried', async () => {
    await e.client.startAgent(ids);
    await e.client.pauseAgent(ids);
    const wrong = credentials({ password: 'Not-The-Password-2' });
    const tried = await e.client.validateConfig(ids, {
      hostCredentials: wrong,
      configuration: {},
      signOn: true,
    });
    expect(tried.signOn?.status).toBe('failed');
    await e.client.putCredentials(ids, { hostCredentials: wrong });
    expect((await status())?.pendingSignOn).toMatchObject({
      agentId: ids.agentId,
      outcome: 'failed',
      message: expect.stringContaining('18456'),
    });
    const told = (await e.client.listEvents({ pipelineId: ids.pipelineId })).at(-1);
    expect(told).toMatchObject({ kind: 'credentials-signed-on', data: { status: 'failed' } });
    expect(JSON.stringify(await e.client.listEvents({ pipelineId: ids.pipelineId }))).not.toContain(
      'Not-The-Password-2',
    );

    // The right ones, tried and stored: passed.
    await e.client.validateConfig(ids, { hostCredentials: credentials(), configuration: {}, signOn: true });
    await e.client.putCredentials(ids, { hostCredentials: credentials() });
    expect((await status())?.pendingSignOn).toMatchObject({ outcome: 'passed' });

    // Other credentials than the ones tried: no sign-on is claimed for them.
    await e.client.putCredentials(ids, { hostCredentials: credentials({ databaseName: 'Other' }) });
    expect((await status())?.pendingSignOn).toMatchObject({ outcome: 'untried' });
    await e.client.putCredentials(ids, { hostCredentials: credentials() });
    await e.client.stopAgent(ids);
  });
});
