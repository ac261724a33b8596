// A source table may call its columns anything, the readers' own names included: the change-tracking
// reader addresses its values by position and keeps its pending keys under names of its own, so a
// table whose columns are named __op, __ver, __k0, __m1, __cols, k0 and a#base replicates as it is,
// with inserts counted as inserts, into SQLite and PostgreSQL.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type sql from 'mssql';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../../simulators/mssql';
import { openChangeTrackingSource } from '../../../main/agents/changeTracking/source';
import { describeTables } from '../../../main/agents/drivers/mssql/shape';
import type { TableShape } from '../../../main/agents/source';
import { PipelineRunner, type RunnerEntity } from '../../../main/runner/pipelineRunner';
import type { RunnerEvent } from '../../../main/runner/events';
import { SqliteTarget } from '../../../main/agents/sqlite/target';
import { PostgresTarget } from '../../../main/agents/postgresql/target';
import type { Target } from '../../../main/agents/target';
import { ctConfiguration, sandboxCredentials } from '../../helpers/changeTracking';
import { sandboxPool } from '../../helpers/sandbox';
import {
  POSTGRES,
  postgresClient,
  postgresReplicas,
  sourceReplica,
  sqliteReplica,
} from '../../helpers/replica';

let sandbox: SandboxSqlServer;
let admin: sql.ConnectionPool;
const TABLES = ['ToSqlite', 'ToPostgres'];
const shapes = new Map<string, TableShape>();
const entityOf = (table: string): RunnerEntity => ({
  source: { schema: 'dbo', table },
  target: { table: 'internals' },
});

beforeAll(async () => {
  sandbox = await startSandboxSqlServer({ seed: true, databases: ['master', 'Sales'] });
  admin = await sandboxPool(sandbox, { user: 'sa', password: 'Sandbox-Passw0rd', max: 2 });
  for (const table of TABLES) {
    await admin.request().batch(`
      CREATE TABLE dbo.${table} ([__ver] INT NOT NULL, [k0] NVARCHAR(10) NOT NULL, [__op] NVARCHAR(10) NULL,
        [__cols] INT NULL, [__k0] INT NULL, [__m0] INT NULL, [__m1] INT NULL, [k1] INT NULL, [a] INT NULL,
        [a#base] NVARCHAR(20) NULL, PRIMARY KEY ([__ver], [k0]));
      ALTER TABLE dbo.${table} ENABLE CHANGE_TRACKING WITH (TRACK_COLUMNS_UPDATED = ON);
      INSERT INTO dbo.${table} VALUES (1, N'one', N'inserted', 10, 11, 12, 13, 14, 15, N'not a type');`);
    const [shape] = await describeTables(admin, [entityOf(table).source]);
    if (shape) shapes.set(table, shape);
  }
});
afterAll(async () => {
  await admin?.close();
  await sandbox?.close();
});

const changes = (table: string) => `
  INSERT INTO dbo.${table} VALUES (2, N'two', N'U', 20, 21, 22, 23, 24, 25, N'{"baseType":"x"}');
  INSERT INTO dbo.${table} VALUES (3, N'three', N'D', NULL, NULL, NULL, NULL, NULL, NULL, NULL);
  UPDATE dbo.${table} SET [a] = 150, [__op] = N'changed' WHERE [__ver] = 1;
  DELETE FROM dbo.${table} WHERE [__ver] = 3;`;

function runner(table: string, openTarget: () => Promise<Target>, events: RunnerEvent[]) {
  const pipelineId = `internal-${table}`;
  return new PipelineRunner({
    openSource: () =>
      openChangeTrackingSource({
        credentials: sandboxCredentials(sandbox, { username: 'sa', password: 'Sandbox-Passw0rd' }),
        configuration: ctConfiguration({}),
        pipelineId,
        agentId: 'internals',
      }),
    openTarget,
    entities: [entityOf(table)],
    onEvent: (e) => events.push(e),
    retry: { firstDelayMs: 10, maxDelayMs: 50, maxAttempts: 2 },
  });
}

async function replicate(table: string, target: () => Promise<Target>): Promise<TableShape> {
  const events: RunnerEvent[] = [];
  await runner(table, target, events).runUntilCaughtUp();
  await admin.request().batch(changes(table));
  await runner(table, target, events).runUntilCaughtUp();
  expect(events.filter((e) => e.kind === 'failed')).toEqual([]);
  const applied = events.filter((e) => e.kind === 'batch-applied');
  expect(applied.map((e) => e.kind === 'batch-applied' && [e.inserts, e.updates, e.deletes])).toEqual([
    [1, 1, 1],
  ]);
  const shape = shapes.get(table);
  if (!shape) throw new Error(`no shape of ${table}`);
  return shape;
}

describe('columns named like the reader’s own', () => {
  it('replicate untouched into SQLite', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'cdc-internal-')), 'replica.sqlite');
    const shape = await replicate('ToSqlite', async () => new SqliteTarget(path, 'internal-sqlite'));
    const source = await sourceReplica(admin, shape);
    expect(sqliteReplica(path, 'internals', shape)).toEqual(source);
    expect(source.rows).toEqual([
      '1|one|changed|10|11|12|13|14|150|not a type',
      '2|two|U|20|21|22|23|24|25|{"baseType":"x"}',
    ]);
  });

  it('replicate untouched into PostgreSQL', async () => {
    const schema = `cdc_internal_${process.pid}`;
    const client: pg.Client = await postgresClient();
    try {
      const shape = await replicate(
        'ToPostgres',
        async () => new PostgresTarget({ ...POSTGRES, schema }, 'internal-pg'),
      );
      expect(await postgresReplicas(client, schema, [['internals', shape] as const])).toEqual([
        await sourceReplica(admin, shape),
      ]);
    } finally {
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    }
  });
});
