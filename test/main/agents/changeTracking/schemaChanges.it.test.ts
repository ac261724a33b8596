// ALTER TABLE at the simulated SQL Server while a pipeline runs into SQLite and PostgreSQL: a column
// added reaches the target before the first row that sets it, a NOT NULL column added with a default
// copies the table again, a dropped column is kept (nullable) or dropped as the pipeline says, and a
// table dropped at the source stops that table alone while the others read on. The expected rows are
// written out here.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type sql from 'mssql';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DroppedColumns } from '../../../../shared/agents/common';
import { openChangeTrackingSource } from '../../../../main/agents/changeTracking/source';
import { PostgresTarget } from '../../../../main/agents/postgresql/target';
import { SqliteTarget } from '../../../../main/agents/sqlite/target';
import type { Target } from '../../../../main/agents/target';
import { PipelineRunner } from '../../../../main/runner/pipelineRunner';
import type { RunnerEvent } from '../../../../main/runner/events';
import type { SandboxSqlServer } from '../../../../simulators/mssql';
import { ctConfiguration, readySandbox, sandboxCredentials } from '../../../helpers/changeTracking';
import { POSTGRES, scratchSchema } from '../../../helpers/replica';
import { until } from '../../../helpers/until';

const items = { schema: 'dbo', table: 'Items' };
const extra = { schema: 'dbo', table: 'Extra' };

