// The local engine's control API over real HTTP on loopback: decisions.md to the letter.
import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EngineError } from '../../../main/client/engineClient';
import { KEY_FILE } from '../../../main/engine/engine';
import { problem } from '../../../main/platform/problem';
import { keyFileSecretBox, loadOrCreateKey } from '../../../main/platform/secretBox';
import { enginesStoppedAfterEach, startTestEngine, type RunningEngine } from '../../helpers/engine';
import { stubRuntime } from '../../helpers/stubRuntime';

const PASSWORD = 'Sp3c-Pa55word!';
const JOURNAL_PASSWORD = 'ibm-i-Pa55';
// The spec's request examples, with values filled in.
const ctCredentials = {
  hostCredentials: {
    connectionName: 'orders',
    host: '127.0.0.1',
    port: 1433,
    databaseName: 'Sales',
    username: 'cdc',
    password: PASSWORD,
    maxConnectionsCount: 5,
    enableTls: false,
    certificatePath: '/etc/ssl/certs/ca.pem',
  },
};
const ctSpecific = { configuration: { enableRecursionProtection: true } };
const jrCredentials = {
  hostCredentials: {
    connectionName: 'as400',
    host: 'ibmi01.example.com',
    databaseName: 'S1234567',
    maxConnectionsCount: 4,
    username: 'CDCUSER',
    password: JOURNAL_PASSWORD,
  },
};
const jrSpecific = { configuration: { dateFormat: 'mdy', timeFormat: 'hms' } };

const engine = enginesStoppedAfterEach();

