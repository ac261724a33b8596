// A journaled record a program wrote with blanks in a packed field (as RPG or CPYF FMTOPT(*NOCHK) can;
// SQL refuses to read it, SQL0802): never skipped, never stopping the pipeline. The journal agent's
// change is kept aside with the raw record image and the field named while the table's other changes
// go on; a retry while the data is still bad is refused again with the source's words, and succeeds
// once the record is corrected; with invalidDecimals "zero" the row goes in with 0 in that field,
// counted. Into SQLite and PostgreSQL.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openJournalSource } from '../../../main/agents/journal/source';
import { PostgresTarget } from '../../../main/agents/postgresql/target';
import { tableKey, type Row, type TableRef } from '../../../main/agents/source';
import type { RefusedRow } from '../../../main/agents/spi';
import { SqliteTarget } from '../../../main/agents/sqlite/target';
import type { Target } from '../../../main/agents/target';
import type { RunnerEvent } from '../../../main/runner/events';
import { PipelineRunner } from '../../../main/runner/pipelineRunner';
import { startSandboxIbmi, type SandboxIbmi } from '../../../simulators/ibmi';
import { SEED_ADMIN } from '../../../simulators/ibmi/seed';
import { QPGMR } from '../../../simulators/ibmi/system/users';
import type { IbmiConnection } from '../../../lib/ibmi/connection';
import { journalConfiguration, journalEntity, sandboxIbmiCredentials } from '../../helpers/journal';
import { POSTGRES, postgresClient } from '../../helpers/replica';
import { until } from '../../helpers/until';

let ibmi: SandboxIbmi;
let admin: IbmiConnection;
let client: pg.Client;
const SCHEMA = 'BADDATA';
/** DECIMAL(12,2) is packed in 7 bytes: a program that moved blanks into it. */
const BLANKS = Buffer.alloc(7, 0x40);

/** Rows refused kept in `kept`, answered as the exceptions store answers its count for the table. */
const keptInto = (kept: RefusedRow[], ref: TableRef) => (refused: readonly RefusedRow[]) => {
  kept.push(...refused);
  return { [tableKey(ref)]: kept.length };
};

beforeAll(async () => {
  ibmi = await startSandboxIbmi({ seed: true });
  admin = await ibmi.connect({ ...SEED_ADMIN });
  await admin.query(`CREATE SCHEMA ${SCHEMA}`);
  client = await postgresClient();
});
afterAll(async () => {
  await client?.end();
  await admin?.close();
  await ibmi?.close();
});

