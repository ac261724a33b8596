// The change-tracking agent through the local engine's control API, on the sandbox SQL Server: the
// spec's two PUTs, POST …/test with the agent's checks, POST …/fixes/change-retention, GET …/backlog.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../../../simulators/mssql';
import { openChangeTrackingSource } from '../../../../main/agents/changeTracking/source';
import { DBA, sandboxPool } from '../../../helpers/sandbox';
import { ctConfiguration, sandboxCredentials } from '../../../helpers/changeTracking';
import { startTestEngine, type RunningEngine } from '../../../helpers/engine';
import { until } from '../../../helpers/until';
import { CHANGE_TRACKING_KEYLESS } from '../../../../shared/agents/changeTracking';

let sandbox: SandboxSqlServer;
let e: RunningEngine;
const ids = { pipelineId: 'p1', agentId: 'sql' };
let stopped = false;

beforeAll(async () => {
  sandbox = await startSandboxSqlServer({ logins: [DBA], databases: ['Sales'] });
  const pool = await sandboxPool(sandbox);
  await pool.request().batch(`ALTER DATABASE Sales SET CHANGE_TRACKING = ON (CHANGE_RETENTION = 2 DAYS);
    ALTER DATABASE Sales SET ALLOW_SNAPSHOT_ISOLATION ON;
    CREATE TABLE dbo.Orders (Id INT PRIMARY KEY, Note NVARCHAR(20));
    ALTER TABLE dbo.Orders ENABLE CHANGE_TRACKING;
    CREATE TABLE dbo.AuditLog (Message NVARCHAR(100));`);
  await pool.close();
  e = await startTestEngine();
  await e.client.createPipeline({}, { id: 'p1', name: 'p1' });
  await e.client.createAgent({ pipelineId: 'p1' }, { id: 'sql', type: 'change-tracking', role: 'source' });
  await e.client.putCredentials(ids, {
    hostCredentials: {
      connectionName: 'sandbox',
      host: '127.0.0.1',
      port: sandbox.port,
      databaseName: 'Sales',
      username: DBA.name,
      password: DBA.password,
    },
  });
  await e.client.putSpecific(ids, { configuration: { sourceChangeRetentionDays: 5 } });
});
afterAll(async () => {
  if (!stopped) await e?.stop();
  await sandbox?.close();
});