async function raw(
  e: RunningEngine,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(e.url + path, {
    method,
    headers: {
      Authorization: `Bearer ${e.token}`,
      ...(body !== undefined && { 'Content-Type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    text,
    json: text ? (JSON.parse(text) as Record<string, unknown>) : undefined,
  };
}

async function withAgent(
  e: RunningEngine,
  type: 'change-tracking' | 'journal',
  pipelineId = 'p1',
  agentId = 'src',
) {
  if (!(await raw(e, 'GET', `/pipelines/${pipelineId}`)).json?.id)
    await e.client.createPipeline({}, { id: pipelineId, name: pipelineId });
  await e.client.createAgent({ pipelineId }, { id: agentId, type, role: 'source' });
  return `/pipelines/${pipelineId}/agents/${agentId}`;
}

describe('the spec PUTs', () => {
  it("accept the spec's request examples for both agents, answering the stored object without secrets", async () => {
    const e = await engine();
    const ct = await withAgent(e, 'change-tracking');
    const put1 = await raw(e, 'PUT', `${ct}/config/credentials`, ctCredentials);
    expect(put1.status).toBe(200);
    expect(put1.json).toEqual({
      hostCredentials: {
        ...ctCredentials.hostCredentials,
        password: null,
        passwordSet: true,
        // An optional secret never given is said to be not set.
        maskSalt: null,
        maskSaltSet: false,
      },
    });
    const put2 = await raw(e, 'PUT', `${ct}/config/specific`, ctSpecific);
    expect(put2).toMatchObject({
      status: 200,
      json: { configuration: { enableRecursionProtection: true, sourceChangeRetentionDays: 5 } },
    });

    const jr = await withAgent(e, 'journal', 'p1', 'ibmi');
    const put3 = await raw(e, 'PUT', `${jr}/config/credentials`, jrCredentials);
    expect(put3.status).toBe(200);
    expect(put3.json?.hostCredentials).toMatchObject({
      syncLibrary: 'SYNC',
      journalCheckpointTable: 'JOURNALSCP',
      blockSize: 32,
      password: null,
      passwordSet: true,
    });
    // The answer is the stored object: the spec's fields, and the snapshot settings' defaults.
    expect((await raw(e, 'PUT', `${jr}/config/specific`, jrSpecific)).json).toEqual({
      configuration: {
        ...jrSpecific.configuration,
        invalidDecimals: 'keep-row-aside',
        invalidDates: 'keep-row-aside',
        invalidText: 'keep-row-aside',
        textOrder: 'logical',
        heartbeatSeconds: 0,
        snapshotMode: 'initial',
        snapshotChunkRows: 10_000,
        droppedColumns: 'keep',
        onTableError: 'suspend-table',
        maxExceptions: 1000,
        schemaChanges: 'propagate',
        droppedTables: 'keep',
      },
    });

    const agent = await e.client.getAgent({ pipelineId: 'p1', agentId: 'src' });
    expect(agent.state).toBe('configured');
    for (const answer of [
      put1,
      put2,
      put3,
      await raw(e, 'GET', ct),
      await raw(e, 'GET', '/pipelines/p1'),
      await raw(e, 'GET', jr),
    ]) {
      expect(answer.text).not.toContain(PASSWORD);
      expect(answer.text).not.toContain(JOURNAL_PASSWORD);
    }
  });

  it('is an idempotent full replace, and an absent password keeps the stored one', async () => {
    const e = await engine();
    const ct = await withAgent(e, 'change-tracking');
    await raw(e, 'PUT', `${ct}/config/credentials`, ctCredentials);
    const first = await raw(e, 'GET', ct);
    await raw(e, 'PUT', `${ct}/config/credentials`, ctCredentials);
    expect((await raw(e, 'GET', ct)).json?.hostCredentials).toEqual(first.json?.hostCredentials);

    // Full replace: a field left out returns to its default; the password left out stays.
    const { password: _p, certificatePath: _c, ...withoutPassword } = ctCredentials.hostCredentials;
    const replaced = await raw(e, 'PUT', `${ct}/config/credentials`, {
      hostCredentials: { ...withoutPassword, port: 14330 },
    });
    expect(replaced.json?.hostCredentials).toMatchObject({ port: 14330, passwordSet: true });
    expect(replaced.json?.hostCredentials).not.toHaveProperty('certificatePath');
    const row = e.engine.deps.repo.storedAgent('p1', 'src');
    const secrets = await e.engine.deps.secrets.open(
      row?.secretsSealed ?? '',
      'agent:p1/src:hostCredentials',
    );
    expect(JSON.parse(secrets)).toEqual({ password: PASSWORD });

    // The mask salt is a secret like the password: stored sealed, answered as set, never shown.
    const salt = 'a-mask-salt-for-the-engine-test';
    const salted = await raw(e, 'PUT', `${ct}/config/credentials`, {
      hostCredentials: { ...withoutPassword, maskSalt: salt },
    });
    expect(salted.json?.hostCredentials).toMatchObject({
      maskSalt: null,
      maskSaltSet: true,
      passwordSet: true,
    });
    expect(salted.text).not.toContain(salt);
    expect((await raw(e, 'GET', ct)).text).not.toContain(salt);
  });

  it('requires the password on the first PUT', async () => {
    const e = await engine();
    const ct = await withAgent(e, 'change-tracking');
    const { password: _p, ...withoutPassword } = ctCredentials.hostCredentials;
    const answer = await raw(e, 'PUT', `${ct}/config/credentials`, { hostCredentials: withoutPassword });
    expect(answer.status).toBe(422);
    expect(answer.json?.errors).toEqual([
      { pointer: '/hostCredentials/password', detail: expect.stringContaining('is required') },
    ]);
  });
});

describe('refusals: every status code of decisions.md, in problem+json', () => {
  it('400 malformed JSON, 415 wrong content type, 413 too large, 422 invalid values with a pointer per field', async () => {
    const e = await engine();
    const ct = await withAgent(e, 'change-tracking');
    const bad = await raw(e, 'PUT', `${ct}/config/credentials`, '{"hostCredentials": ');
    expect(bad.status).toBe(400);
    expect(bad.type).toBe('application/problem+json');
    expect(bad.json).toMatchObject({
      type: expect.any(String),
      title: 'Malformed JSON',
      status: 400,
      detail: expect.any(String),
    });

    expect(
      (
        await raw(e, 'PUT', `${ct}/config/credentials`, JSON.stringify(ctCredentials), {
          'Content-Type': 'text/plain',
        })
      ).status,
    ).toBe(415);
    expect(
      (
        await raw(e, 'PUT', `${ct}/config/credentials`, {
          hostCredentials: { connectionName: 'x'.repeat(2 * 1024 * 1024) },
        })
      ).status,
    ).toBe(413);

    const invalid = await raw(e, 'PUT', `${ct}/config/credentials`, {
      hostCredentials: { ...ctCredentials.hostCredentials, port: 70000, enableTls: 'yes', colour: 'red' },
    });
    expect(invalid.status).toBe(422);
    expect(invalid.type).toBe('application/problem+json');
    expect(invalid.json).toMatchObject({
      type: 'urn:cdc-admin:problem:invalid-values',
      title: 'Invalid values',
      status: 422,
    });
    const errors = invalid.json?.errors as { pointer: string; detail: string }[];
    expect(errors.map((x) => x.pointer).sort()).toEqual([
      '/hostCredentials/colour',
      '/hostCredentials/enableTls',
      '/hostCredentials/port',
    ]);
    expect(errors.find((x) => x.pointer.endsWith('/port'))?.detail).toBe(
      'Port must be a whole number from 1 to 65535; got 70000.',
    );
    expect(invalid.text).not.toContain(PASSWORD);
  });

  it('422 for a wrong wrapper, and the journal port with its reason', async () => {
    const e = await engine();
    const jr = await withAgent(e, 'journal');
    const wrapped = await raw(e, 'PUT', `${jr}/config/credentials`, { configuration: {} });
    expect(wrapped.status).toBe(422);
    expect(wrapped.json?.errors).toEqual([
      { pointer: '/configuration', detail: expect.stringContaining('one key, hostCredentials') },
    ]);
    const port = await raw(e, 'PUT', `${jr}/config/credentials`, {
      hostCredentials: { ...jrCredentials.hostCredentials, port: 8471 },
    });
    expect(port.status).toBe(422);
    expect(port.json?.errors).toEqual([
      {
        pointer: '/hostCredentials/port',
        detail: expect.stringContaining('IBM i host servers listen on fixed'),
      },
    ]);
  });

  it('401 without the token or with a wrong one; Bearer and bare tokens both work', async () => {
    const e = await engine();
    for (const header of [undefined, 'Bearer nope', `Basic ${e.token}`, `Bearer ${e.token.slice(1)}`]) {
      const res = await fetch(e.url + '/pipelines', { headers: header ? { Authorization: header } : {} });
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
    }
    expect((await fetch(e.url + '/pipelines', { headers: { Authorization: e.token } })).status).toBe(200);
    expect(
      (await fetch(e.url + '/pipelines', { headers: { Authorization: `bearer ${e.token}` } })).status,
    ).toBe(200);
  });

  it('404 for unknown pipelines, agents, types and paths; 405 for a wrong method', async () => {
    const e = await engine();
    await withAgent(e, 'change-tracking');
    expect((await raw(e, 'PUT', '/pipelines/nope/agents/src/config/credentials', ctCredentials)).status).toBe(
      404,
    );
    expect((await raw(e, 'PUT', '/pipelines/p1/agents/nope/config/specific', ctSpecific)).status).toBe(404);
    expect((await raw(e, 'GET', '/pipelines/..%2F..%2Fetc')).status).toBe(404);
    expect((await raw(e, 'GET', '/agent-types/oracle/schema')).status).toBe(404);
    expect((await raw(e, 'GET', '/nothing/here')).status).toBe(404);
    const wrong = await raw(e, 'DELETE', '/pipelines/p1/agents/src/config/credentials');
    expect(wrong).toMatchObject({ status: 405, json: { detail: 'This resource accepts PUT.' } });
  });

  it('201 on create, 204 on delete, 409 on a duplicate id', async () => {
    const e = await engine();
    expect((await raw(e, 'POST', '/pipelines', { id: 'p1', name: 'One' })).status).toBe(201);
    expect((await raw(e, 'POST', '/pipelines', { id: 'p1', name: 'Again' })).status).toBe(409);
    expect((await raw(e, 'POST', '/pipelines', { name: 'Generated' })).json?.id).toMatch(/^[a-f0-9]{10}$/);
    expect((await raw(e, 'POST', '/pipelines/p1/agents', { type: 'journal', role: 'sideways' })).status).toBe(
      422,
    );
    expect((await raw(e, 'DELETE', '/pipelines/p1')).status).toBe(204);
    expect((await raw(e, 'GET', '/pipelines/p1')).status).toBe(404);
  });

  it('a refused body leaves the stored state exactly as it was', async () => {
    const e = await engine();
    const ct = await withAgent(e, 'change-tracking');
    await raw(e, 'PUT', `${ct}/config/credentials`, ctCredentials);
    await raw(e, 'PUT', `${ct}/config/specific`, ctSpecific);
    const before = (await raw(e, 'GET', '/pipelines/p1')).text;
    const sealedBefore = e.engine.deps.repo.storedAgent('p1', 'src')?.secretsSealed;
    const attempts: [string, unknown][] = [
      [
        `${ct}/config/credentials`,
        { hostCredentials: { ...ctCredentials.hostCredentials, password: 'new-pass', port: 0 } },
      ],
      [`${ct}/config/credentials`, { hostCredentials: null }],
      [`${ct}/config/credentials`, '{"hostCredentials": {"host": '],
      [`${ct}/config/specific`, { configuration: { sourceChangeRetentionDays: 366 } }],
      [`${ct}/config/specific`, { configuration: { temporaryTablePrefix: "x'; DROP TABLE t;--" } }],
      [
        '/pipelines/p1/entities',
        {
          entities: [
            {
              source: { schema: 'dbo', table: 'Orders' },
              target: { table: 'orders' },
              rowIdentification: { kind: 'guess' },
            },
          ],
        },
      ],
    ];
    for (const [path, body] of attempts) {
      expect((await raw(e, 'PUT', path, body)).status).toBeGreaterThanOrEqual(400);
    }
    expect((await raw(e, 'GET', '/pipelines/p1')).text).toBe(before);
    expect(e.engine.deps.repo.storedAgent('p1', 'src')?.secretsSealed).toBe(sealedBefore);
  });
});

describe('conflicts', () => {
  it('409 for a second journal agent on one source with the same sync library, naming the other agent', async () => {
    const e = await engine();
    const first = await withAgent(e, 'journal', 'p1', 'ibmi-a');
    expect((await raw(e, 'PUT', `${first}/config/credentials`, jrCredentials)).status).toBe(200);
    const second = await withAgent(e, 'journal', 'p2', 'ibmi-b');
    const sameSource = {
      hostCredentials: { ...jrCredentials.hostCredentials, host: 'IBMI01.example.com', syncLibrary: 'sync' },
    };
    const refused = await raw(e, 'PUT', `${second}/config/credentials`, sameSource);
    expect(refused.status).toBe(409);
    expect(refused.json?.detail).toContain('Agent "ibmi-a" of pipeline "p1" already uses sync library SYNC');
    // The field to change is named, so a form can show the refusal beside it.
    expect(refused.json?.errors).toEqual([
      { pointer: '/hostCredentials/syncLibrary', detail: refused.json?.detail },
    ]);
    expect(e.engine.deps.repo.storedAgent('p2', 'ibmi-b')?.hostCredentials).toBeNull();

    const ownLibrary = { hostCredentials: { ...sameSource.hostCredentials, syncLibrary: 'SYNC2' } };
    expect((await raw(e, 'PUT', `${second}/config/credentials`, ownLibrary)).status).toBe(200);
    const otherSource = { hostCredentials: { ...jrCredentials.hostCredentials, host: 'ibmi02.example.com' } };
    const third = await withAgent(e, 'journal', 'p2', 'ibmi-c');
    expect((await raw(e, 'PUT', `${third}/config/credentials`, otherSource)).status).toBe(200);
    // The agent itself may PUT its own library again.
    expect((await raw(e, 'PUT', `${first}/config/credentials`, jrCredentials)).status).toBe(200);
  });
});

describe('states', () => {
  const accepting = stubRuntime();

  it('new → configured → running ⇄ paused → configured, with changes refused while running', async () => {
    const e = await engine({ runtime: accepting });
    const ids = { pipelineId: 'p1', agentId: 'src' };
    const ct = await withAgent(e, 'change-tracking');
    expect((await raw(e, 'POST', `${ct}/start`)).status).toBe(409);
    await raw(e, 'PUT', `${ct}/config/credentials`, ctCredentials);
    expect((await e.client.getAgent(ids)).state).toBe('new');
    await raw(e, 'PUT', `${ct}/config/specific`, ctSpecific);
    expect((await e.client.getAgent(ids)).state).toBe('configured');
    expect((await e.client.startAgent(ids)).state).toBe('running');
    expect((await raw(e, 'PUT', `${ct}/config/specific`, ctSpecific)).status).toBe(409);
    expect((await raw(e, 'DELETE', '/pipelines/p1')).status).toBe(409);
    expect((await e.client.pauseAgent(ids)).state).toBe('paused');
    expect((await e.client.startAgent(ids)).state).toBe('running');
    expect((await e.client.stopAgent(ids)).state).toBe('stopped');
    expect((await raw(e, 'POST', `${ct}/pause`)).status).toBe(409);
  });

  it('answers 501 when this engine cannot run the agent, and leaves the state alone', async () => {
    const e = await engine({
      runtime: {
        ...accepting,
        start: async () => {
          throw problem.unavailable('This engine has no journal reader.');
        },
      },
    });
    const jr = await withAgent(e, 'journal');
    await raw(e, 'PUT', `${jr}/config/credentials`, jrCredentials);
    await raw(e, 'PUT', `${jr}/config/specific`, { configuration: {} });
    const answer = await raw(e, 'POST', `${jr}/start`);
    expect(answer).toMatchObject({ status: 501, json: { title: 'Not available' } });
    expect((await e.client.getAgent({ pipelineId: 'p1', agentId: 'src' })).state).toBe('configured');
  });

  it('answers 409 for a pipeline without entities, and refuses a target role the type cannot take', async () => {
    const e = await engine();
    const ct = await withAgent(e, 'change-tracking');
    await raw(e, 'PUT', `${ct}/config/credentials`, ctCredentials);
    await raw(e, 'PUT', `${ct}/config/specific`, ctSpecific);
    const answer = await raw(e, 'POST', `${ct}/start`);
    expect(answer).toMatchObject({ status: 409 });
    expect(JSON.stringify(answer.json)).toContain('has no tables to replicate yet');
    const wrongRole = await raw(e, 'POST', '/pipelines/p1/agents', {
      id: 'dst',
      type: 'journal',
      role: 'target',
    });
    expect(wrongRole).toMatchObject({ status: 422 });
    expect(JSON.stringify(wrongRole.json)).toContain('role must be source for a journal agent');
  });

  it('a runtime refusal is passed on as the runtime phrased it', async () => {
    const refusing = {
      ...accepting,
      start: async () => {
        throw problem.conflict('The source is read-only today.');
      },
    };
    const e = await engine({ runtime: refusing });
    const ct = await withAgent(e, 'change-tracking');
    await raw(e, 'PUT', `${ct}/config/credentials`, ctCredentials);
    await raw(e, 'PUT', `${ct}/config/specific`, ctSpecific);
    expect((await raw(e, 'POST', `${ct}/start`)).json).toMatchObject({
      status: 409,
      detail: 'The source is read-only today.',
    });
  });
});

describe('checks and backlog', () => {
  let listener: Server | undefined;
  afterEach(() => listener?.close());

  it('POST …/test reports each check with status, message and remedy', async () => {
    listener = createServer((s) => s.end());
    const port = await new Promise<number>((resolve) =>
      listener?.listen(0, '127.0.0.1', () => resolve((listener?.address() as { port: number }).port)),
    );
    const e = await engine();
    const ct = await withAgent(e, 'change-tracking');
    const unconfigured = await e.client.testAgent({ pipelineId: 'p1', agentId: 'src' });
    expect(unconfigured.checks.map((c) => [c.id, c.status])).toEqual([
      ['credentials-set', 'failed'],
      ['configuration-set', 'failed'],
    ]);
    expect(unconfigured.checks[0]?.remedy).toContain('config/credentials');

    await raw(e, 'PUT', `${ct}/config/credentials`, {
      hostCredentials: { ...ctCredentials.hostCredentials, port },
    });
    await raw(e, 'PUT', `${ct}/config/specific`, ctSpecific);
    const reachable = await e.client.testAgent({ pipelineId: 'p1', agentId: 'src' });
    expect(reachable.checks.find((c) => c.id === 'host-reachable')).toMatchObject({
      status: 'passed',
      message: `127.0.0.1:${port} accepts connections.`,
    });

    listener.close();
    const refused = await e.client.testAgent({ pipelineId: 'p1', agentId: 'src' });
    expect(refused.checks.find((c) => c.id === 'host-reachable')).toMatchObject({
      status: 'failed',
      message: expect.stringContaining('refused'),
    });
  });

  it('GET …/backlog says why there is no figure', async () => {
    const e = await engine();
    await withAgent(e, 'journal');
    const backlog = await e.client.getBacklog({ pipelineId: 'p1', agentId: 'src' });
    expect(backlog).toMatchObject({
      current: null,
      unavailableReason: 'Configure both steps first.',
      history: [],
    });
  });
});

describe('entities', () => {
  it('stores the list, upper-cases IBM i journal names and warns about RRN', async () => {
    const e = await engine();
    await withAgent(e, 'journal');
    const answer = await e.client.putEntities(
      { pipelineId: 'p1' },
      {
        entities: [
          {
            source: { schema: 'SALES', table: 'ORDERS' },
            target: { table: 'orders' },
            rowIdentification: { kind: 'logicalKey', columns: ['ORDNO', 'LINE'] },
          },
          {
            source: { schema: 'SALES', table: 'NOTES' },
            target: { table: 'notes' },
            rowIdentification: { kind: 'rrn' },
            journal: { library: 'jrnlib', name: 'qsqjrn' },
          },
          { source: { schema: 'SALES', table: 'ITEMS' }, target: { table: 'items' } },
        ],
      },
    );
    expect(answer.entities[1]?.journal).toEqual({ library: 'JRNLIB', name: 'QSQJRN' });
    expect(answer.entities[2]?.rowIdentification).toEqual({ kind: 'primaryKey' });
    expect(answer.warnings).toEqual([
      expect.stringMatching(/^SALES\.NOTES is identified by RRN: a reorganisation/),
    ]);
    expect((await e.client.listEntities({ pipelineId: 'p1' })).entities).toEqual(answer.entities);
  });
});

describe('persistence and secrets at rest', () => {
  it('keeps the configuration across a restart, and the token keeps working', async () => {
    const first = await startTestEngine();
    const ct = await withAgent(first, 'change-tracking');
    await raw(first, 'PUT', `${ct}/config/credentials`, ctCredentials);
    await raw(first, 'PUT', `${ct}/config/specific`, ctSpecific);
    const before = (await raw(first, 'GET', '/pipelines/p1')).json;
    await first.stop();

    const again = await engine({ dataDir: first.dataDir, token: first.token });
    expect(again.engine.firstStartToken).toBeUndefined();
    expect((await raw(again, 'GET', '/pipelines/p1')).json).toEqual(before);
    // The stored password still opens: a credentials PUT without it is accepted.
    const { password: _p, ...withoutPassword } = ctCredentials.hostCredentials;
    expect(
      (await raw(again, 'PUT', `${ct}/config/credentials`, { hostCredentials: withoutPassword })).status,
    ).toBe(200);
  });

  it('never writes a password in clear to the data folder, and keeps the key file private', async () => {
    const e = await engine();
    const ct = await withAgent(e, 'change-tracking');
    await raw(e, 'PUT', `${ct}/config/credentials`, ctCredentials);
    e.engine.deps.repo.transaction(() => undefined);
    for (const file of readdirSync(e.dataDir)) {
      expect(readFileSync(join(e.dataDir, file)).includes(PASSWORD), file).toBe(false);
    }
    const { statSync } = await import('node:fs');
    expect(statSync(join(e.dataDir, KEY_FILE)).mode & 0o777).toBe(0o600);
  });

  it('refuses a key file others can read, and a sealed secret moved to another agent', async () => {
    const e = await engine();
    const keyPath = join(e.dataDir, KEY_FILE);
    chmodSync(keyPath, 0o644);
    expect(() => loadOrCreateKey(keyPath)).toThrow(/can be read by other users \(mode 644\); run: chmod 600/);
    chmodSync(keyPath, 0o600);
    const box = keyFileSecretBox(keyPath);
    const sealed = await box.seal('pw', 'agent:p1/a');
    await expect(box.open(sealed, 'agent:p1/b')).rejects.toThrow();
    expect(await box.open(sealed, 'agent:p1/a')).toBe('pw');
    writeFileSync(join(e.dataDir, 'short.key'), 'x', { mode: 0o600 });
    expect(() => loadOrCreateKey(join(e.dataDir, 'short.key'))).toThrow(/damaged/);
  });
});

describe('tokens', () => {
  it('rotation replaces the token at once', async () => {
    const e = await engine();
    const { token } = await e.client.rotateToken({});
    expect(token).not.toBe(e.token);
    expect(
      (await fetch(e.url + '/pipelines', { headers: { Authorization: `Bearer ${e.token}` } })).status,
    ).toBe(401);
    expect(
      (await fetch(e.url + '/pipelines', { headers: { Authorization: `Bearer ${token}` } })).status,
    ).toBe(200);
    expect(e.engine.deps.repo.meta('admin_token_sha256')).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(e.logLines)).not.toContain(token);
  });
});

describe('schemas', () => {
  it('GET /agent-types/{type}/schema gives JSON Schema with the password writeOnly', async () => {
    const e = await engine();
    const schema = await e.client.getAgentTypeSchema({ type: 'change-tracking' });
    const properties = (schema.hostCredentials as { properties: Record<string, Record<string, unknown>> })
      .properties;
    expect(properties.password).toMatchObject({ type: 'string', writeOnly: true, title: 'Password' });
    expect(properties.port).toMatchObject({ type: 'integer', minimum: 1, maximum: 65535, default: 1433 });
    expect((schema.hostCredentials as { additionalProperties: unknown }).additionalProperties).toBe(false);
    const journal = await e.client.getAgentTypeSchema({ type: 'journal' });
    expect((journal.hostCredentials as { properties: object }).properties).not.toHaveProperty('port');
  });

  it('serves the OpenAPI document that is checked in under docs/ (run `npm run docs` after changing a schema)', async () => {
    const e = await engine();
    const served = await e.client.getOpenApi({});
    expect(served).toEqual(
      JSON.parse(readFileSync(new URL('../../../docs/openapi.json', import.meta.url), 'utf8')),
    );
    expect(Object.keys(served.paths as object)).toContain(
      '/pipelines/{pipelineId}/agents/{agentId}/config/credentials',
    );
  });
});

describe('client', () => {
  it('carries the problem details and never the token in its errors', async () => {
    const e = await engine();
    await withAgent(e, 'change-tracking');
    const error = await e.client
      .putCredentials(
        { pipelineId: 'p1', agentId: 'src' },
        { hostCredentials: { ...ctCredentials.hostCredentials, port: 0 } },
      )
      .catch((x: unknown) => x);
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).status).toBe(422);
    expect((error as EngineError).problem?.errors?.[0]?.pointer).toBe('/hostCredentials/port');
    // In words, said once: no status, title or pointer (the form puts it beside its field).
    const message = (error as EngineError).message;
    expect(message).toMatch(/^Port must be a whole number[^\n]*$/);
    expect(message).not.toMatch(/\/hostCredentials|422|Invalid values/);
    expect((error as EngineError).message).not.toContain(PASSWORD);
    expect((error as EngineError).message).not.toContain(e.token);
  });
});
