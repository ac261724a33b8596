// Thousands of generated bodies against every control API route that takes one (fast-check): wrong
// types, huge strings, deep nesting, unicode, prototype-pollution keys; then invalid UTF-8, wrong
// content types and oversized bodies. Never a 5xx, never a change on refusal, and every refusal says
// what was wrong (a 422 names each field by its JSON pointer).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../../shared/controlApiRoutes';
import { testSeed } from '../../helpers/seed';
import { startTestEngine, type RunningEngine } from '../../helpers/engine';

const seedOf = testSeed('fuzz');

let e: RunningEngine;
const jr = '/pipelines/p1/agents/jr';
beforeAll(async () => {
  e = await startTestEngine();
  await e.client.createPipeline({}, { id: 'p1', name: 'p1' });
  await e.client.createAgent({ pipelineId: 'p1' }, { id: 'jr', type: 'journal', role: 'source' });
  await e.client.putCredentials(
    { pipelineId: 'p1', agentId: 'jr' },
    {
      hostCredentials: {
        connectionName: 'x',
        host: 'ibmi01',
        databaseName: '*SYSBAS',
        username: 'CDCAGENT',
        password: 'Fuzz-Secret-1',
      },
    },
  );
});
afterAll(() => e?.stop());

async function send(method: string, path: string, body: string | Blob, type = 'application/json') {
  const res = await fetch(e.url + path, {
    method,
    headers: { Authorization: `Bearer ${e.token}`, 'Content-Type': type },
    body,
  });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type') ?? '', text };
}

/** Everything a refusal must leave alone. */
async function state(): Promise<string> {
  const pipelines = await e.client.listPipelines({});
  const details = await Promise.all(pipelines.map((p) => e.client.getPipeline({ pipelineId: p.id })));
  // updatedAt moves only when something changed; the whole detail is compared.
  return JSON.stringify(details);
}

function expectRefusalExplained(answer: { status: number; type: string; text: string }) {
  expect(answer.type).toBe('application/problem+json');
  const problem = JSON.parse(answer.text) as {
    detail?: string;
    errors?: { pointer: string; detail: string }[];
  };
  expect(problem.detail).toMatch(/\S/);
  if (answer.status === 422) {
    expect(problem.errors?.length).toBeGreaterThan(0);
    for (const error of problem.errors ?? []) expect(error.pointer).toMatch(/^\/|^$/);
  }
  expect(answer.text).not.toContain('Fuzz-Secret-1');
}

const POLLUTION = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty');
/** JSON-ish values, with pollution keys, unicode and long strings mixed in, nested deeply at times. */
const value = fc.letrec((tie) => ({
  any: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double(),
    fc.string({ unit: 'grapheme', maxLength: 40 }),
    fc.string({ minLength: 5000, maxLength: 20000 }),
    fc.array(tie('any'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.string({ maxLength: 12 }), POLLUTION), tie('any'), { maxKeys: 5 }),
  ),
})).any;
/** A body shaped like the route's, its values replaced at random, sometimes carrying pollution keys. */
const shaped = (outer: string, keys: string[]) =>
  fc.record({
    [outer]: fc.dictionary(
      fc.oneof(fc.constantFrom(...keys), POLLUTION, fc.string({ maxLength: 8 })),
      value,
      {
        maxKeys: 8,
      },
    ),
  });

const BODY_ROUTES: [string, string, fc.Arbitrary<unknown>][] = [
  [
    'PUT',
    `${jr}/config/credentials`,
    fc.oneof(value, shaped('hostCredentials', ['host', 'port', 'syncLibrary', 'password'])),
  ],
  ['PUT', `${jr}/config/specific`, fc.oneof(value, shaped('configuration', ['dateFormat', 'timeFormat']))],
  ['PUT', '/pipelines/p1/entities', fc.oneof(value, shaped('entities', ['0', 'source', 'target']))],
  ['POST', '/pipelines', fc.oneof(value, shaped('id', ['name']))],
  ['POST', '/pipelines/p1/agents', value],
];

