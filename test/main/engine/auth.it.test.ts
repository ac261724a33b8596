// Every control API route and every web-mode method refuses a request without a valid token, and
// changes nothing when it refuses; a rotated token stops working at once.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHOD_NAMES } from '../../../shared/api';
import { fillPath, routes } from '../../../shared/controlApiRoutes';
import { watchedLog } from '../../setup/secretNotes';
import { startWebServer, type WebServer } from '../../../main/web/server';
import { startTestApp } from '../../helpers/app';
import { startTestEngine, type RunningEngine } from '../../helpers/engine';

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
