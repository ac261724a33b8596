// The app's engine profiles and its own local engine, through the contract the renderer uses.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { callApp, startTestApp } from '../../helpers/app';
import { startTestEngine, type RunningEngine } from '../../helpers/engine';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((x) => x.close()));
});
async function app(dataDir?: string) {
  const a = await startTestApp(dataDir);
  open.push(a);
  return a;
}
async function remote(): Promise<RunningEngine> {
  const e = await startTestEngine();
  open.push({ close: e.stop });
  return e;
}
const call = callApp;

describe('the local engine', () => {
  it('starts with the app, and its first token is shown once', async () => {
    const a = await app();
    const first = (await call(a, 'getLocalEngine')) as {
      url: string;
      running: boolean;
      tokenToShow: string | null;
    };
    expect(first.running).toBe(true);
    expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(first.tokenToShow).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(((await call(a, 'getLocalEngine')) as { tokenToShow: string | null }).tokenToShow).toBeNull();

    // The app talks to its engine with that token, through the same client as any engine.
    expect(await call(a, 'checkEngine', { id: 'local' })).toEqual({
      ok: true,
      message: `Connected to ${first.url}: 0 pipeline(s).`,
    });
    const res = await fetch(`${first.url}/pipelines`, {
      headers: { Authorization: `Bearer ${first.tokenToShow}` },
    });
    expect(res.status).toBe(200);
  });

  it('keeps working across a restart without showing the token again', async () => {
    const a = await app();
    await call(a, 'getLocalEngine');
    await a.close();
    open.splice(open.indexOf(a), 1);
    const again = await app(a.dataDir);
    expect(((await call(again, 'getLocalEngine')) as { tokenToShow: string | null }).tokenToShow).toBeNull();
    expect(await call(again, 'checkEngine', { id: 'local' })).toMatchObject({ ok: true });
  });

  it('rotates its token: the new one is answered, the old one stops working', async () => {
    const a = await app();
    const { url, tokenToShow: old } = (await call(a, 'getLocalEngine')) as {
      url: string;
      tokenToShow: string;
    };
    const { token } = (await call(a, 'rotateLocalEngineToken')) as { token: string };
    expect(token).not.toBe(old);
    expect((await fetch(`${url}/pipelines`, { headers: { Authorization: `Bearer ${old}` } })).status).toBe(
      401,
    );
    expect(await call(a, 'checkEngine', { id: 'local' })).toMatchObject({ ok: true });
  });

  it('says why when its port is taken', async () => {
    const blocker = await remote();
    const port = Number(new URL(blocker.url).port);
    const { startAppServices } = await import('../../../main/app/services');
    const { watchedLog } = await import('../../setup/secretNotes');
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const a = await startAppServices({
      mode: 'web',
      appVersion: 't',
      dataDir: mkdtempSync(join(tmpdir(), 'cdc-app-')),
      log: watchedLog,
      enginePort: port,
    });
    open.push(a);
    expect(await call(a, 'getLocalEngine')).toMatchObject({
      running: false,
      url: null,
      reason: expect.stringContaining(`Port ${port} is in use`),
    });
  });
});

describe('engine profiles', () => {
  it('reach a remote engine with its token, and say plainly when the token is wrong or the engine is gone', async () => {
    const a = await app();
    const r = await remote();
    const saved = await call(a, 'saveEngineProfile', {
      id: 'staging',
      name: 'Staging',
      baseUrl: r.url,
      token: r.token,
    });
    expect(saved).toEqual({
      id: 'staging',
      name: 'Staging',
      baseUrl: r.url,
      tokenSet: true,
      local: false,
      certificateFingerprint: null,
    });
    expect(await call(a, 'checkEngine', { id: 'staging' })).toEqual({
      ok: true,
      message: `Connected to ${r.url}: 0 pipeline(s).`,
    });

    await call(a, 'saveEngineProfile', {
      id: 'staging',
      name: 'Staging',
      baseUrl: r.url,
      token: 'wrong-token',
    });
    expect(await call(a, 'checkEngine', { id: 'staging' })).toEqual({
      ok: false,
      message: expect.stringContaining('refused the token'),
    });

    // A save without a token keeps the stored one.
    await call(a, 'saveEngineProfile', { id: 'staging', name: 'Staging 2', baseUrl: r.url });
    expect(await call(a, 'checkEngine', { id: 'staging' })).toMatchObject({ ok: false });

    await r.stop();
    open.splice(
      open.findIndex((x) => x.close === r.stop),
      1,
    );
    await call(a, 'saveEngineProfile', { id: 'staging', name: 'Staging', baseUrl: r.url, token: r.token });
    expect(await call(a, 'checkEngine', { id: 'staging' })).toEqual({
      ok: false,
      message: `Cannot reach the engine at ${r.url}.`,
    });
  });

  it('keep tokens sealed on disk, in a file only the owner can read', async () => {
    const a = await app();
    await call(a, 'saveEngineProfile', {
      id: 'prod',
      name: 'Prod',
      baseUrl: 'https://engine.example.com',
      token: 'tok-PLAINTEXT-42',
    });
    const file = join(a.dataDir, 'profiles.json');
    expect(readFileSync(file, 'utf8')).not.toContain('tok-PLAINTEXT-42');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const listed = await call(a, 'listEngineProfiles');
    expect(JSON.stringify(listed)).not.toContain('tok-PLAINTEXT-42');
    expect((listed as { id: string }[]).map((p) => p.id)).toEqual(['local', 'prod']);
  });

  it('refuse addresses with credentials, other schemes, and touching the local profile', async () => {
    const a = await app();
    for (const baseUrl of ['http://user:pw@engine:1717', 'ftp://engine', 'engine:1717']) {
      const answer = await a.dispatch('saveEngineProfile', { id: 'x', name: 'X', baseUrl });
      expect(answer).toMatchObject({
        ok: false,
        error: { code: 'invalid_input', message: expect.stringContaining('/baseUrl') },
      });
      expect(JSON.stringify(answer)).not.toContain('pw@');
    }
    expect(await a.dispatch('deleteEngineProfile', { id: 'local' })).toMatchObject({
      ok: false,
      error: { message: 'The local engine profile cannot be deleted.' },
    });
    expect(
      await a.dispatch('saveEngineProfile', { id: 'local', name: 'Mine', baseUrl: 'http://127.0.0.1:1' }),
    ).toMatchObject({ ok: false });
    expect(await call(a, 'deleteEngineProfile', { id: 'nope' })).toEqual({ deleted: false });
  });
});
