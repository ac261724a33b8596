// A change-tracking harness for the source-agent contract: a database on the sandbox SQL Server (or a
// real one, from MSSQL_URL), tables made ready for the agent, and agents opened with fixed identities.
import sql from 'mssql';
import type {
  ChangeTrackingConfiguration,
  ChangeTrackingHostCredentials,
} from '../../shared/agents/changeTracking';
import type { Row, TableRef } from '../../main/agents/source';
import { openChangeTrackingSource } from '../../main/agents/changeTracking/source';
import { qualified } from '../../main/agents/drivers/mssql/names';
import type { SourceHarness } from '../main/agents/contract/sourceAgent';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../simulators/mssql';
import { SEED_AGENT_LOGIN } from '../../simulators/mssql/seed';
import type { EngineClient } from '../../main/client/engineClient';
import { DBA, sandboxPool } from './sandbox';

/**
 * Sales with Change Tracking (two days' retention) and snapshot isolation on, the agent's SYNC schema,
 * and dbo.Orders tracked with its columns, holding two open orders: the agent suites' starting point.
 */
export const TRACKED_ORDERS = `ALTER DATABASE Sales SET CHANGE_TRACKING = ON (CHANGE_RETENTION = 2 DAYS, AUTO_CLEANUP = ON);
    ALTER DATABASE Sales SET ALLOW_SNAPSHOT_ISOLATION ON;
    CREATE SCHEMA SYNC;
    CREATE TABLE dbo.Orders (Id INT PRIMARY KEY, Status NVARCHAR(20) NOT NULL);
    ALTER TABLE dbo.Orders ENABLE CHANGE_TRACKING WITH (TRACK_COLUMNS_UPDATED = ON);
    INSERT INTO dbo.Orders VALUES (1, N'Open'), (2, N'Open');`;

export const ctConfiguration = (
  over: Partial<ChangeTrackingConfiguration> = {},
): ChangeTrackingConfiguration => ({
  enableRecursionProtection: false,
  sourceChangeRetentionDays: 5,
  retentionWarningPercent: 25,
  heartbeatSeconds: 0,
  snapshotMode: 'initial',
  snapshotChunkRows: 10_000,
  droppedColumns: 'keep',
  onTableError: 'suspend-table',
  maxExceptions: 1000,
  schemaChanges: 'propagate',
  droppedTables: 'keep',
  ...over,
});

/** The sandbox SQL Server as an agent's parsed hostCredentials: the DBA login on Sales unless told otherwise. */
export const sandboxCredentials = (
  sandbox: Pick<SandboxSqlServer, 'port'>,
  over: Partial<ChangeTrackingHostCredentials> = {},
): ChangeTrackingHostCredentials => ({
  connectionName: 'sandbox',
  host: '127.0.0.1',
  port: sandbox.port,
  databaseName: 'Sales',
  username: DBA.name,
  password: DBA.password,
  maxConnectionsCount: 2,
  enableTls: false,
  ...over,
});

/** A change-tracking source on the seeded sandbox's Sales database, signed in as the seed's agent login. */
export const openSeedAgentSource = (sandbox: SandboxSqlServer, pipelineId: string) =>
  openChangeTrackingSource({
    credentials: sandboxCredentials(sandbox, {
      username: SEED_AGENT_LOGIN.name,
      password: SEED_AGENT_LOGIN.password,
    }),
    configuration: ctConfiguration({ sourceChangeRetentionDays: 2 }),
    pipelineId,
    agentId: 'src',
  });

