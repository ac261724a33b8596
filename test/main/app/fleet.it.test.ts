// The app watching every engine at once, as the renderer receives it: the local engine and a remote one
// live, a profile whose engine does not answer shown as unreachable without holding up the others, a
// pipeline failing on the remote engine pushed as its status and as an alert in words, a profile
// deleted pushed as gone, an engine that answered and then went silent told once (one never reached,
// never), and the user's alert settings kept across a restart.
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../../simulators/mssql';
import { alertSettingsSchema, type Alert, type FleetEngine, type PushMessage } from '../../../shared/push';
import { createFleet } from '../../../main/app/fleet';
import type { Profile } from '../../../main/app/profiles';
import { callApp, startTestApp } from '../../helpers/app';
import { configureSeedPipeline } from '../../helpers/changeTracking';
import { startTestEngine, type RunningEngine } from '../../helpers/engine';
import { until } from '../../helpers/until';
import { freePort } from '../../helpers/ports';

let sandbox: SandboxSqlServer;
let remote: RunningEngine;
let app: Awaited<ReturnType<typeof startTestApp>>;
let deadUrl: string;
const pushed: PushMessage[] = [];

/** A loopback port nothing listens on. */

beforeAll(async () => {
  sandbox = await startSandboxSqlServer({ seed: true });
  remote = await startTestEngine();
  app = await startTestApp();
  app.deps.fleet.subscribe((m) => pushed.push(m));
  deadUrl = `http://127.0.0.1:${await freePort()}`;
});
afterAll(async () => {
  await app?.close();
  await remote?.stop();
  await sandbox?.close();
});

const engines = async () => (await callApp(app, 'getFleet')) as FleetEngine[];

