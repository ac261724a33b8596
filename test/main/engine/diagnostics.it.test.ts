// Diagnostics bundles: what is inside, that no password or token ever is, and reading one offline.
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { watchedLog } from '../../setup/secretNotes';
import { startAppServices, type AppServices } from '../../../main/app/services';
import type { Envelope } from '../../../shared/api';
import { startTestEngine, type RunningEngine } from '../../helpers/engine';
import type { AgentRuntime } from '../../../main/agents/spi';
import { scrubSecrets } from '../../../main/engine/diagnostics';
import { operations } from '../../../main/engine/operations';
import { secretForms } from '../../../main/platform/redact';

const PASSWORD = 'Diag-Pa55-word!';
const JOURNAL_PASSWORD = 'ibmi-Diag-Secret';
const PROFILE_TOKEN = 'profile-token-XYZ-987';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((x) => x.close()));
});

async function configure(e: RunningEngine) {
  await e.client.createPipeline({}, { id: 'p1', name: 'One' });
  await e.client.createAgent({ pipelineId: 'p1' }, { id: 'sql', type: 'change-tracking', role: 'source' });
  await e.client.createAgent({ pipelineId: 'p1' }, { id: 'ibmi', type: 'journal', role: 'source' });
  await e.client.putCredentials(
    { pipelineId: 'p1', agentId: 'sql' },
    {
      hostCredentials: {
        connectionName: 'c',
        host: '127.0.0.1',
        port: 9,
        databaseName: 'd',
        username: 'u',
        password: PASSWORD,
      },
    },
  );
  await e.client.putSpecific({ pipelineId: 'p1', agentId: 'sql' }, { configuration: {} });
  await e.client.putCredentials(
    { pipelineId: 'p1', agentId: 'ibmi' },
    {
      hostCredentials: {
        connectionName: 'j',
        host: '127.0.0.1',
        databaseName: 'S1',
        username: 'U',
        password: JOURNAL_PASSWORD,
      },
    },
  );
  await e.client.testAgent({ pipelineId: 'p1', agentId: 'sql' });
}

describe('engine: POST /diagnostics', () => {
  it('answers a zip with versions, redacted configuration, last checks, backlog and events, and no secret', async () => {
    const e = await startTestEngine();
    open.push({ close: e.stop });
    await configure(e);
    const bytes = await e.client.createDiagnostics({});
    const files = unzipSync(bytes);
    expect(Object.keys(files).sort()).toEqual([
      'backlog.json',
      'checks.json',
      'configuration.json',
      'events.json',
      'exceptions.json',
      'manifest.json',
      'verify.json',
    ]);
    const manifest = JSON.parse(strFromU8(files['manifest.json'] ?? new Uint8Array())) as Record<
      string,
      unknown
    >;
    expect(manifest).toMatchObject({
      format: 'cdc-admin-diagnostics',
      version: 1,
      source: 'engine',
      versions: { node: process.version },
    });
    const checks = JSON.parse(strFromU8(files['checks.json'] ?? new Uint8Array())) as {
      agentId: string;
      checks: { id: string }[];
    }[];
    expect(checks).toHaveLength(1);
    expect(checks[0]?.checks.map((c) => c.id)).toEqual([
      'credentials-set',
      'configuration-set',
      'host-reachable',
    ]);
    const config = strFromU8(files['configuration.json'] ?? new Uint8Array());
    expect(config).toContain('"passwordSet": true');
    const events = JSON.parse(strFromU8(files['events.json'] ?? new Uint8Array())) as { kind: string }[];
    expect(events.map((x) => x.kind)).toContain('credentials-replaced');

    const everything = Buffer.from(Object.values(files).flatMap((f) => [...f])).toString('utf8');
    for (const secret of [PASSWORD, JOURNAL_PASSWORD, e.token]) expect(everything).not.toContain(secret);
  });
});

