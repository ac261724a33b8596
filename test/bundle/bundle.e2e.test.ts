// The desktop app as it ships: the built main bundle (package.json's "main") and preload, run under
// plain Node with a stand-in `electron` (./standIn), where every test before ran the TypeScript sources.
// Under real Electron the same bundle is launched by test/main/desktop/electron.e2e.test.ts where a binary exists.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { runInNewContext } from 'node:vm';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHOD_NAMES, PUSH_CHANNEL, type RawPush } from '../../shared/ipc';
import { bundleEntry, launchBundle, ROOT, type LaunchedBundle } from './launch';
import { until } from '../helpers/until';
import { createEngineClient } from '../../main/client/engineClient';
import { startSandboxSqlServer } from '../../simulators/mssql';
import { configureSeedPipeline } from '../helpers/changeTracking';
import { readStream } from '../helpers/debeziumConsumer';
import { natsServers } from '../helpers/natsServer';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';

describe('the built main bundle, started as Electron starts it', () => {
  let app: LaunchedBundle;
  beforeAll(async () => {
    app = await launchBundle();
  });
  afterAll(() => app?.kill());

  it('opens one window on app://bundle/ with the secure preferences and the shipped preload', () => {
    expect(app.ready.url).toBe('app://bundle/index.html');
    expect(app.ready.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      preload: join(dirname(bundleEntry()), 'preload.cjs'),
    });
    expect(app.ready.schemes).toEqual([
      { scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true } },
    ]);
  });

  it('serves the renderer over app:// with the CSP, and its script', async () => {
    const page = await app.fetch('app://bundle/index.html');
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    const script = /src="(?:\.?\/)?(assets\/[^"]+\.js)"/.exec(page.body)?.[1];
    expect(script).toBeDefined();
    const js = await app.fetch(`app://bundle/${script}`);
    expect(js.status).toBe(200);
    expect(js.body.length).toBeGreaterThan(10_000);
    // A path out of the renderer's folder gets the page, never the file.
    const outside = await app.fetch('app://bundle/%2e%2e/%2e%2e/package.json');
    expect(outside.body).not.toContain('"devDependencies"');
  });

  it('answers the contract over IPC to its own window only', async () => {
    expect(await app.call('getAppInfo')).toMatchObject({
      ok: true,
      value: { mode: 'electron', version: '9.9.9' },
    });
    expect(await app.untrusted('getAppInfo')).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
  });

  it('starts its local engine, which answers on the control API', async () => {
    const local = (await app.call('getLocalEngine')) as {
      ok: true;
      value: { url: string; running: boolean };
    };
    expect(local.value.running).toBe(true);
    expect(await app.call('checkEngine', { id: 'local' })).toMatchObject({ ok: true, value: { ok: true } });
    const unauthorised = await fetch(`${local.value.url}/pipelines`);
    expect(unauthorised.status).toBe(401);
  });

  it('pushes its local engine, watched live, to the window', async () => {
    await until('the local engine pushed live', async () =>
      (await app.pushes()).some(
        (p) =>
          p.channel === PUSH_CHANNEL &&
          p.message.type === 'engine' &&
          p.message.engine.profileId === 'local' &&
          p.message.engine.connection === 'live',
      ),
    );
  });

  it('tells a failure by a system notification, whose click opens the pipeline in the window', async () => {
    const sandbox = await startSandboxSqlServer({ seed: true });
    try {
      const local = (await app.call('getLocalEngine')) as { value: { url: string } };
      const { value } = (await app.call('rotateLocalEngineToken')) as { value: { token: string } };
      const engine = createEngineClient({ baseUrl: local.value.url, token: value.token });
      const ids = { pipelineId: 'night', agentId: 'sales' };
      await configureSeedPipeline(engine, sandbox, ids, ['NoSuchTable']);
      // Watched afresh after the rotation: the failure must come after the new watch read the engine.
      await until('the local engine live again', async () =>
        (await app.pushes()).some(
          (p) =>
            p.message.type === 'engine' &&
            p.message.engine.connection === 'live' &&
            p.message.engine.pipelines.some((x) => x.id === 'night'),
        ),
      );
      await engine.startAgent(ids);
      await until('the notification shown', async () => (await app.notifications()).length > 0);
      const [shown] = await app.notifications();
      expect(shown?.title).toBe('night failed');
      expect(shown?.body).toMatch(/NoSuchTable.*\(on Local engine\)$/s);
      await app.click(0);
      await until('the window told to open the pipeline', async () =>
        (await app.pushes()).some(
          (p) =>
            p.message.type === 'open-pipeline' &&
            p.message.pipelineId === 'night' &&
            p.message.agentId === 'sales',
        ),
      );
    } finally {
      await sandbox.close();
    }
  });

  it('loads the odbc package and reaches unixODBC for a journal agent', async () => {
    const answer = await app.call('testHostCredentials', {
      agentType: 'journal',
      hostCredentials: {
        connectionName: 'Production',
        host: 'ibmi.example',
        databaseName: 'PROD',
        username: 'CDCAGENT',
        password: 'not-used-1',
      },
    });
    // unixODBC's driver manager answered (it knows no IBM i driver here): the module loaded and ran.
    expect(answer).toMatchObject({
      ok: true,
      value: { status: 'failed', message: expect.stringContaining('unixODBC has no such driver') },
    });
  });

  it('loads the NATS client: signs on to JetStream and captures a pipeline into a stream', async () => {
    expect(
      await app.call('testHostCredentials', {
        agentType: 'nats-jetstream',
        hostCredentials: { connectionName: 'cluster', servers: natsServers() },
      }),
    ).toMatchObject({
      ok: true,
      value: { status: 'passed', message: expect.stringContaining('Connected to NATS') },
    });
    const sandbox = await startSandboxSqlServer({ seed: true });
    const stream = `BUNDLE_${process.pid}`;
    try {
      const local = (await app.call('getLocalEngine')) as { value: { url: string } };
      const { value } = (await app.call('rotateLocalEngineToken')) as { value: { token: string } };
      const engine = createEngineClient({ baseUrl: local.value.url, token: value.token });
      const ids = { pipelineId: 'streamed', agentId: 'sales' };
      await configureSeedPipeline(engine, sandbox, ids, ['Customers']);
      const target = { pipelineId: 'streamed', agentId: 'nats' };
      await engine.createAgent(
        { pipelineId: 'streamed' },
        { id: 'nats', type: 'nats-jetstream', role: 'target' },
      );
      await engine.putCredentials(target, {
        hostCredentials: { connectionName: 'nats', servers: natsServers() },
      });
      await engine.putSpecific(target, { configuration: { stream, subjectPrefix: `bundle${process.pid}` } });
      await engine.startAgent(ids);
      await until('the copy in the stream', async () =>
        // The stream is there once the pipeline started.
        (
          await readStream(natsServers(), stream, `bundle${process.pid}.Sales.dbo.Customers`).catch(() => [])
        ).some((e) => e.value?.op === 'r'),
      );
      await engine.stopAgent(ids);
    } finally {
      await sandbox.close();
      const nc = await connect({ servers: natsServers() });
      await (await jetstreamManager(nc)).streams.delete(stream).catch(() => undefined);
      await nc.close();
    }
  });

  it('starts the sandbox on request, from a chunk of its own', async () => {
    expect(await app.call('startSandbox')).toMatchObject({
      ok: true,
      value: { pipelineId: 'sandbox', ibmi: { pipelineId: 'sandbox-ibmi' } },
    });
    expect(
      await app.call('testEngineAgent', { profileId: 'local', pipelineId: 'sandbox-ibmi', agentId: 'as400' }),
    ).toMatchObject({
      ok: true,
      value: {
        checks: expect.arrayContaining([expect.objectContaining({ id: 'connection', status: 'passed' })]),
      },
    });
  });

  it('quits cleanly: the engine closes and the process exits 0', async () => {
    expect(await app.quit()).toBe(0);
    expect(app.output()).not.toMatch(/Error|TypeError|ReferenceError/);
  });
});

