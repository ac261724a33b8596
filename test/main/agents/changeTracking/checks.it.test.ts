// The change-tracking agent's checks, each failing and passing on a purpose-built sandbox database,
// the two errors the spec names with their exact text, and the connection's failures in plain words.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CheckResult, Entity } from '../../../../shared/controlApi';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../../../simulators/mssql';
import { agentsRuntime } from '../../../../main/engine/agentRuntime';
import { MISSING_KEYS_ERROR, SCHEMAS_ERROR } from '../../../../main/agents/changeTracking/checks';
import { openChangeTrackingSource } from '../../../../main/agents/changeTracking/source';
import type { ResolvedAgent } from '../../../../main/agents/spi';
import { ctConfiguration, sandboxCredentials } from '../../../helpers/changeTracking';
import { DBA, sandboxPool } from '../../../helpers/sandbox';

// Checks and fixes as the engine runs them, through the change-tracking plugin.
const runtime = agentsRuntime();
const checkChangeTracking = (a: ResolvedAgent, entities: Entity[]) => runtime.check(a, entities);
const applyChangeTrackingFix = (a: ResolvedAgent, entities: Entity[], checkId: string) =>
  runtime.applyFix(a, entities, checkId);

const PASSWORD = 'Pa55-word';
let sandbox: SandboxSqlServer;

const entity = (table: string, schema = 'dbo'): Entity => ({
  source: { schema, table },
  target: { table },
  rowIdentification: { kind: 'primaryKey' },
});
const credentials = (
  database: string,
  username = DBA.name,
  password = username === DBA.name ? DBA.password : PASSWORD,
) => sandboxCredentials(sandbox, { databaseName: database, username, password });
const agent = (
  hostCredentials: Record<string, unknown>,
  configuration = ctConfiguration(),
): ResolvedAgent => ({
  pipelineId: 'p1',
  id: 'src',
  type: 'change-tracking',
  role: 'source',
  hostCredentials,
  configuration,
});
const byId = (checks: CheckResult[]) => Object.fromEntries(checks.map((c) => [c.id, c]));
const statusOf = (checks: CheckResult[]) => Object.fromEntries(checks.map((c) => [c.id, c.status]));

beforeAll(async () => {
  sandbox = await startSandboxSqlServer({
    logins: [
      DBA,
      {
        name: 'limited',
        password: PASSWORD,
        permissions: { viewCatalog: false, viewChangeTracking: false, createSchema: false, write: false },
      },
      { name: 'noschema', password: PASSWORD, permissions: { createSchema: false } },
      { name: 'noct', password: PASSWORD, permissions: { viewChangeTracking: false } },
      { name: 'nostate', password: PASSWORD, permissions: { viewServerState: false } },
    ],
    databases: ['Ready', 'Bare', 'Strict', 'Bare2'],
    caseSensitiveDatabases: ['Strict'],
  });
  const setup = async (database: string, script: string) => {
    const pool = await sandboxPool(sandbox, { database });
    await pool.request().batch(script);
    await pool.close();
  };
  await setup(
    'Ready',
    `ALTER DATABASE Ready SET CHANGE_TRACKING = ON (CHANGE_RETENTION = 5 DAYS, AUTO_CLEANUP = ON);
     ALTER DATABASE Ready SET ALLOW_SNAPSHOT_ISOLATION ON;
     CREATE SCHEMA SYNC;
     CREATE TABLE dbo.Orders (Id INT PRIMARY KEY, Note NVARCHAR(20));
     ALTER TABLE dbo.Orders ENABLE CHANGE_TRACKING;
     CREATE TABLE dbo.AuditLog (At DATETIME2 NOT NULL, Message NVARCHAR(100));
     CREATE TABLE dbo.Events (Id INT NOT NULL, Body NVARCHAR(100), CONSTRAINT UQ_Events UNIQUE CLUSTERED (Id));
     CREATE TABLE dbo.Untracked (Id INT PRIMARY KEY);
     CREATE TABLE dbo.Settings (Id SQL_VARIANT PRIMARY KEY, Name NVARCHAR(40), Value SQL_VARIANT NULL);
     ALTER TABLE dbo.Settings ENABLE CHANGE_TRACKING;
     INSERT INTO dbo.Settings VALUES (1, N'retries', 3);`,
  );
  await setup('Bare', 'CREATE TABLE dbo.Items (Id INT PRIMARY KEY);');
  await setup('Bare2', 'CREATE TABLE dbo.Items (Id INT PRIMARY KEY);');
  await setup(
    'Strict',
    `ALTER DATABASE Strict SET CHANGE_TRACKING = ON (CHANGE_RETENTION = 5 DAYS);
     ALTER DATABASE Strict SET ALLOW_SNAPSHOT_ISOLATION ON;
     CREATE TABLE dbo.Orders (Id INT PRIMARY KEY);
     ALTER TABLE dbo.Orders ENABLE CHANGE_TRACKING;`,
  );
});
afterAll(async () => {
  await sandbox?.close();
});

