// Each schema-change policy, as a DBA sees it at the target after a column is added (and filled) and
// another dropped at the source while the pipeline was stopped: propagate alters the target to match
// (dropping the column, as droppedColumns says); add-columns-only adds and keeps; ignore-new-columns
// leaves the new column out and keeps the old; suspend-table waits for review and, resumed, applies it.
// A per-entity policy wins over the pipeline's. Change tracking into SQLite.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type sql from 'mssql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openChangeTrackingSource } from '../../../main/agents/changeTracking/source';
import { SqliteTarget } from '../../../main/agents/sqlite/target';
import type { RunnerEvent } from '../../../main/runner/events';
import { PipelineRunner } from '../../../main/runner/pipelineRunner';
import type { SchemaChanges } from '../../../shared/agents/common';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../../simulators/mssql';
import { ctConfiguration, sandboxCredentials } from '../../helpers/changeTracking';
import { DBA, sandboxPool } from '../../helpers/sandbox';
import { until } from '../../helpers/until';

let sandbox: SandboxSqlServer;
let pool: sql.ConnectionPool;

beforeAll(async () => {
  sandbox = await startSandboxSqlServer({ logins: [DBA], databases: ['Sales'] });
  pool = await sandboxPool(sandbox, { max: 1 });
  await pool.request().batch(`ALTER DATABASE Sales SET CHANGE_TRACKING = ON (CHANGE_RETENTION = 2 DAYS);
    ALTER DATABASE Sales SET ALLOW_SNAPSHOT_ISOLATION ON;`);
});
afterAll(async () => {
  await pool?.close();
  await sandbox?.close();
});

/** The pipeline over one table, its policy set for the pipeline (or for the entity alone). */
function pipeline(name: string, path: string, policy: { pipeline?: SchemaChanges; entity?: SchemaChanges }) {
  const events: RunnerEvent[] = [];
  const runner = () =>
    new PipelineRunner({
      openSource: () =>
        openChangeTrackingSource({
          credentials: sandboxCredentials(sandbox),
          configuration: ctConfiguration(),
          pipelineId: `shape_${name}`,
          agentId: 'src',
        }),
      openTarget: async () => new SqliteTarget(path, `shape_${name}`),
      entities: [
        {
          source: { schema: 'dbo', table: name },
          target: { table: name.toLowerCase() },
          ...(policy.entity && { schemaChanges: policy.entity }),
        },
      ],
      droppedColumns: 'drop',
      schemaChanges: policy.pipeline,
      onEvent: (e) => events.push(e),
      idleMs: 20,
    });
  return { events, runner };
}

const columns = (path: string, table: string) => {
  const db = new Database(path, { readonly: true });
  const names = (db.prepare(`PRAGMA table_info("${table}")`).all() as { name: string }[]).map((c) => c.name);
  const rows = db.prepare(`SELECT * FROM "${table}" ORDER BY Id`).all();
  db.close();
  return { names, rows };
};

describe.each([
  ['propagate', {}, ['Id', 'A', 'C'], null],
  [
    'add-columns-only',
    { pipeline: 'add-columns-only' },
    ['Id', 'A', 'B', 'C'],
    /column B kept at the target/,
  ],
  [
    'ignore-new-columns',
    { pipeline: 'ignore-new-columns' },
    ['Id', 'A', 'B'],
    /column C added at the source left out/,
  ],
  [
    'an entity’s own policy',
    { pipeline: 'propagate', entity: 'ignore-new-columns' },
    ['Id', 'A', 'B'],
    /left out/,
  ],
] as const)('the schema-change policy %s', (label, policy, expected, withheld) => {
  it('shapes the target as chosen, and says what it withheld', async () => {
    const name = `Shape${label.replace(/[^a-z]/gi, '').slice(0, 12)}`;
    const path = join(mkdtempSync(join(tmpdir(), 'cdc-shape-')), 'replica.sqlite');
    await pool.request()
      .batch(`CREATE TABLE dbo.${name} (Id INT PRIMARY KEY, A NVARCHAR(10) NOT NULL, B NVARCHAR(10) NULL);
      ALTER TABLE dbo.${name} ENABLE CHANGE_TRACKING;
      INSERT INTO dbo.${name} VALUES (1, N'a1', N'b1');`);
    const p = pipeline(name, path, policy);
    await p.runner().runUntilCaughtUp();
    await pool.request().batch(`ALTER TABLE dbo.${name} ADD C NVARCHAR(10) NULL;
      ALTER TABLE dbo.${name} DROP COLUMN B;
      INSERT INTO dbo.${name} (Id, A, C) VALUES (2, N'a2', N'c2');`);
    const second = p.runner();
    await second.runUntilCaughtUp();
    expect(second.failure).toBeNull();
    const { names, rows } = columns(path, name.toLowerCase());
    expect(names).toEqual(expected);
    expect(rows).toHaveLength(2);
    const said = p.events.find((e) => e.kind === 'schema-change-withheld');
    if (withheld) expect(said).toMatchObject({ reason: expect.stringMatching(withheld) });
    else expect(said).toBeUndefined();
  });
});

