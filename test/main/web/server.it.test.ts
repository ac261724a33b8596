// Web mode's HTTP bridge, over real HTTP on loopback.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchedLog } from '../../setup/secretNotes';
import type { AppServices } from '../../../main/app/services';
import { startTestApp } from '../../helpers/app';
import { MAX_BODY_BYTES, startWebServer, type WebServer } from '../../../main/web/server';
import { readEventStream, streamChunks } from '../../../shared/eventStream';
import { PUSH_EVENT, pushMessageSchema, type PushMessage } from '../../../shared/push';
import { until } from '../../helpers/until';

let server: WebServer;
let app: AppServices;
const root = mkdtempSync(join(tmpdir(), 'cdc-web-'));

beforeAll(async () => {
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>app</title>');
  writeFileSync(join(root, 'app.js'), 'console.log(1)');
  app = await startTestApp();
  server = await startWebServer({
    dispatch: app.dispatch,
    log: watchedLog,
    staticRoot: root,
    subscribe: app.deps.fleet.subscribe,
  });
});
afterAll(async () => {
  await server.close();
  await app.close();
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}
function call(
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
) {
  return new Promise<Answer>((resolve, reject) => {
    const req = request(
      server.url + path,
      { method: options.method ?? 'GET', headers: options.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}
const api = (method: string, body: unknown, headers: Record<string, string> = {}) =>
  call(`/api/${method}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${server.token}`, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('web bridge', () => {
  it('listens on loopback and prints a URL carrying a one-time code, not the token, in the fragment', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.openUrl).toMatch(new RegExp(`^${server.url}/#code=[A-Za-z0-9_-]{43}$`));
    expect(server.openUrl).not.toContain(server.token);
    expect(server.openUrl).not.toBe(server.openUrl);
    expect(server.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('exchanges a launch code for the token once; a second use is refused', async () => {
    const code = new URL(server.openUrl).hash.slice('#code='.length);
    const exchange = () =>
      call('/session', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ code }),
      });
    const first = await exchange();
    expect(first.status).toBe(200);
    expect(JSON.parse(first.body)).toEqual({ ok: true, value: { token: server.token } });
    const second = await exchange();
    expect(second.status).toBe(401);
    expect(second.body).toContain('This launch link was used already');
    expect(second.body).not.toContain(server.token);
    expect(
      (
        await call('/session', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: '{"code":"guess"}',
        })
      ).status,
    ).toBe(401);
  });

  it('answers a contract call with the envelope', async () => {
    const answer = await api('getAppInfo', {});
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({
      ok: true,
      value: { mode: 'web', version: '0.0.0-test' },
    });
  });

  it('accepts the bare token as well as Bearer', async () => {
    expect((await api('listAgentTypes', {}, { Authorization: server.token })).status).toBe(200);
  });

  it('refuses calls without the per-launch token', async () => {
    for (const auth of [undefined, 'Bearer wrong', `Bearer ${server.token}x`, '']) {
      const headers: Record<string, string> = { 'Content-Type': 'application/json' };
      if (auth !== undefined) headers.Authorization = auth;
      const answer = await call('/api/listAgentTypes', { method: 'POST', headers, body: '{}' });
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.body)).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
    }
  });

  it('gives the right status for each kind of bad request', async () => {
    expect((await api('getAppInfo', '{not json')).status).toBe(400);
    expect((await api('getAppInfo', {}, { 'Content-Type': 'text/plain' })).status).toBe(415);
    expect((await api('noSuchMethod', {})).status).toBe(404);
    expect((await api('getAppInfo', '{"x":"' + 'a'.repeat(MAX_BODY_BYTES) + '"}')).status).toBe(413);
    expect((await call('/api/getAppInfo', { headers: { Authorization: server.token } })).status).toBe(405);
    const invalid = await api('getAppInfo', { extra: 1 });
    expect(JSON.parse(invalid.body)).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
  });

  it('refuses a body naming a member twice, saying which and where', async () => {
    const answer = await api('getAppInfo', '{"a":{"connectionName":"x","connectionName":"y"}}');
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining('"connectionName" appears twice in the object at /a') },
    });
  });

  it('refuses a foreign Host header (DNS rebinding)', async () => {
    const answer = await call('/', { headers: { Host: 'evil.example:80' } });
    expect(answer.status).toBe(421);
  });

  it('serves the renderer with the CSP and falls back to index.html', async () => {
    const index = await call('/');
    expect(index.status).toBe(200);
    expect(index.headers['content-security-policy']).toContain("script-src 'self'");
    expect(index.headers['x-content-type-options']).toBe('nosniff');
    expect((await call('/app.js')).headers['content-type']).toMatch(/^text\/javascript/);
    expect((await call('/wizard/journal')).body).toContain('<title>app</title>');
  });

  it('never serves a file outside the renderer folder', async () => {
    writeFileSync(join(root, '..', 'cdc-outside.txt'), 'outside-secret');
    for (const path of [
      '/../cdc-outside.txt',
      '/%2e%2e/cdc-outside.txt',
      '/..%2fcdc-outside.txt',
      '/%E0%A4%A',
    ]) {
      const answer = await call(path);
      expect(answer.body).not.toContain('outside-secret');
    }
  });
});

describe('the push stream', () => {
  it('needs the launch token, then streams the pushes of main as server-sent events', async () => {
    const refused = await fetch(`${server.url}/api/push`);
    expect(refused.status).toBe(401);
    const posted = await fetch(`${server.url}/api/push`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${server.token}` },
    });
    expect(posted.status).toBe(405);

    const controller = new AbortController();
    const res = await fetch(`${server.url}/api/push`, {
      headers: { Authorization: `Bearer ${server.token}` },
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBeNull();
    const messages: PushMessage[] = [];
    const reading = (async () => {
      for await (const { event, data } of readEventStream(
        streamChunks(res.body as ReadableStream<Uint8Array>),
      ))
        if (event === PUSH_EVENT) messages.push(pushMessageSchema.parse(JSON.parse(data)));
    })().catch(() => undefined);
    // A profile saved is watched, and its engine pushed.
    await app.deps.profiles.save({
      id: 'elsewhere',
      name: 'Elsewhere',
      baseUrl: 'http://127.0.0.1:9',
      token: 'x-token',
    });
    await until('the new engine pushed', () =>
      messages.some((m) => m.type === 'engine' && m.engine.profileId === 'elsewhere'),
    );
    controller.abort();
    await reading;
  });
});
