// The app's "Apply" through its dispatch, as the wizard calls it: the engine's 422 field problems come
// back with their JSON pointers for the form, after the requests that went through; "Test connection"
// refuses bad credentials by field before it tries anything.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Envelope } from '../../../shared/api';
import { startTestApp } from '../../helpers/app';

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.close());

const call = async (method: string, input: unknown) => {
  const answer: Envelope = await app.dispatch(method, input);
  if (!answer.ok) throw new Error(answer.error.message);
  return answer.value as Record<string, unknown>;
};

describe('applyAgentConfig', () => {
  it('answers each request, and the engine’s field problems with their pointers', async () => {
    const answer = await call('applyAgentConfig', {
      profileId: 'local',
      pipelineId: 'p-apply',
      agentId: 'ibmi',
      agentType: 'journal',
      hostCredentials: {
        connectionName: 'x',
        host: 'ibmi01',
        databaseName: '*SYSBAS',
        username: 'CDCAGENT',
        password: 'pw',
        port: 8471,
        maxConnectionsCount: 0,
      },
      configuration: {},
    });
    expect(answer.agent).toBeNull();
    // Both objects are checked before anything is made: a refusal leaves nothing to clean up.
    expect(
      (answer.steps as { request: string; status: number }[]).map((s) => `${s.request} ${s.status}`),
    ).toEqual(['POST /pipelines/p-apply/agents/ibmi/config/validate 422']);
    expect(await pipelineIds()).not.toContain('p-apply');
    const problems = answer.problems as { pointer: string; message: string }[];
    expect(problems.map((p) => p.pointer).sort()).toEqual([
      '/hostCredentials/maxConnectionsCount',
      '/hostCredentials/port',
    ]);
    expect(problems.find((p) => p.pointer === '/hostCredentials/port')?.message).toContain(
      'IBM i host servers listen on fixed, well-known ports',
    );
  });
});

type Held = { pipelines: { id: string; agents: { id: string }[] }[] };
const held = async () =>
  ((await call('listEngineAgents', { profileId: 'local' })) as unknown as Held).pipelines;
const pipelineIds = async () => (await held()).map((p) => p.id);

const journal = (syncLibrary: string) => ({
  connectionName: 'shop',
  host: 'ibmi01',
  databaseName: '*SYSBAS',
  username: 'CDCAGENT',
  password: 'pw',
  syncLibrary,
});
/** The wizard's Apply of a journal agent into `pipelineId`, as the DBA confirmed it or not. */
const applyJournal = (
  pipelineId: string,
  agentId: string,
  hostCredentials: Record<string, unknown>,
  joinExisting?: boolean,
  configuration: Record<string, unknown> = {},
) =>
  call('applyAgentConfig', {
    profileId: 'local',
    pipelineId,
    agentId,
    agentType: 'journal',
    hostCredentials,
    configuration,
    ...(joinExisting !== undefined && { joinExisting }),
    // No IBM i answers at ibmi01 here: these tests are of the rules, past the sign-on question.
    applyDespiteSignOn: true,
  });
const requests = (answer: Record<string, unknown>) =>
  (answer.steps as { request: string; status: number }[]).map((s) => `${s.request} ${s.status}`);

