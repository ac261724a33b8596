// Names that cannot live together are refused before anything is stored: an entity writing the engine's
// own tables, two entities (of one pipeline or of two) writing one target table as the target compares
// names, a source table read twice, the agent's own objects as a source, a replica file that is one of
// the engine's own, and journal settings that would meet the agent's work files or a source library.
import { POSTGRES } from '../../helpers/replica';
import { linkSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Entity } from '../../../shared/controlApi';
import { STORE_FILE } from '../../../main/engine/engine';
import { sqlitePlugin } from '../../../main/agents/sqlite/plugin';
import { refusalInWords, startTestEngine, type RunningEngine } from '../../helpers/engine';

let e: RunningEngine;
beforeAll(async () => {
  e = await startTestEngine();
});
afterAll(async () => {
  await e?.stop();
});

type Body = { entities: Partial<Entity>[] };
const entity = (source: [string, string], target: { schema?: string; table: string }) => ({
  source: { schema: source[0], table: source[1] },
  target,
});

let made = 0;
async function pipeline(
  source: 'change-tracking' | 'journal',
  target?: {
    type: 'sqlite' | 'postgresql' | 'change-tracking' | 'nats-jetstream';
    hostCredentials: object;
    configuration?: object;
  },
  hostCredentials: object = {},
) {
  const id = `p${++made}`;
  await e.client.createPipeline({}, { id, name: id });
  await e.client.createAgent({ pipelineId: id }, { id: 'src', type: source, role: 'source' });
  await e.client.putCredentials(
    { pipelineId: id, agentId: 'src' },
    {
      hostCredentials: {
        connectionName: 'src',
        host: source === 'journal' ? `ibmi${made}.example` : 'sql.example',
        databaseName: source === 'journal' ? '*SYSBAS' : 'Sales',
        username: 'AGENT',
        password: 'secret-name-rules',
        ...hostCredentials,
      },
    },
  );
  if (target) {
    await e.client.createAgent({ pipelineId: id }, { id: 'dst', type: target.type, role: 'target' });
    await e.client.putCredentials(
      { pipelineId: id, agentId: 'dst' },
      { hostCredentials: { connectionName: 'dst', ...target.hostCredentials } },
    );
    await e.client.putSpecific(
      { pipelineId: id, agentId: 'dst' },
      { configuration: target.configuration ?? {} },
    );
  }
  return id;
}
const put = (pipelineId: string, body: Body) => e.client.putEntities({ pipelineId }, body as never);

const postgres = (schema?: string) => ({
  type: 'postgresql' as const,
  hostCredentials: {
    host: '127.0.0.1',
    port: POSTGRES.port,
    databaseName: 'test',
    username: 'postgres',
    password: 'pg',
  },
  configuration: schema ? { schema } : {},
});
const sqlServer = {
  type: 'change-tracking' as const,
  hostCredentials: {
    host: 'Target.example',
    port: 1433,
    databaseName: 'Copy',
    username: 'sa',
    password: 'x',
  },
};

describe("the engine's own tables are never an entity's target", () => {
  it.each(['_cdc_checkpoint', '_CDC_Checkpoint', 'sqlite_stat1', 'Orders__rebuild', 'CDC_OPEN_orders'])(
    'SQLite refuses %j with 422 naming the field',
    async (table) => {
      const id = await pipeline('change-tracking');
      const r = await refusalInWords(put(id, { entities: [entity(['dbo', 'Orders'], { table })] }));
      expect(r.status).toBe(422);
      expect(r.pointers).toEqual(['/entities/0/target/table']);
      expect(r.detail).toMatch(/keeps|checkpoint|scratch|history indexes/);
      expect((await e.client.listEntities({ pipelineId: id })).entities).toEqual([]);
    },
  );

  it('PostgreSQL refuses its checkpoint table in any schema, a staging name and an index name', async () => {
    const id = await pipeline('change-tracking', postgres('shared'));
    for (const target of [
      { table: '_cdc_checkpoint' },
      { schema: 'other', table: '_cdc_checkpoint' },
      { table: 'cdc_stage_1' },
      // A history table's index shares the schema's names with tables.
      { table: 'cdc_open_orders' },
    ]) {
      const r = await refusalInWords(put(id, { entities: [entity(['dbo', 'Orders'], target)] }));
      expect(r.status).toBe(422);
      expect(r.pointers).toEqual(['/entities/0/target/table']);
    }
  });

  it('a SQL Server target refuses the SYNC schema in any case (its agents’ checkpoints)', async () => {
    const id = await pipeline('journal', sqlServer);
    const r = await refusalInWords(
      put(id, { entities: [entity(['SHOP', 'ORDERS'], { schema: 'sync', table: 'CT_CHECKPOINT' })] }),
    );
    expect(r.status).toBe(422);
    expect(r.detail).toMatch(/SYNC schema/);
  });
});