describe.each(['sqlite', 'postgresql'] as const)(
  'a record with invalid packed data, into %s',
  (targetKind) => {
    it('is kept aside with its image, the table goes on, and a retry applies it once corrected', async () => {
      const file = `BAD${targetKind === 'sqlite' ? 'S' : 'P'}`;
      const ref = { schema: SCHEMA, table: file };
      await admin.query(
        `CREATE TABLE ${SCHEMA}.${file} (ID INTEGER NOT NULL PRIMARY KEY, NAME VARCHAR(20) NOT NULL, AMOUNT DECIMAL(12,2) NOT NULL)`,
      );
      await admin.command(`CHGJRNOBJ OBJ((${SCHEMA}/${file} *FILE)) ATR(*IMAGES) IMAGES(*BOTH)`);
      await admin.query(`INSERT INTO ${SCHEMA}.${file} VALUES (1, 'one', 1.50), (2, 'two', 2.50)`);
      const physical = ibmi.system.file(SCHEMA, file);
      if (!physical) throw new Error('no file');

      const pipelineId = `bad_${targetKind}`;
      const schema = `${pipelineId}_${process.pid}`;
      const path = join(mkdtempSync(join(tmpdir(), 'cdc-bad-')), 'replica.sqlite');
      if (targetKind === 'postgresql') await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      const openTarget = async (): Promise<Target> =>
        targetKind === 'sqlite'
          ? new SqliteTarget(path, pipelineId)
          : new PostgresTarget({ ...POSTGRES, schema }, pipelineId);
      const rows = async (): Promise<Row[]> =>
        targetKind === 'sqlite'
          ? (new Database(path, { readonly: true })
              .prepare(`SELECT * FROM "${file.toLowerCase()}" ORDER BY 1`)
              .all() as Row[])
          : ((await client.query(`SELECT * FROM "${schema}"."${file.toLowerCase()}" ORDER BY 1`))
              .rows as Row[]);
      const amounts = async () => (await rows()).map((r) => [Number(r.ID), Number(r.AMOUNT)]);

      const kept: (RefusedRow & { id: number })[] = [];
      const events: RunnerEvent[] = [];
      const runner = (invalidDecimals: 'keep-row-aside' | 'zero' = 'keep-row-aside') =>
        new PipelineRunner({
          openSource: () =>
            openJournalSource({
              credentials: sandboxIbmiCredentials(ibmi),
              configuration: journalConfiguration({ invalidDecimals }),
              pipelineId,
              agentId: 'source',
            }),
          openTarget,
          entities: [journalEntity(ref)],
          onEvent: (e) => events.push(e),
          idleMs: 20,
          onRowsRefused: (refused) => {
            for (const r of refused) kept.push({ ...r, id: kept.length + 1 });
            return { [tableKey(ref)]: kept.length };
          },
        });
      const caughtUp = async (invalidDecimals?: 'keep-row-aside' | 'zero') => {
        const r = runner(invalidDecimals);
        await r.runUntilCaughtUp();
        expect(r.failure).toBeNull();
      };
      await caughtUp();

      // A program writes row 3 with blanks in AMOUNT; SQL changes row 1 after it.
      ibmi.system.writeFromProgram(physical, { ID: 3, NAME: 'three', AMOUNT: BLANKS });
      await admin.query(`UPDATE ${SCHEMA}.${file} SET AMOUNT = 1.75 WHERE ID = 1`);
      await expect(admin.query(`SELECT AMOUNT FROM ${SCHEMA}.${file} WHERE ID = 3`)).rejects.toThrow(
        /SQL0802/,
      );
      await caughtUp();
      expect(kept).toHaveLength(1);
      expect(kept[0]).toMatchObject({
        table: tableKey(ref),
        key: { ID: 3 },
        values: { ID: 3, AMOUNT: null },
      });
      expect(kept[0]?.error).toMatch(
        /holds data no SQL reader maps \(AMOUNT: Packed decimal has a bad sign nibble 0\)/,
      );
      expect(Buffer.from(kept[0]?.raw ?? []).toString('hex')).toContain('40404040404040');
      expect(await amounts()).toEqual([
        [1, 1.75],
        [2, 2.5],
      ]);
      expect(events.some((e) => e.kind === 'failed' || e.kind === 'table-suspended')).toBe(false);

      // Retried while the record is still bad: the source's refusal, kept; then corrected and applied.
      const retry = async () => {
        const r = runner();
        void r.start();
        try {
          await until('streaming', () => r.state === 'streaming');
          return await r.retryRows(kept.map((k) => ({ id: k.id, table: k.table, key: k.key })));
        } finally {
          await r.stop();
        }
      };
      expect(await retry()).toEqual([
        {
          id: 1,
          status: 'refused',
          error: expect.stringMatching(/could not read the rows again: .*SQL0802/),
        },
      ]);
      ibmi.system.writeFromProgram(physical, { ID: 3, NAME: 'three', AMOUNT: '3.25' }, 3);
      expect(await retry()).toEqual([{ id: 1, status: 'applied' }]);
      expect((await amounts()).find(([id]) => id === 3)?.[1]).toBe(3.25);

      // With invalidDecimals "zero" such a row goes in with 0, counted.
      ibmi.system.writeFromProgram(physical, { ID: 4, NAME: 'four', AMOUNT: BLANKS });
      events.length = 0;
      await caughtUp('zero');
      expect((await amounts()).find(([id]) => id === 4)?.[1]).toBe(0);
      expect(events.find((e) => e.kind === 'values-replaced')).toEqual({
        kind: 'values-replaced',
        table: tableKey(ref),
        values: 1,
        by: 'source',
      });
      expect(kept).toHaveLength(1);
    });
  },
);