describe('the schema-change policy suspend-table', () => {
  it('suspends the table for review, the others go on; resumed, the change is applied', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'cdc-shape-')), 'replica.sqlite');
    await pool.request().batch(`CREATE TABLE dbo.Reviewed (Id INT PRIMARY KEY, A NVARCHAR(10) NOT NULL);
      ALTER TABLE dbo.Reviewed ENABLE CHANGE_TRACKING;
      INSERT INTO dbo.Reviewed VALUES (1, N'a1');`);
    const p = pipeline('Reviewed', path, { pipeline: 'suspend-table' });
    await p.runner().runUntilCaughtUp();
    await pool.request().batch(`ALTER TABLE dbo.Reviewed ADD C NVARCHAR(10) NULL;
      INSERT INTO dbo.Reviewed (Id, A, C) VALUES (2, N'a2', N'c2');`);
    const r = p.runner();
    void r.start();
    try {
      await until('the table suspended', () => p.events.some((e) => e.kind === 'table-suspended'));
      expect(p.events.find((e) => e.kind === 'table-suspended')).toMatchObject({
        table: 'dbo.Reviewed',
        reason: expect.stringMatching(
          /columns changed at the source \(added: C\) .*"suspend-table": review the change, then resume/,
        ),
      });
      expect(columns(path, 'reviewed').names).toEqual(['Id', 'A']);
      expect(r.resumeTable('dbo.Reviewed')).toBe('resumed');
      await until('the change applied', () => columns(path, 'reviewed').rows.length === 2);
    } finally {
      await r.stop();
    }
    expect(columns(path, 'reviewed')).toEqual({
      names: ['Id', 'A', 'C'],
      rows: [
        { Id: 1, A: 'a1', C: null },
        { Id: 2, A: 'a2', C: 'c2' },
      ],
    });
  });
});

describe.each([
  ['drop', 'table-stopped', 'stopped', false],
  ['suspend', 'table-suspended', 'suspended', true],
] as const)('a table dropped at the source with droppedTables %s', (choice, kind, status, kept) => {
  it('stops it as chosen while the other table goes on', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'cdc-dropped-')), 'replica.sqlite');
    const [gone, stays] = [`Gone${choice}`, `Stays${choice}`];
    await pool.request().batch(`CREATE TABLE dbo.${gone} (Id INT PRIMARY KEY);
      CREATE TABLE dbo.${stays} (Id INT PRIMARY KEY);
      ALTER TABLE dbo.${gone} ENABLE CHANGE_TRACKING;
      ALTER TABLE dbo.${stays} ENABLE CHANGE_TRACKING;
      INSERT INTO dbo.${gone} VALUES (1); INSERT INTO dbo.${stays} VALUES (1);`);
    const events: RunnerEvent[] = [];
    const runner = () =>
      new PipelineRunner({
        openSource: () =>
          openChangeTrackingSource({
            credentials: sandboxCredentials(sandbox),
            configuration: ctConfiguration(),
            pipelineId: `dropped_${choice}`,
            agentId: 'src',
          }),
        openTarget: async () => new SqliteTarget(path, `dropped_${choice}`),
        entities: [gone, stays].map((t) => ({
          source: { schema: 'dbo', table: t },
          target: { table: t.toLowerCase() },
        })),
        droppedTables: choice,
        onEvent: (e) => events.push(e),
      });
    await runner().runUntilCaughtUp();
    await pool.request().batch(`DROP TABLE dbo.${gone}; INSERT INTO dbo.${stays} VALUES (2);`);
    const second = runner();
    await second.runUntilCaughtUp();
    expect(second.failure).toBeNull();
    expect(events.find((e) => e.kind === kind)).toMatchObject({ table: `dbo.${gone}` });
    expect(second.snapshots().find((t) => t.table === `dbo.${gone}`)?.status).toBe(status);
    const db = new Database(path, { readonly: true });
    const tables = (
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]
    ).map((t) => t.name);
    const rows = db.prepare(`SELECT COUNT(*) AS n FROM "${stays.toLowerCase()}"`).get() as { n: number };
    db.close();
    expect(tables.includes(gone.toLowerCase())).toBe(kept);
    expect(rows.n).toBe(2);
  });
});