describe('the built preload', () => {
  it('exposes window.api with one function per contract method and nothing else', () => {
    const code = readFileSync(join(dirname(bundleEntry()), 'preload.cjs'), 'utf8');
    const exposed: Record<string, unknown> = {};
    const invoked: unknown[][] = [];
    const listeners = new Map<string, (event: unknown, message: unknown) => void>();
    const electron = {
      contextBridge: { exposeInMainWorld: (key: string, api: unknown) => (exposed[key] = api) },
      ipcRenderer: {
        invoke: (...args: unknown[]) => invoked.push(args),
        on: (channel: string, listener: (event: unknown, message: unknown) => void) =>
          listeners.set(channel, listener),
        removeListener: (channel: string) => listeners.delete(channel),
      },
    };
    const module = { exports: {} };
    const require = (name: string) => {
      if (name === 'electron') return electron;
      throw new Error(`the sandboxed preload required "${name}": only electron is available there`);
    };
    runInNewContext(code, { require, module, exports: module.exports });
    expect(Object.keys(exposed)).toEqual(['api', 'push']);
    const api = exposed.api as Record<string, (input: unknown) => unknown>;
    expect(Object.keys(api).sort()).toEqual([...METHOD_NAMES].sort());
    api.getAppInfo?.({});
    expect(invoked).toEqual([['api', 'getAppInfo', {}]]);

    // window.push: the listener hears the message alone (never Electron's event), until unsubscribed.
    const heard: unknown[] = [];
    const unsubscribe = (exposed.push as RawPush).subscribe((message) => heard.push(message));
    listeners.get(PUSH_CHANNEL)?.(
      { sender: 'electron internals' },
      { type: 'engine-removed', profileId: 'x' },
    );
    expect(heard).toEqual([{ type: 'engine-removed', profileId: 'x' }]);
    unsubscribe();
    expect(listeners.has(PUSH_CHANNEL)).toBe(false);
  });
});