describe('engine: the checks a bundle keeps', () => {
  it('are the ones run again after a fix, when a fix came last', async () => {
    let fixed = false;
    const checks = () => [
      {
        id: 'tidy',
        status: fixed ? ('passed' as const) : ('failed' as const),
        message: 'Tidy?',
        remedy: null,
      },
    ];
    const runtime = {
      check: async () => checks(),
      applyFix: async () => ((fixed = true), { applied: 'TIDY', checks: checks() }),
    } as unknown as AgentRuntime;
    const e = await startTestEngine({ runtime });
    open.push({ close: e.stop });
    await configure(e);
    await e.client.applyFix({ pipelineId: 'p1', agentId: 'sql', checkId: 'tidy' });
    const files = unzipSync(await e.client.createDiagnostics({}));
    const kept = JSON.parse(strFromU8(files['checks.json'] ?? new Uint8Array())) as {
      checks: { id: string; status: string }[];
    }[];
    expect(kept[0]?.checks.find((c) => c.id === 'tidy')?.status).toBe('passed');
  });
});

describe('secrets an encoder would escape', () => {
  /** Passwords a DBA may choose: a quote and a backslash (escaped in JSON), non-ASCII, two characters. */
  const SECRETS = ['Qu0te"Back\\slash-Secr3t', 'Pässwörd-Ünïcødé-∑-9', '¤§'];

  it('none is in any form in a bundle, even typed where no secret belongs', async () => {
    const e = await startTestEngine();
    open.push({ close: e.stop });
    await e.client.createPipeline({}, { id: 'p2', name: 'Two' });
    // Set up in the engine's own process, not over HTTP: the password is typed into the connection's
    // name as well, which answers echo on purpose (a name is no secret), and the run-wide scan would
    // count that echo. It reaches the configuration, the checks and the events in clear; the
    // bundle's scrub must still find it there in every form.
    const call = (
      id: 'createAgent' | 'putCredentials' | 'putSpecific' | 'testAgent',
      params: Record<string, string>,
      body?: unknown,
    ) => operations[id]({ params, body } as never, e.engine.deps);
    for (const [i, secret] of SECRETS.entries()) {
      const agent = { pipelineId: 'p2', agentId: `a${i}` };
      await call(
        'createAgent',
        { pipelineId: 'p2' },
        { id: agent.agentId, type: 'change-tracking', role: 'source' },
      );
      await call('putCredentials', agent, {
        hostCredentials: {
          connectionName: secret,
          host: '127.0.0.1',
          port: 9,
          databaseName: 'd',
          username: 'u',
          password: secret,
        },
      });
      await call('putSpecific', agent, { configuration: {} });
      await call('testAgent', agent);
    }
    const files = unzipSync(await e.client.createDiagnostics({}));
    expect(strFromU8(files['configuration.json'] ?? new Uint8Array())).toContain(
      '"connectionName": "[redacted]"',
    );
    for (const [name, file] of Object.entries(files)) {
      const text = strFromU8(file);
      for (const secret of SECRETS)
        for (const form of secretForms(secret))
          expect(text.includes(form), `${name} holds ${JSON.stringify(form)}`).toBe(false);
    }
  });

  it('a log line holding them raw, JSON-escaped or URL-encoded is scrubbed, and a short one only where it stands alone', () => {
    const line = SECRETS.map(
      (s) =>
        `${s} ${JSON.stringify(s)} ${JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)} https://x.invalid/?p=${encodeURIComponent(s)}`,
    ).join(' ');
    const scrubbed = scrubSecrets(line, SECRETS);
    for (const secret of SECRETS)
      for (const form of secretForms(secret)) expect(scrubbed).not.toContain(form);
    expect(scrubbed).toContain('https://x.invalid/?p=[redacted]');
    expect(scrubSecrets('table ab tab', ['ab'])).toBe('table [redacted] tab');
    // As the readiness report's HTML writes it.
    expect(scrubSecrets('<td>Qu0te&quot;Back\\slash-Secr3t</td>', SECRETS)).toBe('<td>[redacted]</td>');
  });
});

