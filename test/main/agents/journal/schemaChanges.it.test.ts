// ALTER TABLE at the simulated IBM i while a pipeline runs into SQLite and PostgreSQL: changes written
// before the change decode with the old layout and those after it with the new one; the target gets
// the added column and the wider one, a dropped column is kept (nullable) or dropped as the pipeline
// says, and an event says what changed. A restart after an ALTER made while stopped reshapes the target
// before any row. The expected rows are written out here.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DroppedColumns } from '../../../../shared/agents/common';
import type { IbmiConnection } from '../../../../lib/ibmi/connection';
import { openJournalSource } from '../../../../main/agents/journal/source';
import { PostgresTarget } from '../../../../main/agents/postgresql/target';
import { SqliteTarget } from '../../../../main/agents/sqlite/target';
import type { Target } from '../../../../main/agents/target';
import { PipelineRunner } from '../../../../main/runner/pipelineRunner';
import type { RunnerEvent } from '../../../../main/runner/events';
import { startSandboxIbmi, type SandboxIbmi } from '../../../../simulators/ibmi';
import { ITEMS_DDS, SEED_ADMIN } from '../../../../simulators/ibmi/seed';
import { journalConfiguration, journalEntity, sandboxIbmiCredentials } from '../../../helpers/journal';
import { POSTGRES, scratchSchema } from '../../../helpers/replica';
import { until } from '../../../helpers/until';

const entity = journalEntity({ schema: 'SHOPX', table: 'ITEMS' });