describe('a record kept aside says what happened to it', () => {
  it('each journal entry type that is a change of its own keeps its operation: PT and PX insert, UP update, DL delete', async () => {
    const file = 'BADOPS';
    const ref = { schema: SCHEMA, table: file };
    await admin.query(
      `CREATE TABLE ${SCHEMA}.${file} (ID INTEGER NOT NULL PRIMARY KEY, NAME VARCHAR(20) NOT NULL, AMOUNT DECIMAL(12,2) NOT NULL)`,
    );
    await admin.command(`CHGJRNOBJ OBJ((${SCHEMA}/${file} *FILE)) ATR(*IMAGES) IMAGES(*BOTH)`);
    await admin.query(`INSERT INTO ${SCHEMA}.${file} VALUES (1, 'one', 1.50)`);
    const physical = ibmi.system.file(SCHEMA, file);
    if (!physical) throw new Error('no file');
    const path = join(mkdtempSync(join(tmpdir(), 'cdc-badops-')), 'replica.sqlite');
    const kept: RefusedRow[] = [];
    const run = async () => {
      const r = new PipelineRunner({
        openSource: () =>
          openJournalSource({
            credentials: sandboxIbmiCredentials(ibmi),
            configuration: journalConfiguration(),
            pipelineId: 'badops',
            agentId: 'source',
          }),
        openTarget: async () => new SqliteTarget(path, 'badops'),
        entities: [journalEntity(ref)],
        idleMs: 20,
        onRowsRefused: keptInto(kept, ref),
      });
      await r.runUntilCaughtUp();
      expect(r.failure).toBeNull();
    };
    await run();
    const types = async () =>
      (
        await admin.query(
          `SELECT JOURNAL_ENTRY_TYPE AS T FROM TABLE(QSYS2.DISPLAY_JOURNAL('${SCHEMA}', 'QSQJRN')) WHERE OBJECT LIKE '%${file}%' ORDER BY SEQUENCE_NUMBER`,
        )
      ).map((r) => String(r.T).trim());

    // PT: a program adds a record with blanks in AMOUNT; DL: it is deleted; PX: another is added into
    // the freed slot (an SQL table reuses deleted records); UP: that one is rewritten, still bad.
    const rrn = ibmi.system.writeFromProgram(physical, { ID: 10, NAME: 'ten', AMOUNT: BLANKS });
    ibmi.system.deleteRecord(ibmi.system.newJob(QPGMR), physical, ibmi.system.member(physical, null), rrn);
    const again = ibmi.system.writeFromProgram(physical, { ID: 11, NAME: 'eleven', AMOUNT: BLANKS });
    expect(again).toBe(rrn);
    ibmi.system.writeFromProgram(physical, { ID: 11, NAME: 'eleven!', AMOUNT: BLANKS }, again);
    expect((await types()).filter((t: string) => ['PT', 'PX', 'UP', 'DL'].includes(t)).slice(-4)).toEqual([
      'PT',
      'DL',
      'PX',
      'UP',
    ]);
    await run();
    expect(kept.map((k) => [k.op, k.key])).toEqual([
      ['insert', { ID: 10 }],
      ['delete', { ID: 10 }],
      ['insert', { ID: 11 }],
      ['update', { ID: 11 }],
    ]);
  });
});