/** Builds the harness over credentials whose login may create tables and turn Change Tracking on. */
export async function changeTrackingHarness(
  credentials: ChangeTrackingHostCredentials,
  options: { tablePrefix?: string; pipelineId?: string } = {},
): Promise<SourceHarness> {
  const admin = await new sql.ConnectionPool({
    server: credentials.host,
    port: credentials.port,
    user: credentials.username,
    password: credentials.password,
    database: credentials.databaseName,
    options: { encrypt: credentials.enableTls, trustServerCertificate: !credentials.certificatePath },
    pool: { max: 2, min: 0 },
  }).connect();
  // The database as the agent needs it: Change Tracking on (retention as configured), snapshots allowed.
  const db = `[${credentials.databaseName.replaceAll(']', ']]')}]`;
  const state = await admin
    .request()
    .query(
      'SELECT (SELECT COUNT(*) FROM sys.change_tracking_databases WHERE database_id = DB_ID()) AS tracked, (SELECT snapshot_isolation_state FROM sys.databases WHERE database_id = DB_ID()) AS snapshot',
    );
  if (!state.recordset[0].tracked)
    await admin
      .request()
      .batch(`ALTER DATABASE ${db} SET CHANGE_TRACKING = ON (CHANGE_RETENTION = 5 DAYS, AUTO_CLEANUP = ON)`);
  if (state.recordset[0].snapshot !== 1)
    await admin.request().batch(`ALTER DATABASE ${db} SET ALLOW_SNAPSHOT_ISOLATION ON`);
  const prefix = options.tablePrefix ?? '';
  const made: TableRef[] = [];
  return {
    async createTable(name) {
      const table = { schema: 'dbo', table: `${prefix}${name}` };
      await admin.request().batch(`DROP TABLE IF EXISTS ${qualified(table)};
        CREATE TABLE ${qualified(table)} (id INT NOT NULL PRIMARY KEY, name NVARCHAR(50) NOT NULL, amount DECIMAL(12, 2) NOT NULL);
        ALTER TABLE ${qualified(table)} ENABLE CHANGE_TRACKING WITH (TRACK_COLUMNS_UPDATED = ON);`);
      made.push(table);
      return table;
    },
    async insert(table, rows) {
      for (const r of rows) {
        await admin
          .request()
          .input('id', sql.Int, r.id)
          .input('name', sql.NVarChar(50), r.name)
          .input('amount', sql.Decimal(12, 2), Number(r.amount))
          .query(`INSERT INTO ${qualified(table)} (id, name, amount) VALUES (@id, @name, @amount)`);
      }
    },
    async update(table, id, name) {
      await admin
        .request()
        .input('id', sql.Int, id)
        .input('name', sql.NVarChar(50), name)
        .query(`UPDATE ${qualified(table)} SET name = @name WHERE id = @id`);
    },
    async remove(table, id) {
      await admin
        .request()
        .input('id', sql.Int, id)
        .query(`DELETE FROM ${qualified(table)} WHERE id = @id`);
    },
    async insertTogether(table, rows) {
      const values = rows.map((r) => `(${r.id}, N'${r.name.replaceAll("'", "''")}', ${r.amount})`).join(', ');
      await admin
        .request()
        .batch(
          `BEGIN TRANSACTION; INSERT INTO ${qualified(table)} (id, name, amount) VALUES ${values}; COMMIT;`,
        );
    },
    async addNoteColumn(table) {
      await admin.request().batch(`ALTER TABLE ${qualified(table)} ADD note NVARCHAR(20) NULL`);
    },
    async dropColumn(table, column) {
      await admin.request().batch(`ALTER TABLE ${qualified(table)} DROP COLUMN ${column}`);
    },
    async dropTable(table) {
      await admin.request().batch(`DROP TABLE ${qualified(table)}`);
    },
    async revokeRead(table) {
      await admin.request().batch(`DENY SELECT ON ${qualified(table)} TO [${credentials.username}]`);
    },
    async grantRead(table) {
      await admin.request().batch(`GRANT SELECT ON ${qualified(table)} TO [${credentials.username}]`);
    },
    // Change Tracking keeps which rows changed, never their old values.
    beforeImages: false,
    open: () =>
      openChangeTrackingSource({
        credentials,
        configuration: ctConfiguration(),
        pipelineId: options.pipelineId ?? 'contract',
        agentId: 'source',
      }),
    entity: (table) => ({
      source: table,
      target: { table: table.table },
      rowIdentification: { kind: 'primaryKey' },
    }),
    normalize: (row: Row) => ({
      id: Number(row.id),
      name: String(row.name),
      amount: Number(row.amount).toFixed(2),
    }),
    async close() {
      for (const t of made)
        await admin
          .request()
          .batch(`DROP TABLE IF EXISTS ${qualified(t)}`)
          .catch(() => undefined);
      await admin.close();
    },
  };
}

/**
 * A pipeline on an engine whose change-tracking source agent reads the seeded sandbox as its agent
 * login, configured (both PUTs) with these entities (`dbo.<table>` into `<table>` in lower case).
 */
export async function configureSeedPipeline(
  client: EngineClient,
  sandbox: SandboxSqlServer,
  ids: { pipelineId: string; agentId: string },
  tables: readonly string[],
  configuration: Record<string, unknown> = {},
  name = ids.pipelineId,
): Promise<void> {
  await client.createPipeline({}, { id: ids.pipelineId, name });
  await client.createAgent(ids, { id: ids.agentId, type: 'change-tracking', role: 'source' });
  await client.putCredentials(ids, {
    hostCredentials: {
      connectionName: ids.agentId,
      host: '127.0.0.1',
      port: sandbox.port,
      databaseName: 'Sales',
      username: SEED_AGENT_LOGIN.name,
      password: SEED_AGENT_LOGIN.password,
    },
  });
  await client.putSpecific(ids, { configuration });
  await client.putEntities(ids, {
    entities: tables.map((t) => ({
      source: { schema: 'dbo', table: t },
      target: { table: t.toLowerCase() },
    })),
  });
}

/**
 * A sandbox SQL Server made ready for the agent, as a DBA would: the DBA login on Sales, Change
 * Tracking on (2 days), snapshot isolation allowed, the SYNC schema, then `setup` (the test's tables).
 */
export async function readySandbox(
  setup: string,
): Promise<{ sandbox: SandboxSqlServer; admin: sql.ConnectionPool }> {
  const sandbox = await startSandboxSqlServer({ logins: [DBA], databases: ['Sales'] });
  const admin = await sandboxPool(sandbox, { max: 1 });
  await admin.request().batch(`ALTER DATABASE Sales SET CHANGE_TRACKING = ON (CHANGE_RETENTION = 2 DAYS);
    ALTER DATABASE Sales SET ALLOW_SNAPSHOT_ISOLATION ON;
    CREATE SCHEMA SYNC;
    ${setup}`);
  return { sandbox, admin };
}