describe.each(['SQLite', 'PostgreSQL'] as const)('ALTER TABLE at SQL Server while running → %s', (label) => {
  let sandbox: SandboxSqlServer;
  let admin: sql.ConnectionPool;
  let client: pg.Client | undefined;
  let drop: (() => Promise<void>) | undefined;
  const path = join(mkdtempSync(join(tmpdir(), 'cdc-ct-alter-')), 'replica.sqlite');
  const schema = `cdc_ct_alter_${process.pid}`;
  const target = async (): Promise<Target> =>
    label === 'SQLite'
      ? new SqliteTarget(path, 'alter')
      : new PostgresTarget({ ...POSTGRES, schema }, 'alter');
  const runner = (events: RunnerEvent[], droppedColumns: DroppedColumns = 'keep') =>
    new PipelineRunner({
      openSource: () =>
        openChangeTrackingSource({
          credentials: sandboxCredentials(sandbox),
          configuration: ctConfiguration({ droppedColumns }),
          pipelineId: 'alter',
          agentId: 'src',
        }),
      openTarget: target,
      entities: [
        { source: items, target: { table: 'items' } },
        { source: extra, target: { table: 'extra' } },
      ],
      droppedColumns,
      onEvent: (e) => events.push(e),
      retry: { firstDelayMs: 10, maxDelayMs: 50, maxAttempts: 1 },
    });
  const rows = async (table = 'items'): Promise<Record<string, unknown>[]> => {
    if (label === 'SQLite') {
      const db = new Database(path, { readonly: true });
      try {
        return (db.prepare(`SELECT * FROM "${table}" ORDER BY "Id"`).all() as Record<string, unknown>[]).map(
          (x) => Object.fromEntries(Object.entries(x).map(([k, v]) => [k, v === null ? v : String(v)])),
        );
      } finally {
        db.close();
      }
    }
    const r = await (client as pg.Client).query(`SELECT * FROM "${schema}"."${table}" ORDER BY "Id"`);
    return (r.rows as Record<string, unknown>[]).map((x) =>
      Object.fromEntries(Object.entries(x).map(([k, v]) => [k, v === null ? v : String(v)])),
    );
  };
  const run = (text: string) => admin.request().batch(text);
  const said = (events: RunnerEvent[]) =>
    events.flatMap((e) => (e.kind === 'schema-changed' ? [e.reason] : [])).join('\n');

  beforeAll(async () => {
    ({ sandbox, admin } = await readySandbox(`
      CREATE TABLE dbo.Items (Id INT PRIMARY KEY, Name NVARCHAR(20) NOT NULL, OldCode CHAR(4) NULL);
      CREATE TABLE dbo.Extra (Id INT PRIMARY KEY, Note NVARCHAR(20) NULL);
      ALTER TABLE dbo.Items ENABLE CHANGE_TRACKING WITH (TRACK_COLUMNS_UPDATED = ON);
      ALTER TABLE dbo.Extra ENABLE CHANGE_TRACKING;
      INSERT INTO dbo.Items VALUES (1, N'first', 'A1');
      INSERT INTO dbo.Extra VALUES (1, N'extra');`));
    if (label === 'PostgreSQL') ({ client, drop } = await scratchSchema(schema));
  });
  afterAll(async () => {
    await admin?.close();
    await sandbox?.close();
    await drop?.();
  });

  it('adds a column at the target while running; rows that set it, and an update of an older row, arrive exact', async () => {
    const events: RunnerEvent[] = [];
    const live = runner(events);
    const loop = live.start();
    await until('row 1 copied', async () => (await rows().catch(() => [])).length === 1);
    await run("INSERT INTO dbo.Items (Id, Name, OldCode) VALUES (2, N'before', 'B2')");
    await run('ALTER TABLE dbo.Items ADD Price DECIMAL(9, 2) NULL');
    await run(`INSERT INTO dbo.Items VALUES (3, N'after — ünï', 'C3', 12.50);
      UPDATE dbo.Items SET Price = 7.25 WHERE Id = 1;`);
    await until('the changes after ALTER TABLE', async () => (await rows())[0]?.Price === '7.25');
    await live.stop();
    await loop;
    expect(live.failure).toBeNull();
    expect(await rows()).toEqual([
      { Id: '1', Name: 'first', OldCode: 'A1  ', Price: '7.25' },
      { Id: '2', Name: 'before', OldCode: 'B2  ', Price: null },
      { Id: '3', Name: 'after — ünï', OldCode: 'C3  ', Price: '12.50' },
    ]);
    expect(said(events)).toMatch(/the columns of dbo\.Items changed at the source.*column Price added/);
    // A nullable column added without WITH VALUES leaves the rows there null on both sides: no copy.
    expect(events.filter((e) => e.kind === 'snapshot-started')).toHaveLength(2);
  });

  it('a NOT NULL column added with a default copies the table again, so the rows already there carry it', async () => {
    const events: RunnerEvent[] = [];
    const live = runner(events);
    const loop = live.start();
    await until('streaming', () => live.state === 'streaming');
    await run('ALTER TABLE dbo.Items ADD Qty INT NOT NULL DEFAULT 5');
    await until('the copy after ADD … NOT NULL', () => events.some((e) => e.kind === 'snapshot-done'));
    await live.stop();
    await loop;
    expect((await rows()).map((r) => r.Qty)).toEqual(['5', '5', '5']);
    expect(events.find((e) => e.kind === 'snapshot-started')).toMatchObject({
      reason: 'column Qty added NOT NULL: the rows already there took its default at the source',
    });
  });

  it('a dropped column is kept at the target, nullable; with droppedColumns "drop" it goes too', async () => {
    const events: RunnerEvent[] = [];
    const live = runner(events);
    const loop = live.start();
    await until('streaming', () => live.state === 'streaming');
    await run(`ALTER TABLE dbo.Items DROP COLUMN OldCode;
      INSERT INTO dbo.Items (Id, Name, Price, Qty) VALUES (4, N'no code', 1.00, 2);`);
    await until('row 4', async () => (await rows()).length === 4);
    await live.stop();
    await loop;
    expect(live.failure).toBeNull();
    expect((await rows()).at(-1)).toEqual({
      Id: '4',
      Name: 'no code',
      OldCode: null,
      Price: '1.00',
      Qty: '2',
    });
    expect((await rows())[0]?.OldCode).toBe('A1  ');
    expect(said(events)).toContain('column OldCode kept at the target (no longer at the source');
    const dropping: RunnerEvent[] = [];
    await runner(dropping, 'drop').runUntilCaughtUp();
    expect(Object.keys((await rows())[0] ?? {}).sort()).toEqual(['Id', 'Name', 'Price', 'Qty']);
    expect(said(dropping)).toContain('column OldCode dropped');
  });

  it('a column renamed by sp_rename (modify_date unmoved) is added under its new name and the table copied again', async () => {
    const events: RunnerEvent[] = [];
    const live = runner(events, 'drop');
    const loop = live.start();
    await until('streaming', () => live.state === 'streaming');
    await admin.request().input('o', 'dbo.Items.Name').input('n', 'Title').execute('sp_rename');
    await run("UPDATE dbo.Items SET Title = N'renamed' WHERE Id = 2");
    await until('the copy after the rename', () => events.some((e) => e.kind === 'snapshot-done'));
    await until('row 2 renamed', async () => (await rows())[1]?.Title === 'renamed');
    await live.stop();
    await loop;
    expect(live.failure).toBeNull();
    expect((await rows()).map((r) => r.Title)).toEqual(['first', 'renamed', 'after — ünï', 'no code']);
    expect(Object.keys((await rows())[0] ?? {}).sort()).toEqual(['Id', 'Price', 'Qty', 'Title']);
    expect(events.find((e) => e.kind === 'snapshot-started')).toMatchObject({
      reason:
        'column Name renamed to Title at the source: the rows already there hold its values under the new name',
    });
  });

  it('ALTER COLUMN: a wider type is followed in place; a type the target cannot convert to makes the column again and copies the table', async () => {
    const events: RunnerEvent[] = [];
    const live = runner(events, 'drop');
    const loop = live.start();
    await until('streaming', () => live.state === 'streaming');
    await run(`ALTER TABLE dbo.Items ALTER COLUMN Title NVARCHAR(200) NOT NULL;
      UPDATE dbo.Items SET Title = N'${'long '.repeat(20).trim()}' WHERE Id = 4;`);
    await until('the long title', async () => (await rows())[3]?.Title === 'long '.repeat(20).trim());
    expect(events.some((e) => e.kind === 'snapshot-started')).toBe(false);
    await run('ALTER TABLE dbo.Items ALTER COLUMN Qty NVARCHAR(10) NULL');
    await until('the copy after ALTER COLUMN', () => events.some((e) => e.kind === 'snapshot-done'));
    await run("UPDATE dbo.Items SET Qty = N'x' WHERE Id = 1");
    await until('Qty as text', async () => (await rows())[0]?.Qty === 'x');
    await live.stop();
    await loop;
    expect(live.failure).toBeNull();
    expect((await rows()).map((r) => r.Qty)).toEqual(['x', '5', '5', '2']);
    expect(events.find((e) => e.kind === 'snapshot-started')).toMatchObject({
      reason: expect.stringMatching(/^column Qty from int to nvarchar\(10\) changed type at the source/),
    });
    if (label === 'PostgreSQL') {
      const type = await (client as pg.Client).query(
        `SELECT data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'items' AND column_name = 'Qty'`,
        [schema],
      );
      expect(type.rows[0]).toEqual({ data_type: 'character varying' });
    }
  });

  it('TRUNCATE TABLE while caught up, and while behind between unread changes, leaves the target equal to the source', async () => {
    const caughtUp: RunnerEvent[] = [];
    await runner(caughtUp, 'drop').runUntilCaughtUp();
    await run('TRUNCATE TABLE dbo.Extra');
    const truncated: RunnerEvent[] = [];
    await runner(truncated, 'drop').runUntilCaughtUp();
    expect(truncated.find((e) => e.kind === 'resnapshot')).toMatchObject({
      table: 'dbo.Extra',
      reason: expect.stringMatching(/^dbo\.Extra was truncated \(TRUNCATE TABLE\) after version \d+/),
    });
    expect(await rows('extra')).toEqual([]);
    await run(`INSERT INTO dbo.Extra VALUES (7, N'gone soon'), (8, N'gone too');
      TRUNCATE TABLE dbo.Extra;
      INSERT INTO dbo.Extra VALUES (9, N'kept');`);
    const behind: RunnerEvent[] = [];
    await runner(behind, 'drop').runUntilCaughtUp();
    expect(behind.filter((e) => e.kind === 'resnapshot')).toEqual([
      expect.objectContaining({
        table: 'dbo.Extra',
        reason: expect.stringContaining('was truncated (TRUNCATE TABLE)'),
      }),
    ]);
    expect(await rows('extra')).toEqual([{ Id: '9', Note: 'kept' }]);
    // As the next test expects Extra: one row.
    await run("DELETE FROM dbo.Extra WHERE Id = 9; INSERT INTO dbo.Extra VALUES (1, N'extra');");
  });

  it('a table dropped at the source stops alone, with the reason; the other table reads on', async () => {
    const events: RunnerEvent[] = [];
    const live = runner(events, 'drop');
    const loop = live.start();
    await until('streaming', () => live.state === 'streaming');
    await run("UPDATE dbo.Extra SET Note = N'last' WHERE Id = 1");
    await until('the last change of Extra', async () => (await rows('extra'))[0]?.Note === 'last');
    await run(`DROP TABLE dbo.Extra;
      INSERT INTO dbo.Items (Id, Title, Price, Qty) VALUES (5, N'five', 5.00, 5);`);
    await until('row 5', async () => (await rows()).length === 5);
    await live.stop();
    await loop;
    expect(live.failure).toBeNull();
    expect(events.find((e) => e.kind === 'table-stopped')).toMatchObject({
      table: 'dbo.Extra',
      reason: expect.stringContaining('dbo.Extra no longer exists at the source'),
    });
    // The target keeps what it had.
    expect(await rows('extra')).toEqual([{ Id: '1', Note: 'last' }]);
  });
});