describe('a decode policy per column', () => {
  it('writes zero and the chosen date where the entity says, over the pipeline; a misfit names the column', async () => {
    const file = 'BADCOL';
    const ref = { schema: SCHEMA, table: file };
    await admin.query(
      `CREATE TABLE ${SCHEMA}.${file} (ID INTEGER NOT NULL PRIMARY KEY, NAME VARCHAR(20) NOT NULL, AMOUNT DECIMAL(12,2) NOT NULL, DUE DATE NOT NULL)`,
    );
    await admin.command(`CHGJRNOBJ OBJ((${SCHEMA}/${file} *FILE)) ATR(*IMAGES) IMAGES(*BOTH)`);
    await admin.query(`INSERT INTO ${SCHEMA}.${file} VALUES (1, 'one', 1.50, '2026-01-31')`);
    const physical = ibmi.system.file(SCHEMA, file);
    if (!physical) throw new Error('no file');
    const path = join(mkdtempSync(join(tmpdir(), 'cdc-badcol-')), 'replica.sqlite');
    const events: RunnerEvent[] = [];
    const runner = (invalidValues: Record<string, string>) =>
      new PipelineRunner({
        openSource: () =>
          openJournalSource({
            credentials: sandboxIbmiCredentials(ibmi),
            configuration: journalConfiguration(),
            pipelineId: 'badcol',
            agentId: 'source',
            entities: [journalEntity(ref, { invalidValues })],
          }),
        openTarget: async () => new SqliteTarget(path, 'badcol'),
        entities: [journalEntity(ref, { invalidValues })],
        onEvent: (e) => events.push(e),
        idleMs: 20,
        onRowsRefused: () => ({}),
      });
    const chosen = { AMOUNT: 'zero', DUE: '1900-01-01' };
    const first = runner(chosen);
    await first.runUntilCaughtUp();
    expect(first.failure).toBeNull();

    // A program writes row 2 with blanks in AMOUNT and zeros in DUE (an ISO date of 0000-00-00).
    const zeroDate = Buffer.from([0xf0, 0xf0, 0xf0, 0xf0, 0x60, 0xf0, 0xf0, 0x60, 0xf0, 0xf0]);
    ibmi.system.writeFromProgram(physical, { ID: 2, NAME: 'two', AMOUNT: BLANKS, DUE: zeroDate });
    events.length = 0;
    const second = runner(chosen);
    await second.runUntilCaughtUp();
    expect(second.failure).toBeNull();
    const db = new Database(path, { readonly: true });
    const row = db.prepare(`SELECT AMOUNT, DUE FROM "${file.toLowerCase()}" WHERE ID = 2`).get();
    db.close();
    expect(row).toEqual({ AMOUNT: '0.00', DUE: '1900-01-01' });
    expect(events.find((e) => e.kind === 'values-replaced')).toMatchObject({ values: 2, by: 'source' });

    const misfit = runner({ ID: 'zero' });
    await misfit.runUntilCaughtUp();
    expect(misfit.failure).toMatch(
      /BADDATA\.BADCOL invalidValues\.ID = "zero": ID is INTEGER, whose values are always decoded/,
    );
    const wrongWord = runner({ NAME: 'zero' });
    await wrongWord.runUntilCaughtUp();
    expect(wrongWord.failure).toMatch(
      /invalidValues\.NAME = "zero": NAME is VARCHAR\(20\), which takes keep-row-aside, null, replace/,
    );
  });
});

