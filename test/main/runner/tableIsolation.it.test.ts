// One table's failure stops that table alone (issue 40): a row PostgreSQL refuses — U+0000 in an
// nvarchar, legal in SQL Server, refused by PostgreSQL's text — is kept aside with its reason while its
// table and the others go on; a runner with nowhere to keep rows suspends the table at its position
// instead, and resumed once the row is fixed at the source, the table equals the source. With
// onTableError "stop-pipeline" the whole pipeline stops instead.
import sql from 'mssql';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../../simulators/mssql';
import { openChangeTrackingSource } from '../../../main/agents/changeTracking/source';
import { PostgresTarget } from '../../../main/agents/postgresql/target';
import { PipelineRunner, type RunnerEntity } from '../../../main/runner/pipelineRunner';
import type { RunnerEvent } from '../../../main/runner/events';
import type { RefusedRow } from '../../../main/agents/spi';
import type { OnTableError } from '../../../shared/agents/common';
import type { NulCharacter } from '../../../shared/agents/targets';
import { ctConfiguration, sandboxCredentials } from '../../helpers/changeTracking';
import { DBA, sandboxPool } from '../../helpers/sandbox';
import { POSTGRES, postgresClient } from '../../helpers/replica';
import { until } from '../../helpers/until';

let sandbox: SandboxSqlServer;
let admin: sql.ConnectionPool;
let client: pg.Client;
const schemas: string[] = [];

const entities: RunnerEntity[] = ['Notes', 'Tags'].map((table) => ({
  source: { schema: 'dbo', table },
  target: { table: table.toLowerCase() },
}));

/** A runner of the pipeline (one per run, as the engine starts one at each start), and its schema. */
function runner(
  pipelineId: string,
  onTableError: OnTableError,
  events: RunnerEvent[],
  keep?: (rows: RefusedRow[]) => Record<string, number>,
  nulCharacter?: NulCharacter,
) {
  const schema = `isolation_${pipelineId}_${process.pid}`;
  if (!schemas.includes(schema)) schemas.push(schema);
  return {
    schema,
    runner: new PipelineRunner({
      openSource: () =>
        openChangeTrackingSource({
          credentials: sandboxCredentials(sandbox),
          configuration: ctConfiguration(),
          pipelineId,
          agentId: 'sales',
        }),
      openTarget: async () => new PostgresTarget({ ...POSTGRES, schema, nulCharacter }, pipelineId),
      entities,
      onEvent: (e) => events.push(e),
      onTableError,
      onRowsRefused: keep,
      retry: { firstDelayMs: 10, maxDelayMs: 50, maxAttempts: 2 },
    }),
  };
}

const note = (id: number, body: string) =>
  admin
    .request()
    .input('id', sql.Int, id)
    .input('body', sql.NVarChar(100), body)
    .query('INSERT INTO dbo.Notes (Id, Body) VALUES (@id, @body)');
const rowsOf = async (schema: string, table: string) =>
  (await client.query(`SELECT * FROM "${schema}"."${table}" ORDER BY 1`)).rows.map((r) => Object.values(r));

beforeAll(async () => {
  sandbox = await startSandboxSqlServer({ logins: [DBA], databases: ['Sales'] });
  admin = await sandboxPool(sandbox, { user: DBA.name, password: DBA.password, database: 'Sales' });
  await admin.request().batch(`
    ALTER DATABASE Sales SET ALLOW_SNAPSHOT_ISOLATION ON;
    ALTER DATABASE Sales SET CHANGE_TRACKING = ON (CHANGE_RETENTION = 2 DAYS, AUTO_CLEANUP = ON);
    CREATE TABLE dbo.Notes (Id int NOT NULL PRIMARY KEY, Body nvarchar(100) NULL);
    CREATE TABLE dbo.Tags (Id int NOT NULL PRIMARY KEY, Name nvarchar(50) NOT NULL);
    ALTER TABLE dbo.Notes ENABLE CHANGE_TRACKING;
    ALTER TABLE dbo.Tags ENABLE CHANGE_TRACKING;
    INSERT INTO dbo.Tags (Id, Name) VALUES (1, N'red'), (2, N'green');`);
  await note(1, 'first');
  client = await postgresClient();
});
afterAll(async () => {
  for (const schema of schemas) await client?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client?.end();
  await admin?.close();
  await sandbox?.close();
});

describe('a row the target refuses', () => {
  it('is kept aside with its reason while its table and the others stream on', async () => {
    const kept: RefusedRow[] = [];
    const keep = (rows: RefusedRow[]) => {
      kept.push(...rows);
      return { 'dbo.Notes': kept.length };
    };
    const events: RunnerEvent[] = [];
    const { runner: r, schema } = runner('keep', 'suspend-table', events, keep);
    await r.runUntilCaughtUp();
    await note(2, 'bad\u0000byte');
    await note(3, 'fine');
    await admin.request().batch("INSERT INTO dbo.Tags (Id, Name) VALUES (4, N'teal');");
    await runner('keep', 'suspend-table', events, keep).runner.runUntilCaughtUp();
    expect(kept).toEqual([
      {
        table: 'dbo.Notes',
        op: 'insert',
        key: { Id: 2 },
        position: expect.any(String),
        values: { Id: 2, Body: 'bad\u0000byte' },
        error: expect.stringMatching(/^PostgreSQL .*invalid byte sequence .*0x00$/),
      },
    ]);
    expect(await rowsOf(schema, 'notes')).toEqual([
      [1, 'first'],
      [3, 'fine'],
    ]);
    expect(await rowsOf(schema, 'tags')).toEqual([
      [1, 'red'],
      [2, 'green'],
      [4, 'teal'],
    ]);
    expect(events.some((e) => e.kind === 'table-suspended' || e.kind === 'failed')).toBe(false);
    await admin
      .request()
      .batch('DELETE FROM dbo.Notes WHERE Id IN (2, 3); DELETE FROM dbo.Tags WHERE Id = 4;');
  });
});

