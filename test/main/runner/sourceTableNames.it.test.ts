// Source tables are told apart as SQL Server tells them apart: under the default collation DBO.T_A and
// dbo.T_A are one table, refused by the checks and the start, naming both; under a case-sensitive one
// dbo.T_A and dbo.t_a are two, each replicated to its own target table. Two source columns whose names
// the target takes for one (SQLite folds ASCII case) are refused, naming both; PostgreSQL keeps both
// (shown on shapes: the simulated SQL Server cannot hold columns a and A, SQLite being under it).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type sql from 'mssql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openChangeTrackingSource } from '../../../main/agents/changeTracking/source';
import { PostgresTarget } from '../../../main/agents/postgresql/target';
import { SqliteTarget } from '../../../main/agents/sqlite/target';
import type { Target } from '../../../main/agents/target';
import { PipelineRunner, type RunnerEntity } from '../../../main/runner/pipelineRunner';
import { targetTableOf } from '../../../main/runner/targetTables';
import type { TableShape } from '../../../main/agents/source';
import type { Entity } from '../../../shared/controlApi';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../../simulators/mssql';
import { ctConfiguration, sandboxCredentials } from '../../helpers/changeTracking';
import { DBA, sandboxPool } from '../../helpers/sandbox';
import { POSTGRES, scratchSchema } from '../../helpers/replica';

let sandbox: SandboxSqlServer;
const pools: sql.ConnectionPool[] = [];

const READY = `ALTER DATABASE CURRENT SET CHANGE_TRACKING = ON (CHANGE_RETENTION = 5 DAYS);
  ALTER DATABASE CURRENT SET ALLOW_SNAPSHOT_ISOLATION ON;`;

beforeAll(async () => {
  sandbox = await startSandboxSqlServer({
    logins: [DBA],
    databases: ['Sales', 'Strict'],
    caseSensitiveDatabases: ['Strict'],
  });
  for (const database of ['Sales', 'Strict']) {
    const pool = await sandboxPool(sandbox, { database, max: 1 });
    pools.push(pool);
    await pool.request().batch(READY.replaceAll('CURRENT', database));
  }
  const [sales, strict] = pools as [sql.ConnectionPool, sql.ConnectionPool];
  await sales.request().batch(`CREATE TABLE dbo.T_A (Id INT PRIMARY KEY, V NVARCHAR(10));
    ALTER TABLE dbo.T_A ENABLE CHANGE_TRACKING; INSERT INTO dbo.T_A VALUES (1, N'one');
    CREATE TABLE dbo.T_B (Id INT PRIMARY KEY, V NVARCHAR(10));
    ALTER TABLE dbo.T_B ENABLE CHANGE_TRACKING; INSERT INTO dbo.T_B VALUES (7, N'seven');`);
  await strict.request().batch(`CREATE TABLE dbo.T_A (Id INT PRIMARY KEY, V NVARCHAR(10));
    CREATE TABLE dbo.t_a (Id INT PRIMARY KEY, Other NVARCHAR(10));
    ALTER TABLE dbo.T_A ENABLE CHANGE_TRACKING; ALTER TABLE dbo.t_a ENABLE CHANGE_TRACKING;
    INSERT INTO dbo.T_A VALUES (1, N'upper'); INSERT INTO dbo.t_a VALUES (1, N'lower'), (2, N'lower 2');`);
});
afterAll(async () => {
  for (const p of pools) await p.close();
  await sandbox?.close();
});

const entity = (schema: string, table: string, target: string): Entity => ({
  source: { schema, table },
  target: { table: target },
  rowIdentification: { kind: 'primaryKey' },
});
const open = (database: string, pipelineId: string) =>
  openChangeTrackingSource({
    credentials: sandboxCredentials(sandbox, { databaseName: database }),
    configuration: ctConfiguration(),
    pipelineId,
    agentId: 'src',
  });
const run = async (database: string, entities: RunnerEntity[], target: () => Promise<Target>) => {
  const runner = new PipelineRunner({
    openSource: () => open(database, `names-${database}-${entities.length}`),
    openTarget: target,
    entities,
    retry: { firstDelayMs: 10, maxDelayMs: 50, maxAttempts: 1 },
  });
  await runner.runUntilCaughtUp().catch(() => undefined);
  return runner.failure;
};
const sqlite = () => {
  const path = join(mkdtempSync(join(tmpdir(), 'cdc-names-')), 'replica.sqlite');
  return { path, open: async () => new SqliteTarget(path, 'names') };
};
const rows = (path: string, table: string) => {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare(`SELECT * FROM "${table}" ORDER BY 1`).all();
  } finally {
    db.close();
  }
};