describe.each(['SQLite', 'PostgreSQL'] as const)('ALTER TABLE while running → %s', (label) => {
  let sandbox: SandboxIbmi;
  let admin: IbmiConnection;
  let client: pg.Client | undefined;
  let drop: (() => Promise<void>) | undefined;
  const path = join(mkdtempSync(join(tmpdir(), 'cdc-alter-')), 'replica.sqlite');
  const schema = `cdc_alter_${process.pid}`;
  const target = async (): Promise<Target> =>
    label === 'SQLite'
      ? new SqliteTarget(path, 'alter')
      : new PostgresTarget({ ...POSTGRES, schema }, 'alter');
  const runner = (events: RunnerEvent[], droppedColumns: DroppedColumns = 'keep') =>
    new PipelineRunner({
      openSource: () =>
        openJournalSource({
          credentials: sandboxIbmiCredentials(sandbox, { syncLibrary: 'ALTERSYNC' }),
          configuration: journalConfiguration({ droppedColumns }),
          pipelineId: 'alter',
          agentId: 'src',
          entities: [entity],
        }),
      openTarget: target,
      entities: [{ source: entity.source, target: entity.target }],
      droppedColumns,
      onEvent: (e) => events.push(e),
      retry: { firstDelayMs: 10, maxDelayMs: 50, maxAttempts: 1 },
    });
  const rows = async (): Promise<Record<string, unknown>[]> => {
    if (label === 'SQLite') {
      const db = new Database(path, { readonly: true });
      try {
        return db.prepare('SELECT * FROM "items" ORDER BY "ID"').all() as Record<string, unknown>[];
      } finally {
        db.close();
      }
    }
    const r = await (client as pg.Client).query(`SELECT * FROM "${schema}"."items" ORDER BY "ID"`);
    return (r.rows as Record<string, unknown>[]).map((x) =>
      Object.fromEntries(
        Object.entries(x).map(([k, v]) => [k, typeof v === 'string' || v === null ? v : String(v)]),
      ),
    );
  };
  const id = (n: number) => (label === 'SQLite' ? n : String(n));
  const columns = async (): Promise<string[]> => Object.keys((await rows())[0] ?? {}).sort();

  beforeAll(async () => {
    sandbox = await startSandboxIbmi({ seed: true });
    admin = await sandbox.connect({ ...SEED_ADMIN });
    await admin.query('CREATE SCHEMA SHOPX');
    await admin.query(
      'CREATE TABLE SHOPX.ITEMS (ID INTEGER NOT NULL PRIMARY KEY, NAME VARCHAR(10) NOT NULL, OLDCODE CHAR(4) NOT NULL)',
    );
    await admin.command('CHGJRNOBJ OBJ((SHOPX/ITEMS *FILE)) ATR(*IMAGES) IMAGES(*BOTH)');
    await admin.query("INSERT INTO SHOPX.ITEMS VALUES (1, 'first', 'A1')");
    if (label === 'PostgreSQL') ({ client, drop } = await scratchSchema(schema));
  });
  afterAll(async () => {
    await admin?.close();
    await sandbox?.close();
    await drop?.();
  });

  it('decodes images before and after ALTER TABLE with their own layouts while running; adds and widens the target’s columns', async () => {
    const events: RunnerEvent[] = [];
    const live = runner(events);
    const loop = live.start();
    await until('row 1 copied', async () => (await rows().catch(() => [])).length === 1);
    // Written under the old layout, then the changes, then rows under the new one.
    await admin.query("INSERT INTO SHOPX.ITEMS VALUES (2, 'before', 'B2')");
    await admin.query('ALTER TABLE SHOPX.ITEMS ADD COLUMN PRICE DECIMAL(9,2)');
    await admin.query('ALTER TABLE SHOPX.ITEMS ALTER COLUMN NAME SET DATA TYPE VARCHAR(30)');
    await admin.query("INSERT INTO SHOPX.ITEMS VALUES (3, 'after the change, longer', 'C3', 12.50)");
    await admin.query('UPDATE SHOPX.ITEMS SET PRICE = 7.25 WHERE ID = 1');
    await until(
      'the changes after ALTER TABLE applied',
      async () => (await rows()).length === 3 && (await rows())[0]?.PRICE === '7.25',
    );
    await live.stop();
    await loop;
    expect(live.failure).toBeNull();
    expect(await rows()).toEqual([
      { ID: id(1), NAME: 'first', OLDCODE: 'A1  ', PRICE: '7.25' },
      { ID: id(2), NAME: 'before', OLDCODE: 'B2  ', PRICE: null },
      { ID: id(3), NAME: 'after the change, longer', OLDCODE: 'C3  ', PRICE: '12.50' },
    ]);
    const said = events.flatMap((e) => (e.kind === 'schema-changed' ? [e.reason] : [])).join('\n');
    expect(said).toMatch(/ALTER TABLE or CHGPF, journal entry \d+ \(D CG\).*column PRICE added/);
    if (label === 'PostgreSQL')
      expect(said).toContain('column NAME widened from character varying(10) to varchar(30)');
    // No copy: a nullable column added leaves the rows already there null on both sides.
    expect(events.filter((e) => e.kind === 'snapshot-started')).toHaveLength(1);
  });

  it('a NOT NULL column added with a default copies the table again, so the rows already there carry it', async () => {
    const events: RunnerEvent[] = [];
    const live = runner(events);
    const loop = live.start();
    await admin.query('ALTER TABLE SHOPX.ITEMS ADD COLUMN QTY INTEGER NOT NULL DEFAULT 5');
    await until('the copy after ADD COLUMN … NOT NULL', () => events.some((e) => e.kind === 'snapshot-done'));
    await live.stop();
    await loop;
    expect((await rows()).map((r) => String(r.QTY))).toEqual(['5', '5', '5']);
    expect(events.find((e) => e.kind === 'snapshot-started')).toMatchObject({
      reason: 'column QTY added NOT NULL: the rows already there took its default at the source',
    });
  });

  it('a column dropped while the pipeline was stopped is kept at the target, nullable, before any row', async () => {
    await admin.query('ALTER TABLE SHOPX.ITEMS DROP COLUMN OLDCODE');
    await admin.query("INSERT INTO SHOPX.ITEMS VALUES (4, 'no code', 1.00, 5)");
    const events: RunnerEvent[] = [];
    await runner(events).runUntilCaughtUp();
    expect(events.filter((e) => e.kind === 'failed')).toEqual([]);
    const all = await rows();
    expect(all.at(-1)).toEqual({
      ID: id(4),
      NAME: 'no code',
      OLDCODE: null,
      PRICE: '1.00',
      QTY: label === 'SQLite' ? 5 : '5',
    });
    expect(all[0]?.OLDCODE).toBe('A1  ');
    expect(
      events.some(
        (e) => e.kind === 'schema-changed' && e.reason.includes('column OLDCODE kept, made nullable'),
      ),
    ).toBe(true);
  });

  it('with droppedColumns "drop", the target drops the column too', async () => {
    const events: RunnerEvent[] = [];
    await runner(events, 'drop').runUntilCaughtUp();
    expect(await columns()).toEqual(['ID', 'NAME', 'PRICE', 'QTY']);
    expect(
      events.some((e) => e.kind === 'schema-changed' && e.reason.includes('column OLDCODE dropped')),
    ).toBe(true);
  });

  it('a nullable column added with a default copies the table again (the rows there hold it); without one, no copy', async () => {
    const events: RunnerEvent[] = [];
    const live = runner(events, 'drop');
    const loop = live.start();
    await until('streaming', () => live.state === 'streaming');
    await admin.query("ALTER TABLE SHOPX.ITEMS ADD COLUMN TAG CHAR(3) DEFAULT 'NEW'");
    await until('the copy after ADD COLUMN … DEFAULT', () => events.some((e) => e.kind === 'snapshot-done'));
    await admin.query('ALTER TABLE SHOPX.ITEMS ADD COLUMN NOTE VARCHAR(10)');
    await admin.query(
      "INSERT INTO SHOPX.ITEMS (ID, NAME, PRICE, QTY, NOTE) VALUES (5, 'five', 2.00, 1, 'n')",
    );
    await until('row 5', async () => (await rows()).length === 5);
    await live.stop();
    await loop;
    expect(live.failure).toBeNull();
    expect((await rows()).map((r) => [String(r.ID), r.TAG, r.NOTE])).toEqual([
      ['1', 'NEW', null],
      ['2', 'NEW', null],
      ['3', 'NEW', null],
      ['4', 'NEW', null],
      ['5', 'NEW', 'n'],
    ]);
    expect(events.filter((e) => e.kind === 'snapshot-started')).toEqual([
      expect.objectContaining({
        reason: 'column TAG added with a default: the rows already there took its default at the source',
      }),
    ]);
  });
});