describe('checks on a database made ready', () => {
  it('all pass for a login with the grants, a tracked table with a key and matching retention', async () => {
    const checks = await checkChangeTracking(agent(credentials('Ready')), [entity('Orders')]);
    expect(checks.filter((c) => c.status !== 'passed')).toEqual([]);
    expect(checks.map((c) => c.id)).toEqual([
      'connection',
      'schemas-catalog',
      'sync-schema',
      'entity-tables',
      'table-permissions',
      'view-change-tracking',
      'commit-times',
      'change-tracking-database',
      'change-retention',
      'snapshot-isolation',
      'change-tracking-tables',
      'primary-keys',
      'column-types',
    ]);
  });

  it('use the same number of queries for one table as for twelve', async () => {
    const count = async (entities: Entity[]) => {
      const source = await openChangeTrackingSource({
        credentials: credentials('Ready'),
        configuration: ctConfiguration(),
        pipelineId: 'p1',
        agentId: 'src',
      });
      const spy = vi.spyOn(source.pool, 'request');
      await source.check(entities);
      await source.close();
      return spy.mock.calls.length;
    };
    const many = Array.from({ length: 12 }, (_, i) => entity(i % 2 ? 'Orders' : `Missing${i}`));
    const one = await count([entity('Orders')]);
    expect(one).toBeLessThanOrEqual(5);
    expect(await count(many)).toBe(one);
  });
});

describe('the errors the spec names, with their exact text', () => {
  it("Driver SQL exception: Invalid object name 'SYS.SCHEMAS'. for a login without catalog access", async () => {
    const checks = byId(
      await checkChangeTracking(agent(credentials('Ready', 'limited')), [entity('Orders')]),
    );
    expect(checks['schemas-catalog']?.status).toBe('failed');
    expect(checks['schemas-catalog']?.message.startsWith(SCHEMAS_ERROR)).toBe(true);
    expect(SCHEMAS_ERROR).toBe("Driver SQL exception: Invalid object name 'SYS.SCHEMAS'.");
    expect(checks['schemas-catalog']?.remedy).toContain('Correct the user');
    // The checks that need the catalogue say why they could not run: counted apart from failed.
    expect(checks['primary-keys']?.status).toBe('unchecked');
    expect(checks['primary-keys']?.message).toContain('cannot read the catalogue');
    expect(checks['view-change-tracking']?.status).toBe('failed');
    expect(checks['table-permissions']?.message).toContain('No INSERT, UPDATE or DELETE on dbo.Orders');
  });

  it('the same text, as a warning naming the collation, on a case-sensitive database', async () => {
    const checks = byId(await checkChangeTracking(agent(credentials('Strict')), [entity('Orders')]));
    expect(checks['schemas-catalog']?.status).toBe('warning');
    expect(checks['schemas-catalog']?.message).toContain(SCHEMAS_ERROR);
    expect(checks['schemas-catalog']?.message).toContain('case-sensitive collation');
    expect(checks['primary-keys']?.status).toBe('passed');
  });

  it('IllegalArgumentException: Missing primary keys for entities... listing each table without one', async () => {
    const checks = byId(
      await checkChangeTracking(agent(credentials('Ready')), [
        entity('Orders'),
        entity('AuditLog'),
        entity('Events'),
      ]),
    );
    expect(checks['primary-keys']).toMatchObject({
      status: 'failed',
      message: `${MISSING_KEYS_ERROR} dbo.AuditLog, dbo.Events`,
    });
    expect(MISSING_KEYS_ERROR).toBe('IllegalArgumentException: Missing primary keys for entities...');
    expect(checks['primary-keys']?.remedy).toContain('agent type that supports logical keys');
  });
});