describe('U+0000 with the target set to replace it', () => {
  it('is written replaced, and each replacement counted', async () => {
    const events: RunnerEvent[] = [];
    const { runner: r, schema } = runner('replace', 'suspend-table', events, () => ({}), 'U+FFFD');
    await r.runUntilCaughtUp();
    await note(5, 'nul\u0000here');
    await runner('replace', 'suspend-table', events, () => ({}), 'U+FFFD').runner.runUntilCaughtUp();
    expect(await rowsOf(schema, 'notes')).toEqual([
      [1, 'first'],
      [5, 'nul\uFFFDhere'],
    ]);
    expect(events.filter((e) => e.kind === 'values-replaced')).toEqual([
      { kind: 'values-replaced', table: 'dbo.Notes', values: 1, by: 'target' },
    ]);
    await admin.request().batch('DELETE FROM dbo.Notes WHERE Id = 5;');
  });
});

describe('a table whose rows the target refuses, with nowhere to keep them', () => {
  it('is suspended at its position while the others stream on, then resumed once fixed', async () => {
    const events: RunnerEvent[] = [];
    const { runner: r, schema } = runner('suspend', 'suspend-table', events);
    await r.runUntilCaughtUp();
    expect(r.failure).toBeNull();
    expect(await rowsOf(schema, 'notes')).toEqual([[1, 'first']]);

    await note(2, 'bad\u0000byte');
    await admin
      .request()
      .batch(
        "UPDATE dbo.Tags SET Name = N'crimson' WHERE Id = 1; INSERT INTO dbo.Tags (Id, Name) VALUES (3, N'blue');",
      );
    await r.runUntilCaughtUp();
    const second = runner('suspend', 'suspend-table', events).runner;
    await second.runUntilCaughtUp();
    expect(second.failure).toBeNull();
    const suspended = events.filter((e) => e.kind === 'table-suspended');
    expect(suspended).toHaveLength(1);
    expect(suspended[0]).toMatchObject({ table: 'dbo.Notes' });
    expect(suspended[0]?.kind === 'table-suspended' && suspended[0].reason).toMatch(
      /^dbo\.Notes was suspended: .*0x00.*The pipeline's other tables go on; resume it once the cause is fixed: it reads on from where it stood\.$/,
    );
    expect(second.snapshots().find((t) => t.table === 'dbo.Notes')?.status).toBe('suspended');
    // The other table's changes went in; the suspended one holds what it had.
    expect(await rowsOf(schema, 'tags')).toEqual([
      [1, 'crimson'],
      [2, 'green'],
      [3, 'blue'],
    ]);
    expect(await rowsOf(schema, 'notes')).toEqual([[1, 'first']]);
    const applied = events.filter((e) => e.kind === 'batch-applied');
    expect(applied.at(-1)).toMatchObject({ tables: { 'dbo.Tags': { inserts: 1, updates: 1 } } });

    // Fixed at the source and resumed: the table reads on from its position, and equals the source.
    await admin.request().batch("UPDATE dbo.Notes SET Body = N'fixed' WHERE Id = 2;");
    const resumedFrom = events.length;
    const third = runner('suspend', 'suspend-table', events).runner;
    void third.start();
    await until('the pipeline streaming', () => third.state === 'streaming');
    expect(third.resumeTable('dbo.Notes')).toBe('resumed');
    await until('the row fixed', async () => (await rowsOf(schema, 'notes')).length === 2);
    await third.stop();
    expect(third.failure).toBeNull();
    expect(await rowsOf(schema, 'notes')).toEqual([
      [1, 'first'],
      [2, 'fixed'],
    ]);
    // Read on, not copied again.
    const afterResume = events.slice(resumedFrom);
    expect(afterResume.some((e) => e.kind === 'table-resumed' && e.table === 'dbo.Notes')).toBe(true);
    expect(afterResume.some((e) => e.kind === 'snapshot-started')).toBe(false);
  });

  it('stops the whole pipeline instead when the DBA chose stop-pipeline', async () => {
    await admin
      .request()
      .input('body', sql.NVarChar(100), 'bad\u0000again')
      .query('UPDATE dbo.Notes SET Body = @body WHERE Id = 2');
    const events: RunnerEvent[] = [];
    const { runner: r } = runner('stop', 'stop-pipeline', events);
    await r.runUntilCaughtUp();
    expect(r.state).toBe('failed');
    expect(r.failure).toMatch(/0x00/);
    expect(events.some((e) => e.kind === 'table-suspended')).toBe(false);
  });

  it('is suspended during its first copy too, the other tables copied and streaming', async () => {
    // Row 2 still holds U+0000 (the test before put it back).
    const events: RunnerEvent[] = [];
    const { runner: r, schema } = runner('copy', 'suspend-table', events);
    await r.runUntilCaughtUp();
    expect(r.failure).toBeNull();
    expect(
      events.filter((e) => e.kind === 'table-suspended').map((e) => e.kind === 'table-suspended' && e.table),
    ).toEqual(['dbo.Notes']);
    // Suspended in its first copy: resumed, the copy goes on from its cursor.
    expect(events.find((e) => e.kind === 'table-suspended')).toMatchObject({
      reason: expect.stringMatching(/resume it once the cause is fixed: it reads on from where it stood\.$/),
    });
    expect(await rowsOf(schema, 'tags')).toEqual([
      [1, 'crimson'],
      [2, 'green'],
      [3, 'blue'],
    ]);
  });
});