describe('two entities never write one target table', () => {
  it('SQLite folds ASCII letters only: same and SAME clash, É and é do not', async () => {
    const id = await pipeline('change-tracking');
    const r = await refusalInWords(
      put(id, {
        entities: [entity(['dbo', 'A'], { table: 'same' }), entity(['dbo', 'B'], { table: 'SAME' })],
      }),
    );
    expect(r.status).toBe(422);
    expect(r.pointers).toEqual(['/entities/1/target/table']);
    expect(r.detail).toMatch(/Entities 1 \(dbo\.A → same\) and 2 \(dbo\.B → SAME\)/);
    await put(id, {
      entities: [entity(['dbo', 'A'], { table: 'Éte' }), entity(['dbo', 'B'], { table: 'éte' })],
    });
  });

  it('SQLite refuses target.schema instead of ignoring it', async () => {
    const id = await pipeline('change-tracking');
    const r = await refusalInWords(
      put(id, {
        entities: [
          entity(['dbo', 'A'], { schema: 'x', table: 't' }),
          entity(['dbo', 'B'], { schema: 'y', table: 't' }),
        ],
      }),
    );
    expect(r.status).toBe(422);
    expect(r.pointers).toContain('/entities/0/target/schema');
    expect(r.detail).toMatch(/no schemas/);
  });

  it("PostgreSQL compares names exactly after its 63-byte cut, and honours each entity's schema", async () => {
    const id = await pipeline('change-tracking', postgres());
    const long = 'x'.repeat(63);
    const r = await refusalInWords(
      put(id, {
        entities: [
          entity(['dbo', 'A'], { table: `${long}_a` }),
          entity(['dbo', 'B'], { table: `${long}_b` }),
        ],
      }),
    );
    expect(r.status).toBe(422);
    // Multi-byte characters are cut whole: 31 × "é" (62 bytes) + "é" would pass 63.
    const e31 = 'é'.repeat(31);
    expect(
      (
        await refusalInWords(
          put(id, {
            entities: [
              entity(['dbo', 'A'], { table: `${e31}éa` }),
              entity(['dbo', 'B'], { table: `${e31}éb` }),
            ],
          }),
        )
      ).status,
    ).toBe(422);
    await put(id, {
      entities: [
        entity(['dbo', 'A'], { table: 'Same' }),
        entity(['dbo', 'B'], { table: 'same' }),
        entity(['dbo', 'C'], { schema: 'other', table: 'Same' }),
      ],
    });
  });

  it('entities of two pipelines writing one database clash with 409 naming the other pipeline', async () => {
    const first = await pipeline('change-tracking', postgres('shop'));
    await put(first, { entities: [entity(['dbo', 'Orders'], { table: 'orders' })] });
    const second = await pipeline('journal', postgres('public'));
    const r = await refusalInWords(
      put(second, { entities: [entity(['SHOP', 'ORDERS'], { schema: 'shop', table: 'orders' })] }),
    );
    expect(r.status).toBe(409);
    expect(r.detail).toContain(`pipeline "${first}"`);
    // The same name in another database is another table.
    const elsewhere = await pipeline('journal', {
      ...postgres('shop'),
      hostCredentials: { ...postgres().hostCredentials, databaseName: 'other' },
    });
    await put(elsewhere, { entities: [entity(['SHOP', 'ORDERS'], { table: 'orders' })] });
    // A settings PUT that moves a pipeline onto the other's tables is refused too.
    const r2 = await refusalInWords(
      e.client
        .putSpecific({ pipelineId: elsewhere, agentId: 'dst' }, { configuration: { schema: 'shop' } })
        .then(() =>
          e.client.putCredentials(
            { pipelineId: elsewhere, agentId: 'dst' },
            { hostCredentials: { connectionName: 'dst', ...postgres().hostCredentials } },
          ),
        ),
    );
    expect(r2.status).toBe(409);
  });

  it('two pipelines publishing one table to one subject of a stream clash, whatever their target names', async () => {
    const stream = (subjectPrefix: string) => ({
      type: 'nats-jetstream' as const,
      hostCredentials: { servers: 'nats-1.example:4222, nats-2.example:4222' },
      configuration: { stream: 'CDC', subjectPrefix },
    });
    const first = await pipeline('change-tracking', stream('shop'));
    await put(first, { entities: [entity(['dbo', 'Orders'], { table: 'orders' })] });
    const second = await pipeline('change-tracking', stream('shop'));
    const r = await refusalInWords(
      put(second, { entities: [entity(['dbo', 'Orders'], { table: 'other_name' })] }),
    );
    expect(r.status).toBe(409);
    expect(r.detail).toContain(`pipeline "${first}" would publish to one subject (shop.Sales.dbo.Orders)`);
    expect(r.detail).toContain('another subject prefix or stream');
    // Another prefix is another subject; another source database too.
    await put(await pipeline('change-tracking', stream('plant')), {
      entities: [entity(['dbo', 'Orders'], { table: 'orders' })],
    });
    await put(await pipeline('change-tracking', stream('shop'), { databaseName: 'Plant' }), {
      entities: [entity(['dbo', 'Orders'], { table: 'orders' })],
    });
  });

  it("a SQLite target agent on another pipeline's replica file meets that pipeline's tables", async () => {
    const first = await pipeline('change-tracking');
    await put(first, { entities: [entity(['dbo', 'Orders'], { table: 'orders' })] });
    const file = join(e.dataDir, 'replicas', `${first}.sqlite`);
    const second = await pipeline('change-tracking', { type: 'sqlite', hostCredentials: { path: file } });
    const r = await refusalInWords(
      put(second, { entities: [entity(['dbo', 'Other'], { table: 'ORDERS' })] }),
    );
    expect(r.status).toBe(409);
    expect(r.detail).toContain(`pipeline "${first}"`);
  });
});

