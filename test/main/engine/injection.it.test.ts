// Identifiers that could reach SQL or a CL command, tried with quote, bracket, semicolon, parenthesis
// and CL keyword payloads through the control API: IBM i names are refused by the schema or before any
// statement is built, SQL Server names are bracket-quoted, and no payload ever reaches either database
// (every statement and command the simulated IBM i receives is recorded and searched).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IbmiConnection } from '../../../lib/ibmi/connection';
import type { SandboxIbmi } from '../../../simulators/ibmi';
import { SEED_AGENT } from '../../../simulators/ibmi/seed';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../../simulators/mssql';
import { seededIbmi } from '../../helpers/ibmi';
import { startTestEngine, type RunningEngine } from '../../helpers/engine';
import { DBA, sandboxPool } from '../../helpers/sandbox';

const PAYLOADS = [
  "CUST'; DROP TABLE SHOP.ORDERS; --",
  'CUSTOMER) DLTF FILE(SHOP/ORDERS',
  'X" OR "1"="1',
  'ORDERS]; DROP TABLE dbo.Orders; --',
  'SHOP/ORDERS',
  '*ALL) DLTLIB LIB(SHOP',
  'A B',
];

let sandbox: SandboxIbmi;
let admin: IbmiConnection;
let sql: SandboxSqlServer;
let e: RunningEngine;
/** Every SQL statement and CL command the simulated IBM i was sent by the engine. */
const received: string[] = [];

beforeAll(async () => {
  ({ sandbox, admin } = await seededIbmi());
  const connect = sandbox.connect.bind(sandbox);
  sandbox.connect = async (options) => {
    const c = await connect(options);
    const recording = (inner: IbmiConnection): IbmiConnection => ({
      query: (text, params) => (received.push(text), inner.query(text, params)),
      command: (cl) => (received.push(cl), inner.command(cl)),
      transaction: (work) => inner.transaction((t) => work(recording(t))),
      close: () => inner.close(),
    });
    return recording(c);
  };
  sql = await startSandboxSqlServer({ logins: [DBA], databases: ['Sales'] });
  const pool = await sandboxPool(sql);
  await pool.request().batch(`ALTER DATABASE Sales SET CHANGE_TRACKING = ON (CHANGE_RETENTION = 5 DAYS);
    ALTER DATABASE Sales SET ALLOW_SNAPSHOT_ISOLATION ON;
    CREATE TABLE dbo.Orders (Id INT PRIMARY KEY, Note NVARCHAR(20));
    INSERT INTO dbo.Orders VALUES (1, N'kept');`);
  await pool.close();
  e = await startTestEngine();
  await e.client.createPipeline({}, { id: 'ibmi', name: 'ibmi' });
  await e.client.createAgent({ pipelineId: 'ibmi' }, { id: 'src', type: 'journal', role: 'source' });
  await e.client.putCredentials(
    { pipelineId: 'ibmi', agentId: 'src' },
    {
      hostCredentials: {
        connectionName: 'x',
        host: sandbox.host,
        databaseName: '*SYSBAS',
        username: SEED_AGENT.user,
        password: SEED_AGENT.password,
      },
    },
  );
  await e.client.putSpecific({ pipelineId: 'ibmi', agentId: 'src' }, { configuration: {} });
});
afterAll(async () => {
  await e?.stop();
  await admin?.close();
  await sandbox?.close();
  await sql?.close();
});