describe('CHGPF of a DDS file from new source while running → SQLite (DDS discovery on)', () => {
  let sandbox: SandboxIbmi;
  let admin: IbmiConnection;
  const path = join(mkdtempSync(join(tmpdir(), 'cdc-chgpf-')), 'replica.sqlite');
  const items = journalEntity(
    { schema: 'LEGACY', table: 'ITEMS' },
    { rowIdentification: { kind: 'logicalKey', columns: ['ITEMNO'] } },
  );
  beforeAll(async () => {
    sandbox = await startSandboxIbmi({ seed: true });
    admin = await sandbox.connect({ ...SEED_ADMIN });
  });
  afterAll(async () => {
    await admin?.close();
    await sandbox?.close();
  });

  it('decodes the *MDY images before the change and the wider record after it, and adds the field at the target', async () => {
    const events: RunnerEvent[] = [];
    const live = new PipelineRunner({
      openSource: () =>
        openJournalSource({
          credentials: sandboxIbmiCredentials(sandbox, { syncLibrary: 'CHGSYNC', enableDdsDiscovery: true }),
          configuration: journalConfiguration(),
          pipelineId: 'chgpf',
          agentId: 'src',
          entities: [items],
        }),
      openTarget: async () => new SqliteTarget(path, 'chgpf'),
      entities: [{ source: items.source, target: items.target }],
      onEvent: (e) => events.push(e),
      retry: { firstDelayMs: 10, maxDelayMs: 50, maxAttempts: 1 },
    });
    const loop = live.start();
    const read = () => {
      try {
        const db = new Database(path, { readonly: true });
        try {
          return db.prepare('SELECT * FROM "items" ORDER BY "ITEMNO"').all() as Record<string, unknown>[];
        } finally {
          db.close();
        }
      } catch {
        return [];
      }
    };
    await until('the copy', () => read().length === 12);
    await admin.query("UPDATE LEGACY.ITEMS SET ADDED = '2026-11-23', PRICE = 1.25 WHERE ITEMNO = 1");
    // The new source: a COLOR field added after the dates.
    sandbox.putSource(
      'LEGACY',
      'QDDSSRC',
      'ITEMS',
      ITEMS_DDS.replace(
        '     A          K ITEMNO',
        '     A            COLOR         10A         ALWNULL\n     A          K ITEMNO',
      ),
    );
    await admin.command('CHGPF FILE(LEGACY/ITEMS) SRCFILE(LEGACY/QDDSSRC)');
    await admin.query("UPDATE LEGACY.ITEMS SET COLOR = 'Blau', ADDED = '2026-11-24' WHERE ITEMNO = 2");
    await until(
      'the change after CHGPF',
      () => String(read().find((r) => String(r.ITEMNO) === '2')?.COLOR).trim() === 'Blau',
    );
    await live.stop();
    await loop;
    expect(live.failure).toBeNull();
    const row = (n: string) => read().find((r) => String(r.ITEMNO) === n);
    const [one, two] = [row('1'), row('2')];
    expect(one).toMatchObject({ ITEMNO: '1', ADDED: '2026-11-23', PRICE: '1.25', COLOR: null });
    expect(two).toMatchObject({ ITEMNO: '2', ADDED: '2026-11-24', COLOR: 'Blau      ' });
    expect(events.some((e) => e.kind === 'schema-changed' && e.reason.includes('column COLOR added'))).toBe(
      true,
    );
  });
});
