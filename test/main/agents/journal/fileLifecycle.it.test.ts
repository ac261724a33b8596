// What a DBA does to a journaled file while a pipeline reads it, on the simulated IBM i into SQLite and
// PostgreSQL: a file renamed (RNMOBJ, D FN), moved (MOVOBJ, D FM) or deleted (DROP TABLE, D DT) stops
// that table alone, after its last changes, with the reason — the other table streams on, a restart
// keeps it stopped, and a re-snapshot takes it up again once it is back; a file restored from a save
// (RSTOBJ, F MR) is copied again, so the target holds the restored rows; a member cleared (CLRPFM, F CR)
// is copied again, so the target is emptied with it. Expected rows written out here.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IbmiConnection } from '../../../../lib/ibmi/connection';
import { openJournalSource } from '../../../../main/agents/journal/source';
import { PostgresTarget } from '../../../../main/agents/postgresql/target';
import { SqliteTarget } from '../../../../main/agents/sqlite/target';
import type { Target } from '../../../../main/agents/target';
import { PipelineRunner } from '../../../../main/runner/pipelineRunner';
import type { RunnerEvent } from '../../../../main/runner/events';
import { startSandboxIbmi, type SandboxIbmi } from '../../../../simulators/ibmi';
import { SEED_ADMIN } from '../../../../simulators/ibmi/seed';
import { journalConfiguration, journalEntity, sandboxIbmiCredentials } from '../../../helpers/journal';
import { POSTGRES, scratchSchema } from '../../../helpers/replica';
import { until } from '../../../helpers/until';

const items = journalEntity({ schema: 'LIFE', table: 'ITEMS' });
const notes = journalEntity({ schema: 'LIFE', table: 'NOTES' });