describe('each check failing on purpose', () => {
  it('a column of a type the agent does not replicate exactly fails column-types, and the source refuses the table before reading', async () => {
    const checks = byId(
      await checkChangeTracking(agent(credentials('Ready')), [entity('Orders'), entity('Settings')]),
    );
    expect(checks['column-types']?.status).toBe('failed');
    // A variant column is replicated (with its base type); a variant key cannot be sought by.
    expect(checks['column-types']?.message).toContain(
      'dbo.Settings.Id (sql_variant): a sql_variant primary key column',
    );
    expect(checks['column-types']?.message).not.toContain('Settings.Value');
    expect(checks['column-types']?.message).not.toContain('Orders');
    const fine = byId(await checkChangeTracking(agent(credentials('Ready')), [entity('Orders')]));
    expect(fine['column-types']?.status).toBe('passed');
    const source = await openChangeTrackingSource({
      credentials: credentials('Ready'),
      configuration: ctConfiguration(),
      pipelineId: 'p1',
      agentId: 'src',
    });
    try {
      await expect(source.describe([{ schema: 'dbo', table: 'Settings' }])).rejects.toThrow(
        /cannot replicate: dbo\.Settings\.Id \(sql_variant\)/,
      );
    } finally {
      await source.close();
    }
  });

  it('a database without Change Tracking or snapshot isolation: both fail with the ALTER DATABASE that fixes them', async () => {
    const checks = byId(await checkChangeTracking(agent(credentials('Bare')), [entity('Items')]));
    expect(checks['change-tracking-database']).toMatchObject({
      status: 'failed',
      fix: 'ALTER DATABASE [Bare] SET CHANGE_TRACKING = ON (CHANGE_RETENTION = 5 DAYS, AUTO_CLEANUP = ON);',
    });
    expect(checks['snapshot-isolation']).toMatchObject({
      status: 'failed',
      fix: 'ALTER DATABASE [Bare] SET ALLOW_SNAPSHOT_ISOLATION ON;',
    });
    expect(checks['change-tracking-tables']).toMatchObject({
      status: 'failed',
      fix: 'ALTER TABLE [dbo].[Items] ENABLE CHANGE_TRACKING WITH (TRACK_COLUMNS_UPDATED = ON);',
    });
  });

  it('says the SYNC schema will be created at Start and creates nothing; says so when the login cannot', async () => {
    const denied = byId(
      await checkChangeTracking(agent(credentials('Bare2', 'noschema')), [entity('Items')]),
    );
    expect(denied['sync-schema']).toMatchObject({ status: 'failed', fix: 'CREATE SCHEMA [SYNC];' });
    expect(denied['sync-schema']?.message).toContain('cannot create it');
    const told = byId(await checkChangeTracking(agent(credentials('Bare2')), [entity('Items')]));
    expect(told['sync-schema']).toMatchObject({
      status: 'passed',
      message: 'The SYNC schema is absent: the agent will create it at Start (CREATE SCHEMA [SYNC];).',
    });
    // Checks only read: the schema is still absent, and made only by a DBA's CREATE (or the Start).
    const pool = await sandboxPool(sandbox, { database: 'Bare2' });
    const schemas = await pool
      .request()
      .query<{ name: string }>("SELECT name FROM sys.schemas WHERE name = 'SYNC'");
    expect(schemas.recordset).toEqual([]);
    await pool.request().batch('CREATE SCHEMA SYNC');
    await pool.close();
    const again = byId(await checkChangeTracking(agent(credentials('Bare2')), [entity('Items')]));
    expect(again['sync-schema']?.message).toBe('The SYNC schema exists.');
  });

  it('a table without Change Tracking, and a table that does not exist', async () => {
    const checks = byId(
      await checkChangeTracking(agent(credentials('Ready')), [
        entity('Orders'),
        entity('Untracked'),
        entity('Nope'),
      ]),
    );
    expect(checks['change-tracking-tables']?.message).toBe('Change Tracking is off for dbo.Untracked.');
    expect(checks['entity-tables']?.message).toContain('dbo.Nope');
    expect(checks['entity-tables']?.status).toBe('failed');
  });

  it('VIEW CHANGE TRACKING not granted: failed with the GRANT for each table', async () => {
    const checks = byId(await checkChangeTracking(agent(credentials('Ready', 'noct')), [entity('Orders')]));
    expect(checks['view-change-tracking']).toMatchObject({
      status: 'failed',
      fix: 'GRANT VIEW CHANGE TRACKING ON [dbo].[Orders] TO [noct];',
    });
    expect(checks['table-permissions']?.status).toBe('passed');
  });

  it('no VIEW SERVER STATE: a warning that commit times lag until a CHECKPOINT, with the GRANT', async () => {
    const checks = byId(
      await checkChangeTracking(agent(credentials('Ready', 'nostate')), [entity('Orders')]),
    );
    expect(checks['commit-times']).toMatchObject({
      status: 'warning',
      fix: 'GRANT VIEW SERVER PERFORMANCE STATE TO [nostate];',
    });
    expect(checks['commit-times']?.message).toContain('commit time column');
    expect(checks['commit-times']?.remedy).toContain('VIEW SERVER STATE');
    // Nothing else is refused: the login replicates.
    expect(Object.values(checks).filter((c) => c.status !== 'passed')).toHaveLength(1);
  });

  it('no VIEW SERVER STATE: changes carry no commit time until a CHECKPOINT, then they do', async () => {
    const dba = await sandboxPool(sandbox, { database: 'Ready' });
    const before = (await dba.request().query('SELECT CHANGE_TRACKING_CURRENT_VERSION() AS v')).recordset[0]
      .v;
    await dba.request().query("INSERT INTO dbo.Orders VALUES (777, N'no state')");
    const source = await openChangeTrackingSource({
      credentials: credentials('Ready', 'nostate'),
      configuration: ctConfiguration(),
      pipelineId: 'p1',
      agentId: 'src',
    });
    const read = () =>
      source.readChanges([{ schema: 'dbo', table: 'Orders' }], { 'dbo.Orders': String(before) });
    const unseen = await read();
    expect(unseen.changes.map((c) => [c.op, c.commitTime])).toEqual([['insert', undefined]]);
    expect(unseen.newestCommitTime).toBeNull();
    await dba.request().query('CHECKPOINT');
    const seen = await read();
    expect(seen.changes[0]?.commitTime).toBeInstanceOf(Date);
    await source.close();
    await dba.close();
  });

  it('retention different from sourceChangeRetentionDays: offered, and applied when the user agrees', async () => {
    const wants7 = agent(credentials('Ready'), ctConfiguration({ sourceChangeRetentionDays: 7 }));
    const before = byId(await checkChangeTracking(wants7, [entity('Orders')]));
    expect(before['change-retention']).toMatchObject({
      status: 'failed',
      message: 'Changes are kept 5 days; "Source change retention (days)" is 7.',
      fix: 'ALTER DATABASE [Ready] SET CHANGE_TRACKING (CHANGE_RETENTION = 7 DAYS);',
    });
    const { applied, checks } = await applyChangeTrackingFix(wants7, [entity('Orders')], 'change-retention');
    expect(applied).toBe('ALTER DATABASE [Ready] SET CHANGE_TRACKING (CHANGE_RETENTION = 7 DAYS);');
    expect(statusOf(checks)['change-retention']).toBe('passed');
    const pool = await sandboxPool(sandbox, { database: 'Ready' });
    const { recordset } = await pool
      .request()
      .query('SELECT retention_period FROM sys.change_tracking_databases');
    await pool.close();
    expect(recordset[0].retention_period).toBe(7);
    // Nothing left to fix: nothing applied. Put the retention back for the other tests.
    expect((await applyChangeTrackingFix(wants7, [entity('Orders')], 'change-retention')).applied).toBeNull();
    await applyChangeTrackingFix(agent(credentials('Ready')), [entity('Orders')], 'change-retention');
  });
});