describe('app: createDiagnostics and openDiagnostics', () => {
  it('adds the logs and engine profiles, scrubs every secret even from a log line, and reads the bundle back', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cdc-app-'));
    const logFile = join(dataDir, 'cdc-admin.log');
    // A log line that should never exist: the bundle must still not carry the secrets in it.
    writeFileSync(
      logFile,
      `{"event":"oops","detail":"${PASSWORD} ${PROFILE_TOKEN}"}\n{"event":"app.start"}\n`,
    );
    const app: AppServices = await startAppServices({
      mode: 'web',
      appVersion: '9.8.7',
      dataDir,
      log: watchedLog,
      enginePort: 0,
      logFiles: () => [logFile],
    });
    open.push(app);
    const call = async (method: string, input: unknown = {}) => {
      const answer: Envelope = await app.dispatch(method, input);
      if (!answer.ok) throw new Error(answer.error.message);
      return answer.value;
    };
    const local = (await call('getLocalEngine')) as { url: string; tokenToShow: string };
    await call('saveEngineProfile', {
      id: 'prod',
      name: 'Prod',
      baseUrl: 'https://engine.example.com',
      token: PROFILE_TOKEN,
    });
    const { createEngineClient } = await import('../../../main/client/engineClient');
    await configure({
      client: createEngineClient({ baseUrl: local.url, token: local.tokenToShow }),
    } as RunningEngine);

    const { fileName, base64 } = (await call('createDiagnostics')) as { fileName: string; base64: string };
    expect(fileName).toMatch(/^cdc-admin-diagnostics-\d{4}-\d\d-\d\dT[\d-]+Z\.zip$/);
    const bytes = Buffer.from(base64, 'base64');
    const files = unzipSync(bytes);
    expect(Object.keys(files)).toEqual(
      expect.arrayContaining(['manifest.json', 'profiles.json', 'logs/cdc-admin.log']),
    );
    const everything = Buffer.from(Object.values(files).flatMap((f) => [...f])).toString('utf8');
    for (const secret of [PASSWORD, JOURNAL_PASSWORD, PROFILE_TOKEN, local.tokenToShow])
      expect(everything).not.toContain(secret);
    expect(strFromU8(files['logs/cdc-admin.log'] ?? new Uint8Array())).toContain('[redacted] [redacted]');

    const view = (await call('openDiagnostics', { base64 })) as {
      manifest: { source: string; versions: Record<string, string> };
      configuration: { pipelines: { agents: { id: string }[] }[] };
      profiles: { id: string; tokenSet: boolean }[];
      logs: { name: string }[];
    };
    expect(view.manifest).toMatchObject({ source: 'app', versions: { app: '9.8.7' } });
    expect(view.configuration.pipelines[0]?.agents.map((a) => a.id)).toEqual(['sql', 'ibmi']);
    expect(view.profiles).toEqual([
      { id: 'local', name: 'Local engine', baseUrl: local.url, tokenSet: true },
      { id: 'prod', name: 'Prod', baseUrl: 'https://engine.example.com', tokenSet: true },
    ]);
    expect(view.logs.map((l) => l.name)).toEqual(['cdc-admin.log']);
  });

  it('refuses files that are not bundles, saying what is wrong', async () => {
    const app = await startAppServices({
      mode: 'web',
      appVersion: 't',
      dataDir: mkdtempSync(join(tmpdir(), 'cdc-app-')),
      log: watchedLog,
      enginePort: 0,
    });
    open.push(app);
    const refuse = async (bytes: Uint8Array) => {
      const answer = await app.dispatch('openDiagnostics', { base64: Buffer.from(bytes).toString('base64') });
      return answer.ok ? 'accepted' : answer.error.message;
    };
    expect(await refuse(strToU8('just text'))).toBe(
      'The file is not a zip archive: not a diagnostics bundle.',
    );
    expect(await refuse(zipSync({ 'other.txt': strToU8('x') }))).toBe('The bundle has no manifest.json.');
    expect(await refuse(zipSync({ 'manifest.json': strToU8('{"format":"something-else"}') }))).toMatch(
      /^manifest\.json in the bundle is not in the expected shape/,
    );
    expect(await refuse(zipSync({ 'manifest.json': strToU8('{') }))).toBe(
      'manifest.json in the bundle is not JSON.',
    );
  });
});