describe('under the default collation', () => {
  const twice = [entity('DBO', 'T_A', 'a'), entity('dbo', 'T_A', 'b')];

  it('DBO.T_A and dbo.T_A fail the entity-tables check, naming both', async () => {
    const source = await open('Sales', 'names-check');
    try {
      const check = (await source.check(twice)).find((c) => c.id === 'entity-tables');
      expect(check?.status).toBe('failed');
      expect(check?.message).toContain(
        "DBO.T_A and dbo.T_A name the same table under the database's collation",
      );
    } finally {
      await source.close();
    }
  });

  it('DBO.T_A and dbo.T_A stop the start before a row moves, naming both', async () => {
    const target = sqlite();
    const failure = await run('Sales', twice, target.open);
    expect(failure).toMatch(/DBO\.T_A and dbo\.T_A name the same source table/);
  });
});

describe('under a case-sensitive collation', () => {
  it('dbo.T_A and dbo.t_a are two tables, each copied to its own target with its own columns', async () => {
    const target = sqlite();
    const failure = await run(
      'Strict',
      [entity('dbo', 'T_A', 'upper'), entity('dbo', 't_a', 'lower')],
      target.open,
    );
    expect(failure).toBeNull();
    expect(rows(target.path, 'upper')).toEqual([{ Id: 1, V: 'upper' }]);
    expect(rows(target.path, 'lower')).toEqual([
      { Id: 1, Other: 'lower' },
      { Id: 2, Other: 'lower 2' },
    ]);
  });
});

describe("an entity's target schema at PostgreSQL", () => {
  it('puts each table in its own schema, and the checkpoint in the configured one', async () => {
    const main = `cdc_names_main_${process.pid}`;
    const [first, second] = [`cdc_names_s1_${process.pid}`, `cdc_names_s2_${process.pid}`];
    const { client, drop } = await scratchSchema(main);
    try {
      const failure = await run(
        'Sales',
        [
          { ...entity('dbo', 'T_A', 't'), target: { schema: first, table: 't' } },
          { ...entity('dbo', 'T_B', 't'), target: { schema: second, table: 't' } },
        ],
        async () => new PostgresTarget({ ...POSTGRES, schema: main }, 'names-schemas'),
      );
      expect(failure).toBeNull();
      expect((await client.query(`SELECT "Id", "V" FROM "${first}"."t"`)).rows).toEqual([
        { Id: 1, V: 'one' },
      ]);
      expect((await client.query(`SELECT "Id", "V" FROM "${second}"."t"`)).rows).toEqual([
        { Id: 7, V: 'seven' },
      ]);
      const checkpoints = await client.query<{ schema: string }>(
        "SELECT table_schema AS schema FROM information_schema.tables WHERE table_name = '_cdc_checkpoint' AND table_schema LIKE 'cdc_names_%'",
      );
      expect(checkpoints.rows).toEqual([{ schema: main }]);
    } finally {
      await client.query(
        `DROP SCHEMA IF EXISTS "${first}" CASCADE; DROP SCHEMA IF EXISTS "${second}" CASCADE`,
      );
      await drop();
    }
  });
});

describe('two columns the target takes for one', () => {
  const shape: TableShape = {
    ref: { schema: 'dbo', table: 'Cased' },
    columns: [
      { name: 'Id', sourceType: 'int', nullable: false },
      { name: 'a', sourceType: 'int', nullable: true },
      { name: 'A', sourceType: 'nvarchar(10)', nullable: true },
    ],
    key: ['Id'],
  };
  const cased = entity('dbo', 'Cased', 'cased');

  it('are refused for SQLite, naming both', () => {
    expect(() => targetTableOf(cased, [shape], new SqliteTarget(':memory:', 'x').foldName)).toThrow(
      /dbo\.Cased has columns a and A, which the target takes for one column/,
    );
  });

  it('stay two for PostgreSQL, which compares quoted names exactly', () => {
    const fold = new PostgresTarget({ ...POSTGRES, schema: 'x' }, 'x').foldName;
    expect(targetTableOf(cased, [shape], fold).columns.map((c) => c.name)).toEqual(['Id', 'a', 'A']);
  });
});