describe('POST …/config/credentials/test', () => {
  const credentials: Record<string, unknown> = {
    connectionName: 'sandbox',
    host: '127.0.0.1',
    databaseName: 'Sales',
    username: DBA.name,
  };
  const without = (key: string) =>
    Object.fromEntries(
      Object.entries({ ...credentials, port: sandbox.port, password: DBA.password }).filter(
        ([k]) => k !== key,
      ),
    );

  it('signs on with the stored password when none is given, and stores nothing', async () => {
    const before = await e.client.getAgent(ids);
    const events = (await e.client.listEvents({ pipelineId: 'p1' })).length;
    expect(await e.client.testCredentials(ids, { hostCredentials: without('password') })).toMatchObject({
      id: 'connection',
      status: 'passed',
      message: expect.stringContaining(`Logged in as "${DBA.name}"`),
    });
    const wrong = await e.client.testCredentials(ids, {
      hostCredentials: { ...without('password'), password: 'Not-The-Password' },
    });
    expect(wrong).toMatchObject({ status: 'failed', message: expect.stringContaining('18456') });
    expect(JSON.stringify(wrong)).not.toContain('Not-The-Password');
    expect(await e.client.getAgent(ids)).toEqual(before);
    expect((await e.client.listEvents({ pipelineId: 'p1' })).length).toBe(events);
  });

  it('refuses a value by field, as the PUT does', async () => {
    const answer = await fetch(`${e.url}/pipelines/p1/agents/sql/config/credentials/test`, {
      method: 'POST',
      headers: { authorization: `Bearer ${e.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ hostCredentials: { ...without('password'), port: 70000 } }),
    });
    expect(answer.status).toBe(422);
    expect(((await answer.json()) as { errors: { pointer: string }[] }).errors).toEqual([
      expect.objectContaining({ pointer: '/hostCredentials/port' }),
    ]);
  });
});

describe('POST …/test on a change-tracking agent', () => {
  it("answers the agent's checks, with the spec's error for a table without a primary key", async () => {
    await e.client.putEntities(
      { pipelineId: 'p1' },
      {
        entities: [
          { source: { schema: 'dbo', table: 'Orders' }, target: { table: 'Orders' } },
          { source: { schema: 'dbo', table: 'AuditLog' }, target: { table: 'AuditLog' } },
        ],
      },
    );
    const answer = await e.client.testAgent(ids);
    const byId = Object.fromEntries(answer.checks.map((c) => [c.id, c]));
    expect(byId['connection']?.status).toBe('passed');
    expect(byId['sync-schema']?.message).toBe(
      'The SYNC schema is absent: the agent will create it at Start (CREATE SCHEMA [SYNC];).',
    );
    expect(byId['primary-keys']?.message).toBe(
      'IllegalArgumentException: Missing primary keys for entities... dbo.AuditLog',
    );
    expect(byId['change-retention']).toMatchObject({
      status: 'failed',
      fix: 'ALTER DATABASE [Sales] SET CHANGE_TRACKING (CHANGE_RETENTION = 5 DAYS);',
    });
    expect(JSON.stringify(answer)).not.toContain(DBA.password);
  });

  it('POST …/fixes/change-retention applies the ALTER DATABASE and checks again', async () => {
    const fixed = await e.client.applyFix({ ...ids, checkId: 'change-retention' });
    expect(fixed.applied).toBe('ALTER DATABASE [Sales] SET CHANGE_TRACKING (CHANGE_RETENTION = 5 DAYS);');
    expect(fixed.checks.find((c) => c.id === 'change-retention')?.status).toBe('passed');
    const unknown = await fetch(`${e.url}/pipelines/p1/agents/sql/fixes/drop-everything`, {
      method: 'POST',
      headers: { authorization: `Bearer ${e.token}` },
    });
    expect(unknown.status).toBe(404);
  });

  it('GET …/backlog answers versions behind and rows waiting from the checkpoint at the source', async () => {
    const before = await e.client.getBacklog(ids);
    expect(before.unavailableReason).toContain('No checkpoint at the source yet');
    // The agent's own reader snapshots and saves its checkpoint, as the runner will.
    const reader = await openChangeTrackingSource({
      credentials: sandboxCredentials(sandbox),
      configuration: ctConfiguration(),
      ...ids,
    });
    const { position } = await reader.snapshot({ schema: 'dbo', table: 'Orders' }, async () => undefined);
    await reader.saveCheckpoint({ 'dbo.Orders': position, 'dbo.AuditLog': position });
    await reader.close();
    const pool = await sandboxPool(sandbox);
    await pool
      .request()
      .batch(
        "INSERT INTO dbo.Orders VALUES (1, N'a'), (2, N'b'); UPDATE dbo.Orders SET Note = N'c' WHERE Id = 1;",
      );
    await pool.close();
    await e.client.putEntities(
      { pipelineId: 'p1' },
      { entities: [{ source: { schema: 'dbo', table: 'Orders' }, target: { table: 'Orders' } }] },
    );
    const after = await e.client.getBacklog(ids);
    expect(after.current).toMatchObject({
      rowsToRead: 2,
      versionsBehind: 2,
      perTable: [{ table: 'dbo.Orders', rowsToRead: 2 }],
    });
  });
});

describe('GET …/tables on a change-tracking agent', () => {
  it('answers each entity table: primary key columns, Change Tracking, and what stops the agent', async () => {
    await e.client.putEntities(
      { pipelineId: 'p1' },
      {
        entities: ['Orders', 'AuditLog'].map((table) => ({
          source: { schema: 'dbo', table },
          target: { table },
        })),
      },
    );
    const { tables } = await e.client.listAgentTables(ids);
    expect(tables).toEqual([
      {
        table: 'dbo.Orders',
        exists: true,
        rowIdentification: 'primary key',
        primaryKey: ['Id'],
        changeTracking: true,
        journalImages: null,
        journal: null,
        problem: null,
      },
      {
        table: 'dbo.AuditLog',
        exists: true,
        rowIdentification: 'primary key',
        primaryKey: [],
        changeTracking: false,
        journalImages: null,
        journal: null,
        problem: CHANGE_TRACKING_KEYLESS,
      },
    ]);
  });
});

describe('the backlog and the table view on one login', () => {
  it('reuse one connection between reads, and close it with the engine', async () => {
    // A table without change tracking: SQL Server's refusal is the answer, not an engine failure.
    expect((await e.client.getBacklog(ids)).unavailableReason).toBe(
      "SQL Server refused the backlog query (error 22105): Change tracking is not enabled on table 'AuditLog'.",
    );
    await e.client.putEntities(
      { pipelineId: 'p1' },
      { entities: [{ source: { schema: 'dbo', table: 'Orders' }, target: { table: 'Orders' } }] },
    );
    await until('the connections of earlier requests to close', () => sandbox.server.connections() <= 1);
    const open = sandbox.server.connections();
    await e.client.getBacklog(ids);
    // The source's sessions: one a pool (the reads', and the reader's, signed on at its open).
    const reading = sandbox.server.connections();
    expect(reading - open).toBeGreaterThanOrEqual(1);
    expect(reading - open).toBeLessThanOrEqual(2);
    for (let i = 0; i < 3; i++) await e.client.getBacklog(ids);
    await e.client.listAgentTables(ids);
    expect(sandbox.server.connections()).toBe(reading);
    await e.stop();
    stopped = true;
    await until('the connection to close', () => sandbox.server.connections() === open);
  });
});