describe.each(['SQLite', 'PostgreSQL'] as const)('files renamed, moved, deleted, restored → %s', (label) => {
  let sandbox: SandboxIbmi;
  let admin: IbmiConnection;
  let client: pg.Client | undefined;
  let drop: (() => Promise<void>) | undefined;
  const path = join(mkdtempSync(join(tmpdir(), 'cdc-life-')), 'replica.sqlite');
  const schema = `cdc_life_${process.pid}`;
  const target = async (): Promise<Target> =>
    label === 'SQLite' ? new SqliteTarget(path, 'life') : new PostgresTarget({ ...POSTGRES, schema }, 'life');
  const runner = (events: RunnerEvent[]) =>
    new PipelineRunner({
      openSource: () =>
        openJournalSource({
          credentials: sandboxIbmiCredentials(sandbox, { syncLibrary: 'LIFESYNC' }),
          configuration: journalConfiguration(),
          pipelineId: 'life',
          agentId: 'src',
          entities: [items, notes],
        }),
      openTarget: target,
      entities: [items, notes].map((e) => ({ source: e.source, target: e.target })),
      onEvent: (e) => events.push(e),
      idleMs: 20,
      retry: { firstDelayMs: 10, maxDelayMs: 50, maxAttempts: 1 },
    });
  /** The target table's rows as `ID:NAME`, in key order. */
  const rows = async (table: string): Promise<string[]> => {
    let all: { ID: unknown; NAME: unknown }[];
    if (label === 'SQLite') {
      const db = new Database(path, { readonly: true });
      try {
        all = db.prepare(`SELECT "ID", "NAME" FROM "${table}" ORDER BY "ID"`).all() as typeof all;
      } finally {
        db.close();
      }
    } else
      all = (
        await (client as pg.Client).query(`SELECT "ID", "NAME" FROM "${schema}"."${table}" ORDER BY "ID"`)
      ).rows as typeof all;
    return all.map((r) => `${String(r.ID)}:${String(r.NAME)}`);
  };
  const stops = (events: RunnerEvent[]) => events.flatMap((e) => (e.kind === 'table-stopped' ? [e] : []));

  beforeAll(async () => {
    sandbox = await startSandboxIbmi({ seed: true });
    admin = await sandbox.connect({ ...SEED_ADMIN });
    await admin.query('CREATE SCHEMA LIFE');
    await admin.query('CREATE SCHEMA LIFEOLD');
    for (const t of ['ITEMS', 'NOTES']) {
      await admin.query(
        `CREATE TABLE LIFE.${t} (ID INTEGER NOT NULL PRIMARY KEY, NAME VARCHAR(20) NOT NULL)`,
      );
      await admin.command(`CHGJRNOBJ OBJ((LIFE/${t} *FILE)) ATR(*IMAGES) IMAGES(*BOTH)`);
      await admin.query(`INSERT INTO LIFE.${t} VALUES (1, 'one')`);
    }
    if (label === 'PostgreSQL') ({ client, drop } = await scratchSchema(schema));
  });
  afterAll(async () => {
    await admin?.close();
    await sandbox?.close();
    await drop?.();
  });

  it('a file renamed while running stops alone after its last change; the other streams on; a restart keeps it stopped; a re-snapshot takes it up once it is back', async () => {
    const events: RunnerEvent[] = [];
    const live = runner(events);
    const loop = live.start();
    await until('both copied', async () => (await rows('notes').catch(() => [])).length === 1);
    await admin.query("INSERT INTO LIFE.ITEMS VALUES (2, 'before rename')");
    await admin.command('RNMOBJ OBJ(LIFE/ITEMS) OBJTYPE(*FILE) NEWOBJ(ITEMS2)');
    await admin.query("INSERT INTO LIFE.ITEMS2 VALUES (3, 'under new name')");
    await admin.query("INSERT INTO LIFE.NOTES VALUES (2, 'after rename')");
    await until('notes streamed on', async () => (await rows('notes')).length === 2);
    await until('items stopped', () => stops(events).length === 1);
    expect(live.state).not.toBe('failed');
    expect(stops(events)[0]?.reason).toMatch(
      /^LIFE\/ITEMS was renamed \(RNMOBJ or RENAME TABLE, D FN\) at the source, journal entry \d+ in \S+\. The pipeline's other tables go on; ask for a re-snapshot of LIFE\.ITEMS once it is back\.$/,
    );
    expect(live.snapshots().find((s) => s.table === 'LIFE.ITEMS')).toMatchObject({ status: 'stopped' });
    await live.stop();
    await loop;
    // The change before the rename arrived; the one under the new name is not the entity's.
    expect(await rows('items')).toEqual(['1:one', '2:before rename']);

    // A restart: still stopped (kept at the target), no failure, the other table still read.
    await admin.query("INSERT INTO LIFE.NOTES VALUES (3, 'while stopped')");
    const again: RunnerEvent[] = [];
    const second = runner(again);
    await second.runUntilCaughtUp();
    expect(second.failure).toBeNull();
    expect(await rows('notes')).toEqual(['1:one', '2:after rename', '3:while stopped']);
    expect(second.snapshots().find((s) => s.table === 'LIFE.ITEMS')?.status).toBe('stopped');

    // Renamed back and copied again on request: the target holds the file as it is.
    await admin.command('RNMOBJ OBJ(LIFE/ITEMS2) OBJTYPE(*FILE) NEWOBJ(ITEMS)');
    const third: RunnerEvent[] = [];
    const taken = runner(third);
    const running = taken.start();
    await until('running', () => third.some((e) => e.kind === 'started'));
    await until('described', () => taken.snapshots().some((s) => s.table === 'LIFE.ITEMS'));
    expect(taken.requestSnapshot('LIFE.ITEMS')).toBe(true);
    await until('copied again', () =>
      third.some((e) => e.kind === 'snapshot-done' && e.table === 'LIFE.ITEMS'),
    );
    await admin.query("INSERT INTO LIFE.ITEMS VALUES (4, 'streamed again')");
    await until('streaming again', async () => (await rows('items')).length === 4);
    await taken.stop();
    await running;
    expect(taken.failure).toBeNull();
    expect(await rows('items')).toEqual(['1:one', '2:before rename', '3:under new name', '4:streamed again']);
    expect(taken.snapshots().find((s) => s.table === 'LIFE.ITEMS')?.status).toBe('done');
  });

  it('a file moved to another library, or deleted, stops alone with that reason', async () => {
    const events: RunnerEvent[] = [];
    const live = runner(events);
    const loop = live.start();
    await until('streaming', () => live.state === 'streaming');
    await admin.query("INSERT INTO LIFE.ITEMS VALUES (5, 'before move')");
    await admin.command('MOVOBJ OBJ(LIFE/ITEMS) OBJTYPE(*FILE) TOLIB(LIFEOLD)');
    await admin.query("INSERT INTO LIFE.NOTES VALUES (4, 'then drop')");
    await admin.query('DROP TABLE LIFE.NOTES');
    await until('both stopped', () => stops(events).length === 2);
    await live.stop();
    await loop;
    expect(live.failure).toBeNull();
    expect(stops(events).map((e) => e.reason.split(' at the source')[0])).toEqual([
      'LIFE/ITEMS was moved to another library (MOVOBJ, D FM)',
      'LIFE/NOTES was deleted (DLTF or DROP TABLE, D DT)',
    ]);
    expect(await rows('items')).toContain('5:before move');
    expect(await rows('notes')).toContain('4:then drop');
  });

  it('a file deleted while the pipeline was stopped stops alone at the next start', async () => {
    await admin.command('MOVOBJ OBJ(LIFEOLD/ITEMS) OBJTYPE(*FILE) TOLIB(LIFE)');
    await admin.query('CREATE TABLE LIFE.NOTES (ID INTEGER NOT NULL PRIMARY KEY, NAME VARCHAR(20) NOT NULL)');
    await admin.command('CHGJRNOBJ OBJ((LIFE/NOTES *FILE)) ATR(*IMAGES) IMAGES(*BOTH)');
    await admin.query("INSERT INTO LIFE.NOTES VALUES (9, 'new notes')");
    const events: RunnerEvent[] = [];
    const live = runner(events);
    const loop = live.start();
    await until('running', () => events.some((e) => e.kind === 'started'));
    for (const t of ['LIFE.ITEMS', 'LIFE.NOTES']) live.requestSnapshot(t);
    await until('both copied', () => events.filter((e) => e.kind === 'snapshot-done').length === 2);
    await live.stop();
    await loop;
    expect(await rows('notes')).toEqual(['9:new notes']);

    await admin.query('DROP TABLE LIFE.NOTES');
    await admin.query("INSERT INTO LIFE.ITEMS VALUES (6, 'after restart')");
    const later: RunnerEvent[] = [];
    const next = runner(later);
    await next.runUntilCaughtUp();
    expect(next.failure).toBeNull();
    expect(stops(later).map((e) => e.table)).toEqual(['LIFE.NOTES']);
    expect(stops(later)[0]?.reason).toContain(
      'LIFE.NOTES no longer exists at the source (dropped or renamed)',
    );
    expect(await rows('items')).toContain('6:after restart');
  });

  it('a file restored from a save (RSTOBJ) is copied again: the target holds the restored rows', async () => {
    await admin.command('CRTSAVF FILE(LIFEOLD/BACKUP)');
    await admin.command('SAVOBJ OBJ(ITEMS) LIB(LIFE) DEV(*SAVF) SAVF(LIFEOLD/BACKUP)');
    const saved = await admin.query('SELECT ID, NAME FROM LIFE.ITEMS ORDER BY ID');
    const events: RunnerEvent[] = [];
    const live = runner(events);
    const loop = live.start();
    await until('streaming', () => live.state === 'streaming');
    await admin.query("INSERT INTO LIFE.ITEMS VALUES (7, 'lost by the restore')");
    await admin.query('DELETE FROM LIFE.ITEMS WHERE ID = 1');
    await until('applied', async () => (await rows('items')).includes('7:lost by the restore'));
    await admin.command('RSTOBJ OBJ(ITEMS) SAVLIB(LIFE) DEV(*SAVF) SAVF(LIFEOLD/BACKUP)');
    await until('copied again', () =>
      events.some((e) => e.kind === 'snapshot-done' && e.table === 'LIFE.ITEMS'),
    );
    await live.stop();
    await loop;
    expect(live.failure).toBeNull();
    expect(events.find((e) => e.kind === 'resnapshot')).toMatchObject({
      table: 'LIFE.ITEMS',
      reason: 'a member was restored from a save (RSTOBJ, F MR)',
    });
    expect(await rows('items')).toEqual(saved.map((r) => `${String(r.ID)}:${String(r.NAME).trimEnd()}`));
  });

  it('a member cleared (CLRPFM, F CR: no record entries for the rows it removes) is copied again: the target is emptied too', async () => {
    const events: RunnerEvent[] = [];
    const live = runner(events);
    const loop = live.start();
    await until('streaming', () => live.state === 'streaming');
    expect((await rows('items')).length).toBeGreaterThan(0);
    await admin.command('CLRPFM FILE(LIFE/ITEMS)');
    await admin.query("INSERT INTO LIFE.ITEMS VALUES (8, 'after clear')");
    await until('copied again', () =>
      events.some((e) => e.kind === 'snapshot-done' && e.table === 'LIFE.ITEMS'),
    );
    await until('caught up', async () => (await rows('items')).includes('8:after clear'));
    await live.stop();
    await loop;
    expect(live.failure).toBeNull();
    expect(events.find((e) => e.kind === 'resnapshot')).toMatchObject({
      table: 'LIFE.ITEMS',
      reason: 'the member was cleared (CLRPFM) without record entries',
    });
    expect(await rows('items')).toEqual(['8:after clear']);
  });
});
