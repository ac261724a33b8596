// The runner inside the local engine, through the control API: start a change-tracking source agent
// and its pipeline replicates into the default SQLite file, or into the PostgreSQL target agent;
// pause, resume and stop; events kept; a failure that cannot heal stops the agent with its reason.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type sql from 'mssql';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../../simulators/mssql';
import { describeTables } from '../../../main/agents/drivers/mssql/shape';
import type { TableShape } from '../../../main/agents/source';
import { startTestEngine, type RunningEngine } from '../../helpers/engine';
import { sandboxPool } from '../../helpers/sandbox';
import { configureSeedPipeline } from '../../helpers/changeTracking';
import {
  POSTGRES,
  postgresClient,
  postgresReplica,
  sourceReplica,
  sqliteReplica,
} from '../../helpers/replica';

let sandbox: SandboxSqlServer;
let admin: sql.ConnectionPool;
let e: RunningEngine;
let shapes: TableShape[];
const tables = ['Customers', 'Orders'];

async function configureSource(pipelineId: string, entities: string[] = tables) {
  const ids = { pipelineId, agentId: 'sales' };
  await configureSeedPipeline(e.client, sandbox, ids, entities);
  return ids;
}

async function until<T>(what: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await what();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}
const kinds = async (pipelineId: string) => (await e.client.listEvents({ pipelineId })).map((x) => x.kind);
const count = async (pipelineId: string, kind: string) =>
  (await kinds(pipelineId)).filter((k) => k === kind).length;

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
});

describe('a pipeline without a target agent: the SQLite file in the data folder', () => {
  it('replicates, pauses, resumes and stops through the control API', async () => {
    const ids = await configureSource('to-file');
    expect((await e.client.startAgent(ids)).state).toBe('running');
    await until(async () => ((await count('to-file', 'snapshot-done')) === 2 ? true : undefined));
    const path = join(e.dataDir, 'replicas', 'to-file.sqlite');
    const same = async () =>
      shapes.every((s, i) => {
        const target = sqliteReplica(path, tables[i]?.toLowerCase() ?? '', s);
        return target.checksum === expected[i]?.checksum;
      });
    let expected = await Promise.all(shapes.map((s) => sourceReplica(admin, s)));
    expect(await same()).toBe(true);
    expect(await kinds('to-file')).toContain('snapshot-progress');

    await admin.request().batch("UPDATE dbo.Customers SET Country = 'DE' WHERE CustomerId = 2");
    await until(async () => ((await count('to-file', 'batch-applied')) >= 1 ? true : undefined));
    expected = await Promise.all(shapes.map((s) => sourceReplica(admin, s)));
    expect(await same()).toBe(true);

    expect((await e.client.pauseAgent(ids)).state).toBe('paused');
    await admin.request().batch("UPDATE dbo.Orders SET Status = N'Cancelled' WHERE OrderId = 1000");
    // Nothing is applied while paused: once the source shows the change waiting, none was applied.
    await until(async () => {
      const { current } = await e.client.getBacklog(ids);
      return current && (current.versionsBehind ?? 0) > 0 ? true : undefined;
    });
    expect(await count('to-file', 'batch-applied')).toBe(1);
    expect((await e.client.startAgent(ids)).state).toBe('running');
    await until(async () => ((await count('to-file', 'batch-applied')) >= 2 ? true : undefined));
    expected = await Promise.all(shapes.map((s) => sourceReplica(admin, s)));
    expect(await same()).toBe(true);
    // The running pipeline kept backlog points: the history of GET …/backlog.
    const backlog = await e.client.getBacklog(ids);
    expect(backlog.history.length).toBeGreaterThan(0);
    expect(backlog.current).toMatchObject({ rowsToRead: 0, versionsBehind: 0 });
    expect((await e.client.stopAgent(ids)).state).toBe('stopped');
  });

  it('runs again from its checkpoint after the engine restarts', async () => {
    const ids = await configureSource('restart', ['Customers']);
    await e.client.startAgent(ids);
    await until(async () => ((await count('restart', 'snapshot-done')) === 1 ? true : undefined));
    // The engine stops with the pipeline running, and starts again on the same data folder.
    const { dataDir, token } = e;
    await e.stop();
    await admin.request().batch("UPDATE dbo.Customers SET Name = N'Grace B. Hopper' WHERE CustomerId = 2");
    e = await startTestEngine({ dataDir, token });
    await until(async () => ((await count('restart', 'batch-applied')) >= 1 ? true : undefined));
    expect(await kinds('restart')).toContain('resumed-after-restart');
    expect(await count('restart', 'snapshot-done')).toBe(1);
    const path = join(e.dataDir, 'replicas', 'restart.sqlite');
    expect(sqliteReplica(path, 'customers', shapes[0] as TableShape).checksum).toBe(
      (await sourceReplica(admin, shapes[0] as TableShape)).checksum,
    );
    await e.client.stopAgent(ids);
  });
});