describe('a source table is read once, and never one of the agent’s own', () => {
  it('the journal compares IBM i system names: shop.orders is SHOP.ORDERS', async () => {
    const id = await pipeline('journal');
    const r = await refusalInWords(
      put(id, {
        entities: [entity(['SHOP', 'ORDERS'], { table: 'a' }), entity(['shop', 'orders'], { table: 'b' })],
      }),
    );
    expect(r.status).toBe(422);
    expect(r.pointers).toEqual(['/entities/1/source']);
  });

  it('change tracking refuses a table given twice, and anything in the SYNC schema', async () => {
    const id = await pipeline('change-tracking');
    expect(
      (
        await refusalInWords(
          put(id, { entities: [entity(['dbo', 'T'], { table: 'a' }), entity(['dbo', 'T'], { table: 'b' })] }),
        )
      ).status,
    ).toBe(422);
    const r = await refusalInWords(
      put(id, { entities: [entity(['Sync', 'CT_CHECKPOINT'], { table: 'loop' })] }),
    );
    expect(r.status).toBe(422);
    expect(r.detail).toMatch(/SYNC schema/);
  });

  it("the journal refuses its sync library as a source library or a journal's library", async () => {
    const id = await pipeline('journal', undefined, { syncLibrary: 'SYNCL' });
    const own = await refusalInWords(
      put(id, { entities: [entity(['SYNCL', 'JOURNALSCP'], { table: 'loop' })] }),
    );
    expect(own.status).toBe(422);
    expect(own.detail).toMatch(/sync library/);
    const journal = await refusalInWords(
      put(id, {
        entities: [
          { ...entity(['SHOP', 'ORDERS'], { table: 'o' }), journal: { library: 'SYNCL', name: 'QSQJRN' } },
        ],
      }),
    );
    expect(journal.status).toBe(422);
  });

  it('a syncLibrary set to a source library is refused with 409 naming the entity', async () => {
    const id = await pipeline('journal');
    await put(id, { entities: [entity(['SHOP', 'ORDERS'], { table: 'orders' })] });
    const r = await refusalInWords(
      e.client.putCredentials(
        { pipelineId: id, agentId: 'src' },
        {
          hostCredentials: {
            connectionName: 'src',
            host: `ibmi${made}.example`,
            databaseName: '*SYSBAS',
            username: 'AGENT',
            syncLibrary: 'shop',
          },
        },
      ),
    );
    expect(r.status).toBe(409);
    expect(r.detail).toContain('SHOP.ORDERS');
    expect((await e.client.getAgent({ pipelineId: id, agentId: 'src' })).hostCredentials?.syncLibrary).toBe(
      'SYNC',
    );
  });

  it.each(['JRNOUT', 'jrnffd', 'FFDOUT'])(
    'journalCheckpointTable %j, a work file of the agent, is refused',
    async (name) => {
      const id = await pipeline('journal');
      const r = await refusalInWords(
        e.client.putCredentials(
          { pipelineId: id, agentId: 'src' },
          {
            hostCredentials: {
              connectionName: 'src',
              host: `ibmi${made}.example`,
              databaseName: '*SYSBAS',
              username: 'AGENT',
              journalCheckpointTable: name,
            },
          },
        ),
      );
      expect(r.status).toBe(422);
      expect(r.pointers).toEqual(['/hostCredentials/journalCheckpointTable']);
    },
  );
});