describe('applyAgentConfig into a pipeline that exists', () => {
  it('sends nothing and says what the pipeline holds, until the DBA agrees to join it', async () => {
    const first = await applyJournal('p-held', 'shop', journal('CDC1'));
    expect(first.agent).not.toBeNull();
    const asked = await applyJournal('p-held', 'second', { ...journal('CDC2'), host: 'ibmi02' });
    expect(asked).toMatchObject({
      steps: [],
      agent: null,
      existing: { pipelineId: 'p-held', agents: [{ id: 'shop', type: 'journal', role: 'source' }] },
    });
    const joined = await applyJournal('p-held', 'second', { ...journal('CDC2'), host: 'ibmi02' }, true);
    expect(requests(joined)).toEqual([
      'POST /pipelines/p-held/agents/second/config/validate 200',
      'POST /pipelines/p-held/agents 201',
      'PUT /pipelines/p-held/agents/second/config/credentials 200',
      'PUT /pipelines/p-held/agents/second/config/specific 200',
    ]);
  });

  it('names the sync library another pipeline uses as the field to change, and keeps nothing it made', async () => {
    const clash = await applyJournal('p-clash', 'shop', journal('CDC1'));
    expect(requests(clash)).toEqual(['POST /pipelines/p-clash/agents/shop/config/validate 409']);
    expect(clash.problems).toEqual([
      expect.objectContaining({
        pointer: '/hostCredentials/syncLibrary',
        message: expect.stringContaining('Agent "shop" of pipeline "p-held" already uses sync library CDC1'),
      }),
    ]);
    expect(await pipelineIds()).not.toContain('p-clash');

    // Joining a pipeline that exists: refused before the agent is made, so the pipeline is as it was.
    const joined = await applyJournal('p-held', 'third', journal('CDC1'), true);
    expect(requests(joined)).toEqual(['POST /pipelines/p-held/agents/third/config/validate 409']);
    const agents = (await held()).find((p) => p.id === 'p-held')?.agents.map((a) => a.id);
    expect(agents?.sort()).toEqual(['second', 'shop']);
  });

  it('never half-applies an edit: a refused configuration leaves the stored credentials as they were', async () => {
    const edit = await applyJournal('p-held', 'shop', { ...journal('CDC1'), host: 'ibmi09' }, true, {
      noSuchSetting: 1,
    });
    expect(requests(edit)).toEqual(['POST /pipelines/p-held/agents/shop/config/validate 422']);
    expect(edit.problems).toEqual([expect.objectContaining({ pointer: '/configuration/noSuchSetting' })]);
    const shop = (await held()).find((p) => p.id === 'p-held')?.agents.find((a) => a.id === 'shop') as
      { hostCredentials: { host: string } } | undefined;
    expect(shop?.hostCredentials.host).toBe('ibmi01');
  });
});

describe('applyAgentConfig when signing on fails', () => {
  it('stores nothing and says why, until the DBA applies anyway', async () => {
    const asked = await call('applyAgentConfig', {
      profileId: 'local',
      pipelineId: 'p-signon',
      agentId: 'shop',
      agentType: 'journal',
      hostCredentials: journal('CDCS'),
      configuration: {},
    });
    expect(asked).toMatchObject({
      agent: null,
      problems: [],
      signOn: { id: 'connection', status: 'failed' },
    });
    expect(requests(asked)).toEqual(['POST /pipelines/p-signon/agents/shop/config/validate 200']);
    expect(await pipelineIds()).not.toContain('p-signon');
    const applied = await applyJournal('p-signon', 'shop', journal('CDCS'));
    expect(applied.agent).not.toBeNull();
    expect(applied.signOn).toBeUndefined();
  });
});

describe('applyAgentConfig names the pipeline it creates', () => {
  it('gives a new pipeline the name typed, and leaves the name of one that exists alone', async () => {
    const made = await call('applyAgentConfig', {
      profileId: 'local',
      pipelineId: 'p-named',
      agentId: 'shop',
      agentType: 'journal',
      hostCredentials: journal('CDCN'),
      configuration: {},
      pipelineName: 'Shop floor, plant 2',
      applyDespiteSignOn: true,
    });
    expect(made.agent).not.toBeNull();
    const named = () =>
      call('listEngineAgents', { profileId: 'local' }).then(
        (v) => (v as unknown as { pipelines: { id: string; name: string }[] }).pipelines,
      );
    expect((await named()).find((p) => p.id === 'p-named')?.name).toBe('Shop floor, plant 2');
    await call('applyAgentConfig', {
      profileId: 'local',
      pipelineId: 'p-named',
      agentId: 'shop',
      agentType: 'journal',
      hostCredentials: journal('CDCN'),
      configuration: {},
      pipelineName: 'Another name',
      joinExisting: true,
      applyDespiteSignOn: true,
    });
    expect((await named()).find((p) => p.id === 'p-named')?.name).toBe('Shop floor, plant 2');
  });
});

describe('testHostCredentials', () => {
  it('names the fields that are wrong before it connects anywhere', async () => {
    const check = await call('testHostCredentials', {
      agentType: 'change-tracking',
      hostCredentials: {
        connectionName: 'x',
        host: 'sql 01',
        databaseName: 'db',
        username: 'u',
        password: 'p',
      },
    });
    expect(check).toMatchObject({
      id: 'connection',
      status: 'failed',
      remedy: 'Correct the fields above first.',
    });
    expect(String(check.message)).toContain('with no spaces; got "sql 01"');
  });
});
