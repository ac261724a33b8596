// An engine beyond loopback speaks HTTPS; the app pins its certificate on first use, sends nothing to
// an engine presenting another one, says so with both fingerprints, and pins anew once told to.
import { mkdtempSync } from 'node:fs';
import { createServer as createTlsServer, type Server } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ownCertificate } from '../../../main/app/engineCertificate';
import { callApp, startTestApp } from '../../helpers/app';
import { startTestEngine, type RunningEngine } from '../../helpers/engine';
import { until } from '../../helpers/until';
import { createEngineClient } from '../../../main/client/engineClient';
import type { FleetEngine } from '../../../shared/push';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const call = callApp;

/** A certificate of an engine's own, as `npm run engine -- --host <address>` makes it. */
const certificate = () => ownCertificate(mkdtempSync(join(tmpdir(), 'cdc-tls-')), '127.0.0.1');

describe('HTTPS to a remote engine', () => {
  it('watches the engine live through its event stream, over the pinned certificate', async () => {
    const tls = await certificate();
    const e: RunningEngine = await startTestEngine({ tls });
    closers.push(() => e.stop());
    const pinned = createEngineClient({
      baseUrl: e.url,
      token: e.token,
      pinnedCertificate: tls.fingerprint256,
    });
    const a = await startTestApp();
    closers.push(() => a.close());
    await call(a, 'saveEngineProfile', { id: 'remote', name: 'Remote', baseUrl: e.url, token: e.token });
    const remote = async () =>
      ((await call(a, 'getFleet')) as FleetEngine[]).find((engine) => engine.profileId === 'remote');
    await until('the engine live', async () => (await remote())?.connection === 'live');
    // A pipeline made there arrives through the stream (which says pipelines changed).
    await pinned.createPipeline({}, { id: 'over-tls', name: 'Over TLS' });
    await until('the pipeline pushed', async () =>
      Boolean((await remote())?.pipelines.some((p) => p.id === 'over-tls')),
    );
    expect((await remote())?.connection).toBe('live');
  });

  it('pins the certificate on first use, then refuses another one without sending the token', async () => {
    const first = await certificate();
    const e: RunningEngine = await startTestEngine({ tls: first });
    closers.push(() => e.stop());
    expect(e.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const a = await startTestApp();
    closers.push(() => a.close());
    await call(a, 'saveEngineProfile', { id: 'remote', name: 'Remote', baseUrl: e.url, token: e.token });

    const checked = (await call(a, 'checkEngine', { id: 'remote' })) as { ok: boolean; message: string };
    expect(checked).toEqual({
      ok: true,
      message: expect.stringContaining(
        `Its certificate is pinned from now on (SHA-256 ${first.fingerprint256})`,
      ),
    });
    const [profile] = (
      (await call(a, 'listEngineProfiles')) as { id: string; certificateFingerprint: string }[]
    ).filter((p) => p.id === 'remote');
    expect(profile?.certificateFingerprint).toBe(first.fingerprint256);
    expect(await call(a, 'checkEngine', { id: 'remote' })).toMatchObject({ ok: true });

    // Another server at the same address with another certificate: it must receive nothing at all.
    const port = Number(new URL(e.url).port);
    await e.server.close();
    const second = await certificate();
    const received: Buffer[] = [];
    const impostor: Server = createTlsServer({ cert: second.cert, key: second.key }, (socket) =>
      socket.on('data', (d: Buffer) => received.push(d)),
    );
    await new Promise<void>((resolve) => impostor.listen(port, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => impostor.close(() => resolve())));

    const refused = (await call(a, 'checkEngine', { id: 'remote' })) as { ok: boolean; message: string };
    expect(refused.ok).toBe(false);
    expect(refused.message).toContain(`pinned ${first.fingerprint256}, presented ${second.fingerprint256}`);
    expect(refused.message).toContain('Nothing was sent.');
    expect(Buffer.concat(received).length).toBe(0);
    await expect(call(a, 'listEngineAgents', { profileId: 'remote' })).rejects.toThrow(
      "The engine's certificate changed",
    );
    expect(Buffer.concat(received).length).toBe(0);

    // Told to forget it, the app pins what the engine presents next.
    await call(a, 'saveEngineProfile', {
      id: 'remote',
      name: 'Remote',
      baseUrl: e.url,
      forgetCertificate: true,
    });
    const again = (
      (await call(a, 'listEngineProfiles')) as { id: string; certificateFingerprint: string | null }[]
    ).find((p) => p.id === 'remote');
    expect(again?.certificateFingerprint).toBeNull();
  });

  it('keeps the engine its certificate across starts', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cdc-tls-'));
    const made = await ownCertificate(dataDir, '0.0.0.0');
    const reused = await ownCertificate(dataDir, '0.0.0.0');
    expect(made.made).toBe(true);
    expect(reused).toMatchObject({ made: false, fingerprint256: made.fingerprint256 });
  });
});
