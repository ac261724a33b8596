// A stream pipeline through the control API, as the app sets it up: a NATS JetStream target agent
// checked (sign-on, JetStream, the stream) and a SQL Server pipeline captured into it; then a second
// pipeline whose source agent is the stream, applied into the engine's SQLite file, equal to SQL Server.
import type sql from 'mssql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { STORE_FILE } from '../../../main/engine/engine';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../../simulators/mssql';
import { describeTables } from '../../../main/agents/drivers/mssql/shape';
import type { TableShape } from '../../../main/agents/source';
import { configureSeedPipeline } from '../../helpers/changeTracking';
import { startTestEngine, type RunningEngine } from '../../helpers/engine';
import { deleteStreams, natsServers } from '../../helpers/natsServer';
import { sourceReplica, sqliteReplica } from '../../helpers/replica';
import { sandboxPool } from '../../helpers/sandbox';
import { until } from '../../helpers/until';

const SERVERS = natsServers();
const STREAM = `ENGINE_${process.pid}`;
const PREFIX = `engine${process.pid}`;
const tables = ['Customers', 'Orders'];
let sandbox: SandboxSqlServer;
let admin: sql.ConnectionPool;
let e: RunningEngine;
let shapes: TableShape[];

beforeAll(async () => {
  sandbox = await startSandboxSqlServer({ seed: true });
  admin = await sandboxPool(sandbox, { user: 'sa', password: 'Sandbox-Passw0rd', max: 2 });
  shapes = await describeTables(
    admin,
    tables.map((table) => ({ schema: 'dbo', table })),
  );
  e = await startTestEngine();
});
afterAll(async () => {
  await e?.stop();
  await admin?.close();
  await sandbox?.close();
  await deleteStreams(SERVERS, [STREAM, `KV_cdc_leases_${STREAM}`]);
});

const kinds = async (pipelineId: string) => (await e.client.listEvents({ pipelineId })).map((x) => x.kind);
const nats = { connectionName: 'cluster', servers: SERVERS };
const stream = { stream: STREAM, subjectPrefix: PREFIX };

describe('a stream pipeline through the control API', () => {
  it('captures SQL Server into JetStream, and applies the stream into another pipeline’s SQLite file', async () => {
    const capture = { pipelineId: 'capture', agentId: 'sales' };
    await configureSeedPipeline(e.client, sandbox, capture, tables);
    const target = { pipelineId: 'capture', agentId: 'stream' };
    await e.client.createAgent(
      { pipelineId: 'capture' },
      { id: 'stream', type: 'nats-jetstream', role: 'target' },
    );
    await e.client.putCredentials(target, { hostCredentials: nats });
    await e.client.putSpecific(target, { configuration: stream });
    const { checks } = await e.client.testAgent(target);
    expect(checks.map((c) => [c.id, c.status])).toEqual([
      ['credentials-set', 'passed'],
      ['configuration-set', 'passed'],
      ['host-reachable', 'passed'],
      ['connection', 'passed'],
      ['jetstream', 'passed'],
      ['publish-permission', 'passed'],
      ['stream', 'passed'],
      ['message-size', 'passed'],
    ]);
    expect(checks.find((c) => c.id === 'stream')?.message).toContain(
      'does not exist yet: the runner creates it at start',
    );
    // The pipeline's tables, described by its source agent, fit the servers' max_payload.
    expect(checks.at(-1)?.message).toMatch(/fits the servers' max_payload of \d+ bytes/);
    await e.client.startAgent(capture);
    await until(
      'captured',
      async () => (await kinds('capture')).filter((k) => k === 'snapshot-done').length === 2,
    );

    const apply = { pipelineId: 'apply', agentId: 'stream' };
    await e.client.createPipeline({}, { id: 'apply', name: 'apply' });
    await e.client.createAgent(
      { pipelineId: 'apply' },
      { id: 'stream', type: 'nats-jetstream', role: 'source' },
    );
    await e.client.putCredentials(apply, { hostCredentials: nats });
    await e.client.putSpecific(apply, { configuration: { ...stream, sourceDatabase: 'Sales' } });
    // The table picker lists the stream's tables, read back from its subjects.
    const catalog = await e.client.searchCatalog(apply, {});
    expect(catalog.tables.map((t) => `${t.schema}.${t.table}`).sort()).toEqual([
      'dbo.Customers',
      'dbo.Orders',
    ]);
    await e.client.putEntities(apply, {
      entities: tables.map((t) => ({
        source: { schema: 'dbo', table: t },
        target: { table: t.toLowerCase() },
      })),
    });
    await e.client.startAgent(apply);
    const path = join(e.dataDir, 'replicas', 'apply.sqlite');
    const same = async () => {
      for (const [i, s] of shapes.entries()) {
        const target = (() => {
          try {
            return sqliteReplica(path, tables[i]?.toLowerCase() ?? '', s).checksum;
          } catch {
            return null;
          }
        })();
        if (target !== (await sourceReplica(admin, s)).checksum) return false;
      }
      return true;
    };
    await until('applied', same, 30_000);
    await admin.request().batch("UPDATE dbo.Customers SET Country = N'DE' WHERE CustomerId = 2");
    await until('the change applied', same, 30_000);
    const backlog = await e.client.getBacklog(apply);
    expect(backlog.unavailableReason).toBeNull();
    // The gauge: each table's consumer pending count, nothing waiting once applied.
    expect(backlog.current).toMatchObject({
      rowsToRead: 0,
      measuredMinutesLeft: 0,
      perTable: [
        { table: 'dbo.Customers', rowsToRead: 0 },
        { table: 'dbo.Orders', rowsToRead: 0 },
      ],
    });
    expect((await e.client.getAgent(apply)).state).toBe('running');
    await e.client.stopAgent(apply);
    await e.client.stopAgent(capture);
  });
});

describe('a NATS token, password or NKey seed', () => {
  it('is sealed in the store, never answered, and kept by an edit that leaves it out', async () => {
    const TOKEN = 'Nats-T0ken-never-shown';
    await e.client.createPipeline({}, { id: 'sealed', name: 'sealed' });
    const ids = { pipelineId: 'sealed', agentId: 'stream' };
    await e.client.createAgent(
      { pipelineId: 'sealed' },
      { id: 'stream', type: 'nats-jetstream', role: 'target' },
    );
    await e.client.putCredentials(ids, { hostCredentials: { ...nats, token: TOKEN } });
    await e.client.putSpecific(ids, { configuration: stream });
    const answers = JSON.stringify([
      await e.client.getAgent(ids),
      await e.client.getPipeline({ pipelineId: 'sealed' }),
    ]);
    expect(answers).not.toContain(TOKEN);
    expect(readFileSync(join(e.dataDir, STORE_FILE)).includes(Buffer.from(TOKEN))).toBe(false);
    // An edit without the token keeps the stored one: the agent still signs on with it.
    await e.client.putCredentials(ids, { hostCredentials: { ...nats, connectionName: 'renamed' } });
    const { checks } = await e.client.testAgent(ids);
    expect(checks.find((c) => c.id === 'connection')).toMatchObject({ status: 'passed' });
    expect(JSON.stringify(checks)).not.toContain(TOKEN);
  });
});
