// Every control API route and every web-mode method refuses a request without a valid token, and
// changes nothing when it refuses; a rotated token stops working at once.
import { mkdirSync, mkdtempSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHOD_NAMES } from '../../../shared/api';
import { fillPath, routes } from '../../../shared/controlApiRoutes';
import { watchedLog } from '../../setup/secretNotes';
import { startWebServer, type WebServer } from '../../../main/web/server';
import { startTestApp } from '../../helpers/app';
import { startTestEngine, type RunningEngine } from '../../helpers/engine';
import { STORE_FILE } from '../../../main/engine/engine';

const WRONG = [undefined, 'Bearer nope', 'Bearer ', 'Basic Zm9vOmJhcg=='];
const params = { pipelineId: 'p1', agentId: 'a1', type: 'journal', checkId: 'journaling' };

describe('the control API', () => {
  let e: RunningEngine;
  beforeAll(async () => {
    e = await startTestEngine();
    await e.client.createPipeline({}, { id: 'p1', name: 'kept' });
  });
  afterAll(() => e?.stop());

  it.each(Object.entries(routes))(
    '%s refuses without a valid token (401) and changes nothing',
    async (_id, route) => {
      for (const auth of [...WRONG, `Bearer ${e.token}x`]) {
        const res = await fetch(e.url + fillPath(route.path, params), {
          method: route.method,
          headers: { 'Content-Type': 'application/json', ...(auth !== undefined && { Authorization: auth }) },
          ...(route.method !== 'GET' && { body: JSON.stringify({ id: 'p2', name: 'never' }) }),
        });
        expect(res.status).toBe(401);
      }
      expect((await e.client.listPipelines({})).map((p) => [p.id, p.name])).toEqual([['p1', 'kept']]);
    },
  );

  it('a rotated token is refused at once, on every route', async () => {
    const old = e.token;
    await e.client.rotateToken({});
    for (const route of Object.values(routes)) {
      const res = await fetch(e.url + fillPath(route.path, params), {
        method: route.method,
        headers: { Authorization: `Bearer ${old}`, 'Content-Type': 'application/json' },
        ...(route.method !== 'GET' && { body: '{}' }),
      });
      expect(res.status).toBe(401);
    }
  });
});

/** A GET with the Host header given, as a page that rebound its DNS name to 127.0.0.1 would send it. */
function getWithHost(url: string, host: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/pipelines`,
      { headers: { Host: host, Authorization: `Bearer ${token}` } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('the engine, as defence in depth', () => {
  it('refuses a foreign Host header (421) and takes its loopback names', async () => {
    const e = await startTestEngine();
    try {
      const port = new URL(e.url).port;
      expect(await getWithHost(e.url, 'evil.example', e.token)).toBe(421);
      expect(await getWithHost(e.url, `evil.example:${port}`, e.token)).toBe(421);
      expect(await getWithHost(e.url, `127.0.0.1:${Number(port) + 1}`, e.token)).toBe(421);
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`])
        expect(await getWithHost(e.url, host, e.token)).toBe(200);
    } finally {
      await e.stop();
    }
  });

  it('keeps its store and WAL readable by its user alone, also in a folder that already existed', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cdc-mode-'));
    mkdirSync(dataDir, { recursive: true, mode: 0o755 });
    const previous = process.umask(0o022);
    try {
      const e = await startTestEngine({ dataDir });
      await e.client.createPipeline({}, { id: 'p1', name: 'written' });
      for (const suffix of ['', '-wal', '-shm'])
        expect((statSync(join(dataDir, STORE_FILE + suffix)).mode & 0o777).toString(8), suffix).toBe('600');
      await e.stop();
    } finally {
      process.umask(previous);
    }
  });
});

describe('web mode', () => {
  let server: WebServer;
  let app: Awaited<ReturnType<typeof startTestApp>>;
  beforeAll(async () => {
    app = await startTestApp();
    server = await startWebServer({
      dispatch: app.dispatch,
      log: watchedLog,
      staticRoot: mkdtempSync(join(tmpdir(), 'cdc-auth-')),
    });
  });
  afterAll(async () => {
    await server.close();
    await app.close();
  });

  it.each(METHOD_NAMES)('%s needs the per-launch token', async (method) => {
    for (const auth of [...WRONG, `Bearer ${server.token}x`]) {
      const res = await fetch(`${server.url}/api/${method}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(auth !== undefined && { Authorization: auth }) },
        body: '{}',
      });
      expect(res.status).toBe(401);
    }
  });
});
