// Shaping through a running engine's control API (docs/shaping.md): a filter that does not parse is
// refused with its place; a pipeline of the sample Customers table hashes e-mails with the sealed
// salt, keeps one letter of each name and only French rows; the salt is in no answer and no
// diagnostics bundle; and a shaping changed while the pipeline is stopped copies the table again at
// its next Start.
import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { strFromU8, unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHAPING_CHANGED } from '../../../shared/shaping';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../../simulators/mssql';
import { SEED_AGENT_LOGIN } from '../../../simulators/mssql/seed';
import { configureSeedPipeline } from '../../helpers/changeTracking';
import { refusal, startTestEngine, type RunningEngine } from '../../helpers/engine';
import { until } from '../../helpers/until';

const SALT = 'the-salt-of-the-sales-pipeline-93ab';
const ids = { pipelineId: 'shaped', agentId: 'sales' };
let sandbox: SandboxSqlServer;
let e: RunningEngine;

const replicaRows = () => {
  const db = new Database(join(e.dataDir, 'replicas', 'shaped.sqlite'), { readonly: true, timeout: 5000 });
  try {
    return db.prepare('SELECT * FROM customers ORDER BY CustomerId').all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
};
const events = async () => e.client.listEvents({ pipelineId: ids.pipelineId });
const customers = (shaping: object) => ({
  entities: [
    {
      source: { schema: 'dbo', table: 'Customers' },
      target: { table: 'customers' },
      rowFilter: "Country = 'FR'",
      ...shaping,
    },
  ],
});

beforeAll(async () => {
  sandbox = await startSandboxSqlServer({ seed: true });
  e = await startTestEngine();
  await configureSeedPipeline(e.client, sandbox, ids, []);
  await e.client.putCredentials(ids, {
    hostCredentials: {
      connectionName: ids.agentId,
      host: '127.0.0.1',
      port: sandbox.port,
      databaseName: 'Sales',
      username: SEED_AGENT_LOGIN.name,
      password: SEED_AGENT_LOGIN.password,
      maskSalt: SALT,
    },
  });
});
afterAll(async () => {
  await e?.stop();
  await sandbox?.close();
});

describe('shaping through the control API', () => {
  it('refuses a filter that does not parse, naming the field and the place', async () => {
    const refused = await refusal(e.client.putEntities(ids, customers({ rowFilter: "Country = 'FR' and" })));
    expect(refused.status).toBe(422);
    expect(refused.problem?.errors).toEqual([
      {
        pointer: '/entities/0/rowFilter',
        detail: expect.stringContaining(
          'expected a column name, found the end of the filter (at character 19)',
        ),
      },
    ]);
  });

  it('lets the members of a shard share a table, and nothing else', async () => {
    const both = (a: object, b: object) => ({
      entities: [
        { source: { schema: 'dbo', table: 'Customers' }, target: { table: 'everything' }, ...a },
        { source: { schema: 'dbo', table: 'Orders' }, target: { table: 'Everything' }, ...b },
      ],
    });
    const plain = await refusal(e.client.putEntities(ids, both({}, {})));
    expect(plain.status).toBe(422);
    expect(plain.problem?.errors?.[0]?.detail).toMatch(
      /would write one table: sqlite takes both names for the same table\. To write several source tables into one table on purpose, declare each a member of one shard/,
    );
    const twins = await refusal(
      e.client.putEntities(
        ids,
        both({ shard: { column: 'origin', value: 'x' } }, { shard: { column: 'ORIGIN', value: 'x' } }),
      ),
    );
    expect(twins.problem?.errors?.[0]?.detail).toMatch(/members of one shard with the same value "x"/);
    // One declares a shard, the other does not: still one table written by two entities.
    const half = await refusal(
      e.client.putEntities(ids, both({ shard: { column: 'origin', value: 'c' } }, {})),
    );
    expect(half.status).toBe(422);
    const members = await e.client.putEntities(
      ids,
      both(
        { shard: { column: 'origin', value: 'customers' } },
        { shard: { column: 'ORIGIN', value: 'orders' } },
      ),
    );
    expect(members.entities).toHaveLength(2);
  });

  it('copies only the rows the filter lets through, masked, with the salt in no answer or bundle', async () => {
    await e.client.putEntities(
      ids,
      customers({
        columnShaping: {
          Email: { mask: { kind: 'hash' } },
          Name: { mask: { kind: 'keepFirst', chars: 1 } },
          CreatedAt: { targetName: 'Created' },
        },
      }),
    );
    await e.client.startAgent(ids);
    await until('the copy', async () => (await events()).some((x) => x.kind === 'snapshot-done'));
    const hashed = (v: string) => createHmac('sha256', SALT).update(v, 'utf8').digest('hex');
    expect(replicaRows()).toEqual([
      {
        CustomerId: 3,
        Name: `M${'*'.repeat(10)}`,
        Email: null,
        Country: 'FR',
        Created: '2026-01-07 11:45:00.000',
      },
      {
        CustomerId: 4,
        Name: `É${'*'.repeat(17)}`,
        Email: hashed('emilie@example.fr'),
        Country: 'FR',
        Created: '2026-02-01 08:15:00.000',
      },
    ]);
    const agent = await e.client.getAgent(ids);
    expect(agent.hostCredentials).toMatchObject({ maskSalt: null, maskSaltSet: true });
    const bundle = unzipSync(await e.client.createDiagnostics({}));
    const text = Object.values(bundle)
      .map((b) => strFromU8(b))
      .join('\n');
    expect(text).not.toContain(SALT);
    expect(text).toContain("Country = 'FR'");
  });

  it('copies the table again at the next Start after its shaping changed while stopped', async () => {
    await e.client.stopAgent(ids);
    const answer = await e.client.putEntities(
      ids,
      customers({ columnShaping: { Name: { mask: { kind: 'keepLast', chars: 2 } } } }),
    );
    expect(answer.warnings).toEqual([
      'dbo.Customers: its shaping changed, so the rows already at the target are copied again at the next Start.',
    ]);
    const copies = async () => (await events()).filter((x) => x.kind === 'snapshot-done').length;
    const before = await copies();
    await e.client.startAgent(ids);
    await until('the copy again', async () => (await copies()) > before);
    const started = (await events()).findLast((x) => x.kind === 'snapshot-started');
    expect(started?.data).toMatchObject({ table: 'dbo.Customers', reason: SHAPING_CHANGED });
    expect(replicaRows().map((r) => [r.CustomerId, r.Name, r.Email])).toEqual([
      [3, `${'*'.repeat(9)}ie`, null],
      [4, `${'*'.repeat(16)}et`, 'emilie@example.fr'],
    ]);
  });
});