const raw = async (method: string, path: string, body: unknown) => {
  const res = await fetch(e.url + path, {
    method,
    headers: { Authorization: `Bearer ${e.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as { errors?: { pointer: string }[] } };
};
const ordersLeft = async () => (await admin.query('SELECT COUNT(*) AS N FROM SHOP.ORDERS'))[0]?.N;

describe('IBM i names', () => {
  it.each(PAYLOADS)(
    'a sync library, checkpoint table or journal of %j is refused with 422, naming the field',
    async (payload) => {
      const creds = await raw('PUT', '/pipelines/ibmi/agents/src/config/credentials', {
        hostCredentials: {
          connectionName: 'x',
          host: sandbox.host,
          databaseName: '*SYSBAS',
          username: SEED_AGENT.user,
          syncLibrary: payload,
          journalCheckpointTable: payload,
        },
      });
      expect(creds.status).toBe(422);
      expect(creds.json.errors?.map((x) => x.pointer).sort()).toEqual([
        '/hostCredentials/journalCheckpointTable',
        '/hostCredentials/syncLibrary',
      ]);
      const journal = await raw('PUT', '/pipelines/ibmi/entities', {
        entities: [
          {
            source: { schema: 'SHOP', table: 'ORDERS' },
            target: { table: 't' },
            journal: { library: payload, name: 'QSQJRN' },
          },
        ],
      });
      expect(journal.status).toBe(422);
      expect(journal.json.errors?.[0]?.pointer).toBe('/entities/0/journal/library');
    },
  );

  it('entity names and key columns carrying payloads never reach a statement or a command', async () => {
    await e.client.putEntities(
      { pipelineId: 'ibmi' },
      {
        entities: PAYLOADS.map((payload, i) => ({
          source: i % 2 ? { schema: payload, table: 'ORDERS' } : { schema: 'SHOP', table: payload },
          target: { table: `t${i}` },
        })).concat([
          {
            source: { schema: 'LEGACY', table: 'ITEMS' },
            target: { table: 'items' },
            rowIdentification: { kind: 'logicalKey', columns: PAYLOADS },
          } as never,
        ]),
      },
    );
    const ids = { pipelineId: 'ibmi', agentId: 'src' };
    const checks = await e.client.testAgent(ids);
    expect(checks.checks.find((c) => c.id === 'row-identification')?.message).toMatch(
      /^Not IBM i system names/,
    );
    const { tables } = await e.client.listAgentTables(ids);
    expect(tables.filter((t) => t.problem?.startsWith('Not an IBM i system name'))).toHaveLength(
      PAYLOADS.length,
    );
    await e.client.startAgent(ids);
    await expect.poll(async () => (await e.client.getAgent(ids)).state).toBe('failed');
    expect((await e.client.getAgent(ids)).failureReason).toMatch(/is not an IBM i name/);

    expect(received.length).toBeGreaterThan(5);
    for (const payload of PAYLOADS) expect(received.filter((text) => text.includes(payload))).toEqual([]);
    expect(await ordersLeft()).toBe(40);
  });
});

describe('SQL Server names', () => {
  it('a table name with a bracket and a batch in it is quoted: the table is not found, nothing is dropped', async () => {
    await e.client.createPipeline({}, { id: 'sql', name: 'sql' });
    await e.client.createAgent({ pipelineId: 'sql' }, { id: 'src', type: 'change-tracking', role: 'source' });
    const ids = { pipelineId: 'sql', agentId: 'src' };
    await e.client.putCredentials(ids, {
      hostCredentials: {
        connectionName: 'x',
        host: '127.0.0.1',
        port: sql.port,
        databaseName: 'Sales',
        username: DBA.name,
        password: DBA.password,
      },
    });
    await e.client.putSpecific(ids, { configuration: {} });
    await e.client.putEntities(
      { pipelineId: 'sql' },
      {
        entities: PAYLOADS.map((payload, i) => ({
          source: { schema: 'dbo', table: payload },
          target: { table: `t${i}` },
        })),
      },
    );
    await e.client.testAgent(ids);
    await e.client.listAgentTables(ids);
    await e.client.startAgent(ids);
    await expect.poll(async () => (await e.client.getAgent(ids)).state).toBe('failed');
    const pool = await sandboxPool(sql);
    const { recordset } = await pool.request().query('SELECT Note FROM dbo.Orders');
    await pool.close();
    expect(recordset).toEqual([{ Note: 'kept' }]);
  });
});
