import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDispatch } from '../../../main/app/dispatch';
import { handlers, type Deps, type Handlers } from '../../../main/app/handlers';
import type { AppServices } from '../../../main/app/services';
import { startTestApp } from '../../helpers/app';
import type { Log, LogFields } from '../../../main/platform/log';

function recordingLog() {
  const lines: string[] = [];
  const log: Log = {
    info: (event: string, fields?: LogFields) => lines.push(JSON.stringify({ event, ...fields })),
    warn: (event: string, fields?: LogFields) => lines.push(JSON.stringify({ event, ...fields })),
  };
  return { log, lines };
}
let app: AppServices;
let deps: Deps;
beforeAll(async () => {
  app = await startTestApp();
  deps = { ...app.deps, appVersion: '1.2.3' };
});
afterAll(() => app.close());

describe('dispatch', () => {
  it('answers a valid call with the parsed output', async () => {
    const { log } = recordingLog();
    const dispatch = createDispatch(handlers, deps, log);
    const answer = await dispatch('listAgentTypes', {});
    expect(answer.ok && (answer.value as { type: string }[]).map((t) => t.type)).toEqual([
      'change-tracking',
      'journal',
      'sqlite',
      'postgresql',
      'nats-jetstream',
    ]);
    const info = await dispatch('getAppInfo', {});
    expect(info).toMatchObject({ ok: true, value: { version: '1.2.3', mode: 'web' } });
  });

  it('refuses an unknown method, including prototype names', async () => {
    const { log } = recordingLog();
    const dispatch = createDispatch(handlers, deps, log);
    for (const name of ['nope', 'toString', '__proto__', 42]) {
      expect(await dispatch(name, {})).toEqual({
        ok: false,
        error: { code: 'unknown_method', message: 'There is no such API method.' },
      });
    }
  });

  it('refuses a malformed call and logs the path but never the payload', async () => {
    const { log, lines } = recordingLog();
    const dispatch = createDispatch(handlers, deps, log);
    const answer = await dispatch('validateAgentSection', {
      agentType: 'oracle',
      section: 'hostCredentials',
      body: { password: 'hunter2-secret' },
    });
    expect(answer).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(!answer.ok && answer.error.message).toMatch(/^validateAgentSection: \/agentType: /);
    expect(lines.join('\n')).toContain('/agentType');
    expect(lines.join('\n')).not.toContain('hunter2-secret');
    expect(JSON.stringify(answer)).not.toContain('hunter2-secret');
  });

  it('validates a section and answers without the password', async () => {
    const dispatch = createDispatch(handlers, deps, recordingLog().log);
    const body = { connectionName: 'c', host: 'h', databaseName: 'd', username: 'u', password: 'pa55-word' };
    const answer = await dispatch('validateAgentSection', {
      agentType: 'change-tracking',
      section: 'hostCredentials',
      body,
    });
    expect(answer).toMatchObject({
      ok: true,
      value: { ok: true, value: { password: null, passwordSet: true, port: 1433 } },
    });
    expect(JSON.stringify(answer)).not.toContain('pa55-word');
    const refused = await dispatch('validateAgentSection', {
      agentType: 'journal',
      section: 'hostCredentials',
      body: { ...body, port: 1 },
    });
    expect(refused).toMatchObject({
      ok: true,
      value: { ok: false, problems: [{ pointer: '/hostCredentials/port' }] },
    });
  });

  it('turns a handler failure into an internal error without its message', async () => {
    const { log, lines } = recordingLog();
    const failing: Handlers = {
      ...handlers,
      listAgentTypes: () => {
        throw new Error('connection string had password=abc');
      },
    };
    const answer = await createDispatch(failing, deps, log)('listAgentTypes', {});
    expect(answer).toEqual({
      ok: false,
      error: { code: 'internal', message: 'listAgentTypes failed inside the app; see the log.' },
    });
    expect(lines.join('\n')).not.toContain('password=abc');
  });

  it('refuses output that breaks the contract', async () => {
    const broken = { ...handlers, listAgentTypes: () => [{ type: 'oracle' }] } as unknown as Handlers;
    const answer = await createDispatch(broken, deps, recordingLog().log)('listAgentTypes', {});
    expect(answer).toMatchObject({ ok: false, error: { code: 'internal' } });
  });
});