describe("a replica file is never one of the engine's own", () => {
  const sqliteAt = (path: string) => ({ type: 'sqlite' as const, hostCredentials: { path } });

  it('the store itself, a symbolic link to it, a hard link to it and any file in the data folder are refused', async () => {
    const store = join(e.dataDir, STORE_FILE);
    const outside = join(e.dataDir, '..', `links-${Date.now()}`);
    mkdirSync(outside);
    symlinkSync(store, join(outside, 'soft.sqlite'));
    linkSync(store, join(outside, 'hard.sqlite'));
    for (const path of [
      store,
      join(outside, 'soft.sqlite'),
      join(outside, 'hard.sqlite'),
      join(e.dataDir, 'tls', 'x.sqlite'),
    ]) {
      const r = await refusalInWords(pipeline('change-tracking', sqliteAt(path)));
      expect(r.status, path).toBe(422);
      expect(r.pointers).toEqual(['/hostCredentials/path']);
    }
    await pipeline('change-tracking', sqliteAt(join(e.dataDir, 'replicas', 'mine.sqlite')));
    await pipeline('change-tracking', sqliteAt(join(outside, 'replica.sqlite')));
  });
});

describe("the engine's admin token", () => {
  it('cannot be changed through a pipeline: every way to the store is refused, and the token still works', async () => {
    const store = join(e.dataDir, STORE_FILE);
    const links = join(e.dataDir, '..', `token-${Date.now()}`);
    mkdirSync(links);
    linkSync(store, join(links, 'hard.sqlite'));
    symlinkSync(e.dataDir, join(links, 'data'));
    for (const path of [
      store,
      join(links, 'hard.sqlite'),
      join(links, 'data', STORE_FILE),
      `${e.dataDir}/./${STORE_FILE}`,
    ]) {
      const r = await refusalInWords(
        pipeline('change-tracking', { type: 'sqlite', hostCredentials: { path } }),
      );
      expect(r.status, path).toBe(422);
    }
    // Stored before the rules (an older engine's store): the check says so and the start refuses,
    // before any database is reached.
    const id = await pipeline('change-tracking', {
      type: 'sqlite',
      hostCredentials: { path: join(links, 'fine.sqlite') },
    });
    await put(id, { entities: [entity(['dbo', 'Meta'], { table: 'meta' })] });
    await e.client.putSpecific({ pipelineId: id, agentId: 'src' }, { configuration: {} });
    const { repo } = e.engine.deps;
    const tokenHash = repo.meta('admin_token_sha256');
    const row = repo.storedAgent(id, 'dst');
    if (!row?.secretsSealed) throw new Error('the target agent was not stored');
    repo.putCredentials(
      row,
      { connectionName: 'dst', path: join(links, 'hard.sqlite') },
      row.secretsSealed,
      'configured',
      new Date().toISOString(),
    );
    const { checks } = await e.client.testAgent({ pipelineId: id, agentId: 'src' });
    expect(checks.find((c) => c.id === 'names')).toMatchObject({ status: 'failed' });
    expect(checks.map((c) => c.id)).not.toContain('connection');
    const start = await refusalInWords(e.client.startAgent({ pipelineId: id, agentId: 'src' }));
    expect(start.status).toBe(409);
    expect(start.detail).toMatch(/the same file by device and inode/);
    expect(repo.meta('admin_token_sha256')).toBe(tokenHash);
    // A link made after every check: the runner's own open of the file still refuses it.
    const opened = sqlitePlugin.target?.open(
      {
        pipelineId: id,
        id: 'dst',
        type: 'sqlite',
        role: 'target',
        hostCredentials: { connectionName: 'dst', path: join(links, 'data', STORE_FILE) },
        configuration: { batchRows: 10 },
      },
      { dataDir: e.dataDir, pipelineId: id },
    );
    await expect(opened?.open()).rejects.toThrow(/engine's data folder/);
    expect((await e.client.listPipelines({})).length).toBeGreaterThan(0);
  });
});
