// Inputs that cannot smuggle anything, and an HTTP layer that answers every error in JSON and lets no
// slow client hold a socket: the engine's control API over real HTTP, and the app's contract.
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createDispatch } from '../../../main/app/dispatch';
import { handlers, type Deps } from '../../../main/app/handlers';
import { mapOdbcError } from '../../../main/agents/drivers/ibmi/odbc';
import { DEFAULT_LIMITS } from '../../../main/platform/http/server';
import { redactSecret } from '../../../main/platform/redact';
import { silentLog } from '../../../main/platform/log';
import { enginesStoppedAfterEach, type RunningEngine } from '../../helpers/engine';

const engine = enginesStoppedAfterEach();

const journalCredentials = (host: string, syncLibrary = 'SYNC') => ({
  hostCredentials: {
    connectionName: 'as400',
    host,
    databaseName: 'S1234567',
    username: 'CDCUSER',
    password: 'ibm-i-Pa55',
    syncLibrary,
  },
});

async function journalAgent(e: RunningEngine, pipelineId: string) {
  await e.client.createPipeline({}, { id: pipelineId, name: pipelineId });
  await e.client.createAgent({ pipelineId }, { id: 'src', type: 'journal', role: 'source' });
}

const put = (e: RunningEngine, path: string, body: unknown, type = 'application/json') =>
  fetch(e.url + path, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${e.token}`, 'Content-Type': type },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

/** Sends raw bytes and answers everything the server writes until it closes the socket. */
function raw(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    let answer = '';
    socket.on('data', (d) => (answer += d.toString()));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
    socket.write(bytes);
  });
}

describe('text fields refuse control characters and lone surrogates', () => {
  it('refuses a NUL in host with a 422 naming the field, and stores nothing', async () => {
    const e = await engine();
    await journalAgent(e, 'a');
    await journalAgent(e, 'b');
    expect(
      (await put(e, '/pipelines/a/agents/src/config/credentials', journalCredentials('sandbox-ibmi'))).status,
    ).toBe(200);
    // The same host with a NUL would have been another source to the one-sync-library rule.
    const res = await put(
      e,
      '/pipelines/b/agents/src/config/credentials',
      journalCredentials('sandbox-ibmi\u0000'),
    );
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    const body = (await res.json()) as { detail: string; errors: { pointer: string; detail: string }[] };
    expect(body.errors).toEqual([
      {
        pointer: '/hostCredentials/host',
        detail: expect.stringContaining('host must be text without control characters'),
      },
    ]);
    expect(body.detail).toContain('U+0000');
    expect((await e.client.getAgent({ pipelineId: 'b', agentId: 'src' })).hostCredentials).toBeNull();
    // Without the NUL, the rule speaks.
    expect(
      (await put(e, '/pipelines/b/agents/src/config/credentials', journalCredentials('sandbox-ibmi'))).status,
    ).toBe(409);
  });

  it('refuses C1 controls, DEL and lone surrogates in any string, never echoing the value', async () => {
    const e = await engine();
    await journalAgent(e, 'a');
    for (const [bad, code] of [
      ['as\u0085400', 'U+0085'],
      ['as\u007f400', 'U+007F'],
      ['as\ud800400', 'U+D800'],
    ] as const) {
      const body = JSON.stringify(journalCredentials('ibmi.example')).replace('"as400"', JSON.stringify(bad));
      const res = await put(e, '/pipelines/a/agents/src/config/credentials', body);
      expect(res.status).toBe(422);
      const problem = (await res.json()) as { errors: { pointer: string; detail: string }[] };
      expect(problem.errors[0]?.pointer).toBe('/hostCredentials/connectionName');
      expect(problem.errors[0]?.detail).toContain(code);
      expect(JSON.stringify(problem)).not.toContain('400"');
    }
    const password = JSON.stringify(journalCredentials('ibmi.example')).replace(
      'ibm-i-Pa55',
      'se\\u0000cret-pw',
    );
    const res = await put(e, '/pipelines/a/agents/src/config/credentials', password);
    expect(res.status).toBe(422);
    expect(await res.text()).not.toContain('cret-pw');
  });

  it('refuses the same in a contract call of the app (IPC and web mode)', async () => {
    const dispatch = createDispatch(handlers, {} as Deps, silentLog);
    const answer = await dispatch('validateAgentSection', {
      agentType: 'journal',
      section: 'hostCredentials',
      body: { connectionName: 'x\u0000' },
    });
    expect(answer).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', message: expect.stringContaining('/body/connectionName') },
    });
  });
});

describe('IBM i system libraries', () => {
  it.each(['QSYS', 'QTEMP', 'qgpl', 'QSYS2'])('refuses %s as syncLibrary', async (library) => {
    const e = await engine();
    await journalAgent(e, 'a');
    const res = await put(
      e,
      '/pipelines/a/agents/src/config/credentials',
      journalCredentials('ibmi.example', library),
    );
    expect(res.status).toBe(422);
    const body = (await res.json()) as { errors: { pointer: string; detail: string }[] };
    expect(body.errors).toEqual([
      { pointer: '/hostCredentials/syncLibrary', detail: expect.stringContaining('not starting with Q') },
    ]);
  });
});

describe('the HTTP layer', () => {
  it('answers 405 with Allow', async () => {
    const e = await engine();
    const res = await fetch(`${e.url}/pipelines`, { method: 'DELETE', headers: { Authorization: e.token } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, POST');
    expect(res.headers.get('content-type')).toBe('application/problem+json');
  });

  it('takes only application/json bodies', async () => {
    const e = await engine();
    await journalAgent(e, 'a');
    const path = '/pipelines/a/agents/src/config/credentials';
    for (const type of ['application/merge-patch+json', 'text/plain', 'application/x-www-form-urlencoded'])
      expect((await put(e, path, journalCredentials('ibmi.example'), type)).status).toBe(415);
    expect(
      (await put(e, path, journalCredentials('ibmi.example'), 'application/json; charset=utf-8')).status,
    ).toBe(200);
  });

  it("answers Node's own errors as problem+json: 400 for a malformed request, 431 for huge headers", async () => {
    const e = await engine();
    const malformed = await raw(e.url, 'GET /pipelines HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
    expect(malformed).toMatch(/^HTTP\/1\.1 400 /);
    expect(malformed).toContain('Content-Type: application/problem+json');
    expect(JSON.parse(malformed.split('\r\n\r\n')[1] ?? '')).toMatchObject({
      status: 400,
      title: 'Malformed request',
    });

    const huge = await raw(
      e.url,
      `GET /pipelines HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(huge).toMatch(/^HTTP\/1\.1 431 /);
    expect(JSON.parse(huge.split('\r\n\r\n')[1] ?? '')).toMatchObject({ status: 431 });
  });

  it('cuts off a client that sends its headers slowly, with a 408', async () => {
    const e = await engine({ limits: { headersTimeoutMs: 600, requestTimeoutMs: 1_000 } });
    // Headers never finished: the server answers and closes once the limit passes.
    const answer = await raw(e.url, 'GET /pipelines HTTP/1.1\r\nHost: x\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain('application/problem+json');
  });

  it('keeps the shipped limits tight: headers within 10 s, a whole request within 30 s', () => {
    expect(DEFAULT_LIMITS.headersTimeoutMs).toBeLessThanOrEqual(10_000);
    expect(DEFAULT_LIMITS.requestTimeoutMs).toBeLessThanOrEqual(30_000);
  });
});

describe('secrets in driver messages', () => {
  it('hides a short password only where it stands alone, so messages stay readable', () => {
    expect(redactSecret('Table ab not found for user ab.', 'ab')).toBe(
      'Table ******** not found for user ********.',
    );
    expect(redactSecret('The table was dropped.', 'ab')).toBe('The table was dropped.');
    expect(redactSecret('login failed for xSandbox-1y', 'Sandbox-1')).toBe('login failed for x********y');
  });

  it('leaves an ODBC message readable when the password is short', () => {
    const error = Object.assign(new Error('driver'), {
      odbcErrors: [
        {
          state: '42S02',
          message: '[IBM][System i Access ODBC Driver]SQL0204 - JOURNALSCP in SYNC type *FILE not found.',
        },
      ],
    });
    expect(mapOdbcError(error, 'NOT').message).toContain('JOURNALSCP in SYNC type *FILE not found.');
    expect(mapOdbcError(error, 'in').message).toContain('JOURNALSCP ******** SYNC type *FILE not found.');
  });
});