describe('generated bodies', () => {
  it.each(BODY_ROUTES)(
    '%s %s: no 5xx; a refusal says why and changes nothing',
    async (method, path, bodies) => {
      await fc.assert(
        fc.asyncProperty(bodies, async (body) => {
          const before = await state();
          const answer = await send(method, path, JSON.stringify(body));
          expect(answer.status).toBeLessThan(500);
          if (answer.status >= 400) {
            expectRefusalExplained(answer);
            expect(await state()).toBe(before);
          }
          expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        }),
        { numRuns: 300, seed: seedOf(`${method} ${path}`) },
      );
    },
  );

  it('random ids in every path answer 404 or a refusal, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'grapheme', maxLength: 80 }), async (id) => {
        const encoded = encodeURIComponent(id);
        for (const path of [
          `/pipelines/${encoded}`,
          `/pipelines/p1/agents/${encoded}/backlog`,
          `/agent-types/${encoded}/schema`,
        ]) {
          const res = await fetch(e.url + path, { headers: { Authorization: `Bearer ${e.token}` } });
          expect(res.status).toBeLessThan(500);
        }
      }),
      { numRuns: 200, seed: seedOf('random ids') },
    );
  });
});

/** Every route that takes a body, from the route table, with the ids this file's pipeline has. */
const bodyRoutes = Object.entries(routes)
  .filter(([, r]) => 'body' in r && r.body !== undefined)
  .map(([id, r]) => {
    const path = r.path.replaceAll('{pipelineId}', 'p1').replaceAll('{agentId}', 'jr');
    if (path.includes('{')) throw new Error(`${id}: a path parameter this test does not fill: ${path}`);
    return [id, r.method, path] as const;
  });

describe('a member named twice', () => {
  it('the route table has the routes that take bodies', () => {
    expect(bodyRoutes.map(([id]) => id)).toContain('putCredentials');
    expect(bodyRoutes.length).toBeGreaterThanOrEqual(10);
  });

  it.each(bodyRoutes)(
    '%s (%s %s): 400 naming the member and its object, nothing stored',
    async (_id, method, path) => {
      const before = await state();
      const top = await send(method, path, '{"id":"dup-a","name":"x","id":"dup-b"}');
      expect(top.status).toBe(400);
      expectRefusalExplained(top);
      expect(JSON.parse(top.text)).toMatchObject({
        title: 'Duplicate member',
        detail: expect.stringContaining('"id" appears twice in the object at the top of the body'),
        errors: [{ pointer: '/id' }],
      });
      const nested = await send(
        method,
        path,
        '{"hostCredentials":{"connectionName":"a","host":"ibmi01","connectionName":"b"}}',
      );
      expect(nested.status).toBe(400);
      expect(JSON.parse(nested.text)).toMatchObject({
        errors: [{ pointer: '/hostCredentials/connectionName' }],
      });
      expect(await state()).toBe(before);
    },
  );

  it('a credentials PUT otherwise valid is refused whole: the stored connection name stays', async () => {
    const agent = { pipelineId: 'p1', agentId: 'jr' };
    const body = (name: string) =>
      `{"hostCredentials":{"connectionName":"${name}","host":"ibmi01","databaseName":"*SYSBAS","username":"CDCAGENT","password":"Fuzz-Secret-1","connectionName":"other"}}`;
    const answer = await send('PUT', `${jr}/config/credentials`, body('first'));
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('connectionName');
    const agentNow = await e.client.getAgent(agent);
    expect(JSON.stringify(agentNow)).not.toMatch(/"first"|"other"/);
  });
});

describe('bytes that are not a JSON request', () => {
  it('invalid UTF-8 is 400, a wrong content type 415, an oversized body 413: each explained, nothing changed', async () => {
    const before = await state();
    const invalid = await send(
      'PUT',
      `${jr}/config/specific`,
      new Blob([new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])]),
    );
    expect(invalid.status).toBe(400);
    expectRefusalExplained(invalid);
    const text = await send('PUT', `${jr}/config/specific`, '{"configuration":{}}', 'text/plain');
    expect(text.status).toBe(415);
    expectRefusalExplained(text);
    const huge = await send(
      'POST',
      '/pipelines',
      JSON.stringify({ id: 'big', name: 'x'.repeat(2 * 1024 * 1024) }),
    );
    expect(huge.status).toBe(413);
    expectRefusalExplained(huge);
    const deep = await send('PUT', '/pipelines/p1/entities', `${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    expect(deep.status).toBeLessThan(500);
    expect(await state()).toBe(before);
  });
});