/** The project's own modules in one built file, from its source map. */
function projectSources(file: string): { path: string; text: string }[] {
  const map = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as {
    sources: string[];
    sourcesContent: string[];
  };
  return map.sources
    .map((source, i) => ({
      path: relative(ROOT, join(dirname(file), source)),
      text: map.sourcesContent[i] ?? '',
    }))
    .filter((s) => !s.path.includes('node_modules'));
}

function builtFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? builtFiles(join(dir, e.name)) : /\.(mjs|cjs)$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

describe('what each built file holds', () => {
  const dir = dirname(bundleEntry());
  const files = builtFiles(dir);

  it('uses no module-relative location the format breaks', () => {
    const broken: string[] = [];
    for (const file of files) {
      for (const source of projectSources(file)) {
        // A CommonJS file has no import.meta (esbuild leaves it undefined); in a split ES-module build
        // only the entry file sits where paths relative to it were written for (dist/main/).
        const usesModuleUrl = /import\.meta\.url|__dirname|__filename/.test(source.text);
        if (file.endsWith('.cjs') && /import\.meta/.test(source.text))
          broken.push(`${source.path} in ${relative(dir, file)}`);
        if (file.endsWith('.mjs') && file !== bundleEntry() && usesModuleUrl)
          broken.push(`${source.path} in ${relative(dir, file)}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('keeps the simulators and their certificate code out of the start-up file', () => {
    const entry = projectSources(bundleEntry()).map((s) => s.path);
    expect(entry.filter((p) => p.startsWith('main/sandbox/'))).toEqual([]);
    const map = readFileSync(`${bundleEntry()}.map`, 'utf8');
    expect(map).not.toContain('node_modules/selfsigned');
    const sandboxChunk = files.filter((f) =>
      projectSources(f).some((s) => s.path === 'main/sandbox/mode.ts'),
    );
    expect(sandboxChunk).toHaveLength(1);
  });
});

describe('the built renderer', () => {
  it('stays within 300 KB gzipped, charts included', () => {
    const assets = join(ROOT, 'dist', 'renderer', 'assets');
    const files = readdirSync(assets).filter((f) => /\.(js|css)$/.test(f));
    const gzipped = files.reduce((n, f) => n + gzipSync(readFileSync(join(assets, f))).length, 0);
    expect(gzipped).toBeLessThanOrEqual(300 * 1024);
    // The chart library is in it (a lazily loaded or missing chunk would pass the size and break Home).
    expect(files.some((f) => /uPlot|u-legend/.test(readFileSync(join(assets, f), 'utf8')))).toBe(true);
  });
});