describe('the fleet', () => {
  it('watches every engine; one that does not answer is shown as such, the others live', async () => {
    await callApp(app, 'saveEngineProfile', {
      id: 'remote',
      name: 'Remote',
      baseUrl: remote.url,
      token: remote.token,
    });
    await callApp(app, 'saveEngineProfile', { id: 'gone', name: 'Gone', baseUrl: deadUrl, token: 'x' });
    await until('both answering engines live, the dead one unreachable', async () => {
      const all = await engines();
      const by = (id: string) => all.find((e) => e.profileId === id);
      return (
        by('local')?.connection === 'live' &&
        by('remote')?.connection === 'live' &&
        by('gone')?.connection === 'unreachable'
      );
    });
    const gone = (await engines()).find((e) => e.profileId === 'gone');
    expect(gone?.problem).toBe(`Cannot reach the engine at ${deadUrl}.`);
    expect(gone?.name).toBe('Gone');
  });

  it('pushes a remote pipeline as it fails, with an alert that names it', async () => {
    const ids = { pipelineId: 'orders', agentId: 'sales' };
    await configureSeedPipeline(remote.client, sandbox, ids, ['NoSuchTable']);
    await until('the new pipeline in the picture', async () =>
      (await engines()).some((e) => e.profileId === 'remote' && e.pipelines.some((p) => p.id === 'orders')),
    );
    await remote.client.startAgent(ids);
    await until('the alert pushed', () => pushed.some((m) => m.type === 'alert'));
    const alert = pushed.find((m) => m.type === 'alert');
    expect(alert).toMatchObject({
      alert: {
        profileId: 'remote',
        pipelineId: 'orders',
        agentId: 'sales',
        kind: 'failed',
        title: 'orders failed',
      },
    });
    expect(alert?.type === 'alert' && alert.alert.body).toMatch(/NoSuchTable.*\(on Remote\)$/s);
    expect(
      pushed.some(
        (m) =>
          m.type === 'status' &&
          m.profileId === 'remote' &&
          m.pipelineId === 'orders' &&
          m.status.state === 'failed',
      ),
    ).toBe(true);
    expect(
      pushed.some((m) => m.type === 'event' && m.profileId === 'remote' && m.event.kind === 'failed'),
    ).toBe(true);
    const picture = (await engines()).find((e) => e.profileId === 'remote');
    expect(picture?.pipelines.find((p) => p.id === 'orders')?.agents[0]?.status.state).toBe('failed');
  });

  it('reads an engine without the event stream every few seconds instead', async () => {
    // An engine from before the stream: the same API, but 404 for /events/stream and /overview.
    const older = createHttpServer((req, res) => {
      const path = req.url ?? '/';
      if (path === '/events/stream' || path === '/overview') return void res.writeHead(404).end();
      void fetch(remote.url + path, { headers: { authorization: req.headers.authorization ?? '' } })
        .then(
          async (answer) => {
            res.writeHead(answer.status, {
              'Content-Type': answer.headers.get('content-type') ?? 'text/plain',
            });
            res.end(Buffer.from(await answer.arrayBuffer()));
          },
          // The engine gone mid-answer (the test closing): this side is cut too.
        )
        .catch(() => res.destroy());
    });
    await new Promise<void>((resolve) => older.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(older.address() as AddressInfo).port}`;
      await callApp(app, 'saveEngineProfile', {
        id: 'older',
        name: 'Older',
        baseUrl: url,
        token: remote.token,
      });
      await until('the older engine read by polling', async () => {
        const older = (await engines()).find((e) => e.profileId === 'older');
        return older?.connection === 'polling' && older.pipelines.some((p) => p.id === 'orders');
      });
      const orders = (await engines())
        .find((e) => e.profileId === 'older')
        ?.pipelines.find((p) => p.id === 'orders');
      expect(orders?.agents[0]?.status).toMatchObject({
        state: 'failed',
        lagSeconds: null,
        changesPerSecond: null,
      });
      // A pipeline added there shows at the next reading.
      await remote.client.createPipeline({}, { id: 'later', name: 'Added later' });
      await until(
        'the new pipeline read',
        async () =>
          (await engines()).find((e) => e.profileId === 'older')?.pipelines.some((p) => p.id === 'later') ??
          false,
        15_000,
      );
      await callApp(app, 'deleteEngineProfile', { id: 'older' });
    } finally {
      older.closeAllConnections();
      await new Promise<void>((resolve) => older.close(() => resolve()));
    }
  });

  it('reads an engine whole once per burst of changes, not once per change', async () => {
    // A counting pass-through in front of the remote engine, streams included.
    let overviews = 0;
    const counting = createHttpServer((req, res) => {
      const path = req.url ?? '/';
      if (path === '/overview') overviews += 1;
      const controller = new AbortController();
      res.on('close', () => controller.abort());
      fetch(remote.url + path, {
        headers: { authorization: req.headers.authorization ?? '' },
        signal: controller.signal,
      }).then(
        (answer) => {
          res.writeHead(answer.status, {
            'Content-Type': answer.headers.get('content-type') ?? 'text/plain',
          });
          // The engine's side ending mid-stream (the test closing) ends this side too, not the run.
          if (answer.body)
            pipeline(
              Readable.fromWeb(answer.body as Parameters<typeof Readable.fromWeb>[0]),
              res,
              () => undefined,
            );
          else res.end();
        },
        () => res.destroy(),
      );
    });
    await new Promise<void>((resolve) => counting.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(counting.address() as AddressInfo).port}`;
      await callApp(app, 'saveEngineProfile', {
        id: 'counted',
        name: 'Counted',
        baseUrl: url,
        token: remote.token,
      });
      const counted = async () => (await engines()).find((e) => e.profileId === 'counted');
      await until('watched live', async () => (await counted())?.connection === 'live');
      const before = overviews;
      // Twenty pipelines with an agent each: forty "pipelines changed" messages.
      await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          await remote.client.createPipeline({}, { id: `burst-${i}`, name: `Burst ${i}` });
          await remote.client.createAgent(
            { pipelineId: `burst-${i}` },
            { id: 'src', type: 'change-tracking', role: 'source' },
          );
        }),
      );
      await until(
        'all twenty read',
        async () =>
          (await counted())?.pipelines.filter((p) => p.id.startsWith('burst-') && p.agents.length === 1)
            .length === 20,
      );
      expect(overviews - before).toBeLessThan(20);
      await callApp(app, 'deleteEngineProfile', { id: 'counted' });
    } finally {
      counting.closeAllConnections();
      await new Promise<void>((resolve) => counting.close(() => resolve()));
    }
  });

  it('tells an engine that answered and then went silent, once, and never one that never answered', async () => {
    const plant = await startTestEngine();
    const mill = await startTestEngine();
    const profile = (id: string, name: string, engine: { url: string; token: string }): Profile => ({
      id,
      name,
      baseUrl: engine.url,
      tokenSet: true,
      local: false,
      certificateFingerprint: null,
    });
    const tokens = new Map([
      ['plant', plant.token],
      ['mill', mill.token],
    ]);
    const profiles = [
      profile('plant', 'Plant 4', plant),
      profile('never', 'Never', { url: deadUrl, token: 'x' }),
    ];
    let settings = alertSettingsSchema.parse({});
    const fleet = createFleet({
      profiles: () => profiles,
      access: (p) => Promise.resolve({ baseUrl: p.baseUrl, token: tokens.get(p.id) ?? 'x' }),
      settings: () => settings,
      now: () => new Date(),
      silenceMs: 100,
      reconnectDelaysMs: [20],
    });
    const alerts: Alert[] = [];
    // Each failed reconnect pushes the engine's picture again, unreachable: counted per engine.
    const failedReconnects = new Map<string, number>();
    fleet.subscribe((m) => {
      if (m.type === 'alert') alerts.push(m.alert);
      if (m.type === 'engine' && m.engine.connection === 'unreachable')
        failedReconnects.set(m.engine.profileId, (failedReconnects.get(m.engine.profileId) ?? 0) + 1);
    });
    /** Resolves once three more reconnects of the engine failed, the last past the silence period. */
    const reconnectsFailed = async (id: string, ms: number) => {
      const from = failedReconnects.get(id) ?? 0;
      const started = Date.now();
      await until(`${id}: reconnects failing for ${ms} ms`, () => {
        return (failedReconnects.get(id) ?? 0) - from >= 3 && Date.now() - started > ms;
      });
    };
    const state = (id: string) => fleet.engines().find((e) => e.profileId === id)?.connection;
    try {
      fleet.sync();
      await until(
        'Plant 4 live and Never unreachable',
        () => state('plant') === 'live' && state('never') === 'unreachable',
      );
      await plant.stop();
      await until('Plant 4 unreachable', () => state('plant') === 'unreachable');
      await until('the alert', () => alerts.length > 0);
      expect(alerts[0]).toMatchObject({
        profileId: 'plant',
        pipelineId: null,
        agentId: null,
        kind: 'unreachable',
        title: 'Plant 4 is not answering',
      });
      expect(alerts[0]?.body).toMatch(
        /^Cannot reach the engine at .*\. Not answering for 0 s: its pipelines' states are not known until it answers again\.$/,
      );
      // Silent on: told once, not at each failed reconnect; the engine never reached is never told.
      await reconnectsFailed('plant', 100);
      expect(alerts).toHaveLength(1);

      // Turned off, another engine's silence is not told.
      settings = alertSettingsSchema.parse({ unreachable: false });
      profiles.push(profile('mill', 'Mill', mill));
      fleet.sync();
      await until('Mill live', () => state('mill') === 'live');
      await mill.stop();
      await until('Mill unreachable', () => state('mill') === 'unreachable');
      await reconnectsFailed('mill', 100);
      expect(alerts).toHaveLength(1);
    } finally {
      fleet.close();
    }
  });

  it('pushes a deleted profile as gone', async () => {
    await callApp(app, 'deleteEngineProfile', { id: 'gone' });
    await until('the removal pushed', () =>
      pushed.some((m) => m.type === 'engine-removed' && m.profileId === 'gone'),
    );
    expect((await engines()).map((e) => e.profileId).sort()).toEqual(['local', 'remote']);
  });

  it('keeps the alert settings, checked by their schema, across a restart', async () => {
    expect(await callApp(app, 'getAlertSettings')).toEqual({
      failed: true,
      stopped: true,
      suspended: true,
      atRisk: true,
      schemaChanges: true,
      unreachable: true,
      lagSeconds: 300,
      backlogRows: 100_000,
    });
    const mine = {
      failed: true,
      stopped: false,
      suspended: false,
      atRisk: false,
      schemaChanges: false,
      unreachable: false,
      lagSeconds: 60,
      backlogRows: null,
    };
    expect(await callApp(app, 'saveAlertSettings', mine)).toEqual(mine);
    await expect(callApp(app, 'saveAlertSettings', { ...mine, lagSeconds: 0 })).rejects.toThrow(/lagSeconds/);
    await app.close();
    app = await startTestApp(app.dataDir);
    expect(await callApp(app, 'getAlertSettings')).toEqual(mine);
  });
});
