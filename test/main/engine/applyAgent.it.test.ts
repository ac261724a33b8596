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
    expect(
      (answer.steps as { request: string; status: number }[]).map((s) => `${s.request} ${s.status}`),
    ).toEqual([
      'POST /pipelines 201',
      'POST /pipelines/p-apply/agents 201',
      'PUT /pipelines/p-apply/agents/ibmi/config/credentials 422',
    ]);
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