describe('a PostgreSQL target agent', () => {
  const schema = `cdc_engine_${process.pid}`;
  let client: pg.Client;
  beforeAll(async () => {
    client = await postgresClient();
  });
  afterAll(async () => {
    await client?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client?.end();
  });

  it('receives the pipeline, equal to the source', async () => {
    const ids = await configureSource('to-pg');
    await e.client.createAgent({ pipelineId: 'to-pg' }, { id: 'pg', type: 'postgresql', role: 'target' });
    await e.client.putCredentials(
      { pipelineId: 'to-pg', agentId: 'pg' },
      {
        hostCredentials: {
          connectionName: 'local pg',
          host: POSTGRES.host,
          port: POSTGRES.port,
          databaseName: POSTGRES.database,
          username: POSTGRES.user,
          password: 'unused-with-trust',
        },
      },
    );
    await e.client.putSpecific({ pipelineId: 'to-pg', agentId: 'pg' }, { configuration: { schema } });
    const checked = await e.client.testAgent({ pipelineId: 'to-pg', agentId: 'pg' });
    expect(checked.checks.map((c) => [c.id, c.status])).toEqual([
      ['credentials-set', 'passed'],
      ['configuration-set', 'passed'],
      ['host-reachable', 'passed'],
      ['connection', 'passed'],
      ['target-writable', 'passed'],
    ]);
    await e.client.startAgent(ids);
    await until(async () => ((await count('to-pg', 'snapshot-done')) === 2 ? true : undefined));
    for (const [i, s] of shapes.entries()) {
      const target = await postgresReplica(client, schema, tables[i]?.toLowerCase() ?? '', s);
      expect(target.checksum).toBe((await sourceReplica(admin, s, 6)).checksum);
    }
    await e.client.stopAgent(ids);
  });
});

describe('a SQLite target agent', () => {
  it('is checked for a writable folder, with no server to reach', async () => {
    // A file where the folder should be: nothing can be created below it. Outside the data folder,
    // which holds no replica but in its replicas folder (nameRules.ts).
    const blocker = join(mkdtempSync(join(tmpdir(), 'cdc-blocker-')), 'blocker');
    writeFileSync(blocker, '');
    await e.client.createPipeline({}, { id: 'file-check', name: 'file check' });
    await e.client.createAgent({ pipelineId: 'file-check' }, { id: 'file', type: 'sqlite', role: 'target' });
    const ids = { pipelineId: 'file-check', agentId: 'file' };
    await e.client.putCredentials(ids, {
      hostCredentials: { connectionName: 'f', path: join(blocker, 'replicas', 'replica.sqlite') },
    });
    await e.client.putSpecific(ids, { configuration: {} });
    const { checks } = await e.client.testAgent(ids);
    expect(checks.map((c) => c.id)).toEqual(['credentials-set', 'configuration-set', 'target-writable']);
    expect(checks[2]).toMatchObject({
      status: 'failed',
      message: expect.stringContaining(`cannot write in ${join(blocker, 'replicas')} (ENOTDIR)`),
    });
  });
});

describe('a failure that cannot heal', () => {
  it('stops the agent as failed, with the reason kept', async () => {
    const ids = await configureSource('broken', ['NoSuchTable']);
    await e.client.startAgent(ids);
    const agent = await until(async () => {
      const a = await e.client.getAgent(ids);
      return a.state === 'failed' ? a : undefined;
    });
    expect(agent.failureReason).toBe(
      'The source table dbo.NoSuchTable does not exist, or the login cannot see it.',
    );
    expect(await kinds('broken')).toContain('failed');
  });
});