describe('text with a byte its CCSID has no character for', () => {
  it('is kept aside with its bytes by default, or written null or with U+FFFD where the policy says, counted', async () => {
    const file = 'BADTXT';
    const ref = { schema: SCHEMA, table: file };
    // CCSID 290 (Japanese Katakana) has no character at 0x57.
    await admin.query(
      `CREATE TABLE ${SCHEMA}.${file} (ID INTEGER NOT NULL PRIMARY KEY, NAME CHAR(4) CCSID 290, CODE CHAR(4) CCSID 290)`,
    );
    await admin.command(`CHGJRNOBJ OBJ((${SCHEMA}/${file} *FILE)) ATR(*IMAGES) IMAGES(*BOTH)`);
    await admin.query(`INSERT INTO ${SCHEMA}.${file} VALUES (1, 'ONE', 'A')`);
    const physical = ibmi.system.file(SCHEMA, file);
    if (!physical) throw new Error('no file');
    const path = join(mkdtempSync(join(tmpdir(), 'cdc-badtxt-')), 'replica.sqlite');
    const kept: RefusedRow[] = [];
    const events: RunnerEvent[] = [];
    const run = async (
      invalidText: 'keep-row-aside' | 'null' | 'replace',
      invalidValues?: Record<string, string>,
    ) => {
      const entity = journalEntity(ref, invalidValues ? { invalidValues } : {});
      const r = new PipelineRunner({
        openSource: () =>
          openJournalSource({
            credentials: sandboxIbmiCredentials(ibmi),
            configuration: journalConfiguration({ invalidText }),
            pipelineId: 'badtxt',
            agentId: 'source',
            entities: [entity],
          }),
        openTarget: async () => new SqliteTarget(path, 'badtxt'),
        entities: [entity],
        onEvent: (e) => events.push(e),
        idleMs: 20,
        onRowsRefused: keptInto(kept, ref),
      });
      await r.runUntilCaughtUp();
      expect(r.failure).toBeNull();
    };
    const row = (id: number) => {
      const db = new Database(path, { readonly: true });
      const found = db.prepare(`SELECT NAME, CODE FROM "${file.toLowerCase()}" WHERE ID = ?`).get(id);
      db.close();
      return found;
    };
    /** "A", a byte CCSID 290 lacks, "B" and a blank: as a program moved them into the field. */
    const unmapped = Buffer.from([0xc1, 0x57, 0xc2, 0x40]);
    await run('keep-row-aside');

    // By default: kept aside with the image's bytes and the field and byte named; the table goes on.
    ibmi.system.writeFromProgram(physical, { ID: 2, NAME: unmapped, CODE: 'B' });
    await admin.query(`UPDATE ${SCHEMA}.${file} SET CODE = 'C' WHERE ID = 1`);
    await run('keep-row-aside');
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({ table: tableKey(ref), op: 'insert', key: { ID: 2 } });
    expect(kept[0]?.error).toMatch(
      /holds text with no character in its CCSID \(NAME: byte 0x57 at offset 1 maps to no character in CCSID 290\)\. .*"Text with no character"/,
    );
    expect(Buffer.from(kept[0]?.raw ?? []).toString('hex')).toContain('c157c240');
    expect(row(2)).toBeUndefined();
    expect(row(1)).toEqual({ NAME: 'ONE ', CODE: 'C   ' });

    // "null" and "replace" write the row, each replacement counted; no row kept aside.
    events.length = 0;
    ibmi.system.writeFromProgram(physical, { ID: 3, NAME: unmapped, CODE: 'D' });
    await run('null');
    expect(row(3)).toEqual({ NAME: null, CODE: 'D   ' });
    ibmi.system.writeFromProgram(physical, { ID: 4, NAME: unmapped, CODE: 'E' });
    await run('replace');
    expect(row(4)).toEqual({ NAME: 'A\ufffdB ', CODE: 'E   ' });
    expect(events.flatMap((e) => (e.kind === 'values-replaced' ? [[e.values, e.by]] : []))).toEqual([
      [1, 'source'],
      [1, 'source'],
    ]);
    expect(kept).toHaveLength(1);

    // Per column, the entity's policy wins over the pipeline's: CODE replaced, NAME kept aside.
    ibmi.system.writeFromProgram(physical, { ID: 5, NAME: 'FIVE', CODE: unmapped });
    ibmi.system.writeFromProgram(physical, { ID: 6, NAME: unmapped, CODE: 'F' });
    await run('keep-row-aside', { CODE: 'replace' });
    expect(row(5)).toEqual({ NAME: 'FIVE', CODE: 'A\ufffdB ' });
    expect(row(6)).toBeUndefined();
    expect(kept.map((k) => k.key)).toEqual([{ ID: 2 }, { ID: 6 }]);

    // What SQL reads of such a field: IBM's substitution character in place of the byte.
    const [sql] = await admin.query(`SELECT NAME FROM ${SCHEMA}.${file} WHERE ID = 2`);
    expect(sql?.NAME).toBe('A\u001aB ');
  });
});