describe('the connection, in plain words', () => {
  const connection = async (over: Record<string, unknown>) =>
    byId(await checkChangeTracking(agent({ ...credentials('Ready'), ...over }), []))['connection'];

  it('a wrong password, a missing database, a closed port', async () => {
    expect(await connection({ password: 'wrong' })).toMatchObject({
      status: 'failed',
      message: `SQL Server refused the login "${DBA.name}" (error 18456).`,
    });
    const missing = await connection({ databaseName: 'Nowhere' });
    expect(missing?.message).toContain('The database "Nowhere" does not exist');
    const closed = await connection({ port: 9 });
    expect(closed?.message).toContain('127.0.0.1:9 cannot be reached');
    expect(closed?.remedy).toContain('firewall');
  });

  it('never repeats the password in what it says', async () => {
    const failed = await connection({ password: 'Secret-Passw0rd-123' });
    expect(JSON.stringify(failed)).not.toContain('Secret-Passw0rd-123');
  });
});

describe('TLS with the CA file of certificatePath', () => {
  let tls: SandboxSqlServer;
  beforeAll(async () => {
    tls = await startSandboxSqlServer({ tls: true, logins: [DBA], databases: ['Ready'] });
  });
  afterAll(async () => {
    await tls?.close();
  });
  const withTls = (over: Record<string, unknown>) =>
    checkChangeTracking(
      agent({ ...credentials('Ready'), host: 'localhost', port: tls.port, enableTls: true, ...over }),
      [],
    ).then((c) => byId(c)['connection']);

  it('connects when the file holds the CA that signed the server certificate', async () => {
    expect(await withTls({ certificatePath: tls.caFile })).toMatchObject({
      status: 'passed',
      message: `Logged in as "${DBA.name}" to the database "Ready" on localhost:${tls.port} over TLS.`,
    });
  });

  it('names the path of a missing file, and refuses a certificate it cannot trust', async () => {
    const missing = await withTls({ certificatePath: '/nowhere/ca.pem' });
    expect(missing).toMatchObject({
      status: 'failed',
      message: 'The certificate file /nowhere/ca.pem does not exist.',
    });
    const untrusted = await withTls({ certificatePath: undefined });
    expect(untrusted?.message).toContain('is not trusted');
    expect(untrusted?.remedy).toContain('CA certificate file');
  });
});
