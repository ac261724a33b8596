// The journal agent reading journals on the simulated IBM i: DDS dates decoded right only with DDS
// discovery, rolled-back work never released, a transaction open across batches, RRN against a
// logical key through a reorganisation, a receiver deleted before it was read, a sequence reset,
// before images, the database timezone, and the backlog by the spec's query.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Entity } from '../../../../shared/controlApi';
import type { JournalHostCredentials } from '../../../../shared/agents/journal';
import type { IbmiConnection } from '../../../../lib/ibmi/connection';
import type { Change, Row } from '../../../../main/agents/source';
import { assemble, type TableReading } from '../../../../main/agents/journal/assemble';
import { backlogQuery, minutesLeft } from '../../../../main/agents/journal/backlog';
import { catalogLayouts } from '../../../../main/agents/journal/layout';
import { recordLength } from '../../../../lib/ibmi/recordImage';
import { parsePosition } from '../../../../main/agents/journal/position';
import { chainOrder, readJournal, receiverChains } from '../../../../main/agents/journal/reader';
import { openJournalSource, type JournalSource } from '../../../../main/agents/journal/source';
import { PipelineRunner } from '../../../../main/runner/pipelineRunner';
import { SqliteTarget } from '../../../../main/agents/sqlite/target';
import { startSandboxIbmi, type SandboxIbmi } from '../../../../simulators/ibmi';
import { NOTES_DDS, SEED_ADMIN } from '../../../../simulators/ibmi/seed';
import { journalConfiguration, journalEntity, sandboxIbmiCredentials } from '../../../helpers/journal';

let sandbox: SandboxIbmi;
let admin: IbmiConnection;
const opened: JournalSource[] = [];
beforeEach(async () => {
  sandbox = await startSandboxIbmi({ seed: true });
  admin = await sandbox.connect({ ...SEED_ADMIN });
});
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close().catch(() => undefined);
  await admin.close();
  await sandbox.close();
});

const CUSTOMER = journalEntity({ schema: 'SHOP', table: 'CUSTOMER' });
const ITEMS = journalEntity(
  { schema: 'LEGACY', table: 'ITEMS' },
  { rowIdentification: { kind: 'logicalKey', columns: ['ITEMNO'] } },
);

async function source(entities: Entity[], over: Partial<JournalHostCredentials> = {}, agentId = 'src') {
  const s = await openJournalSource({
    credentials: sandboxIbmiCredentials(sandbox, over),
    configuration: journalConfiguration(),
    pipelineId: 'p1',
    agentId,
    entities,
  });
  opened.push(s);
  return s;
}

/** Snapshot position of the entity's table, then the changes after it. */
async function startAt(s: JournalSource, e: Entity): Promise<Record<string, string>> {
  const { position } = await s.snapshot(e.source, async () => undefined);
  return { [`${e.source.schema}.${e.source.table}`]: position };
}
const ops = (changes: Change[], column: string) => changes.map((c) => `${c.op} ${String(c.key[column])}`);

describe('record images', () => {
  it('a DDS file with *MDY dates decodes right only with DDS discovery on', async () => {
    const withDds = await source([ITEMS], { enableDdsDiscovery: true });
    const rows: Row[] = [];
    const checkpoint = await startAt(withDds, ITEMS);
    await withDds.snapshot(ITEMS.source, async (page) => void rows.push(...page));
    expect(rows[2]).toMatchObject({ ITEMNO: '3', ADDED: '2025-04-04', PRICE: '6.99' });
    await admin.query("UPDATE LEGACY.ITEMS SET ADDED = '2026-11-22', PRICE = 12.34 WHERE ITEMNO = 3");
    const batch = await withDds.readChanges([ITEMS.source], checkpoint);
    expect(batch.changes).toHaveLength(1);
    expect(batch.changes[0]).toMatchObject({
      op: 'update',
      key: { ITEMNO: '3' },
      row: { ITEMNO: '3', NAME: 'Artikel Größe 3     ', ADDED: '2026-11-22', PRICE: '12.34', REVIEWED: null },
      changedColumns: ['PRICE', 'ADDED'],
    });
    // SQL calls ADDED a DATE: as *ISO it would take 10 bytes where the *MDY field takes 8, so the image
    // is shorter than that layout — an error naming the entry and both lengths, never a misread.
    const withoutDds = await source([ITEMS]);
    await expect(withoutDds.readChanges([ITEMS.source], checkpoint)).rejects.toThrow(
      /Journal entry \d+ \(R UP\) of LEGACY\/ITEMS in receiver .*: The record image is \d+ bytes; its layout takes \d+\..*turn DDS discovery on/,
    );
  });

  it('JOENTL gives each image its own length, so a layout that missed an added column is refused, not misread', async () => {
    const s = await source([CUSTOMER]);
    const { position } = await s.snapshot(CUSTOMER.source, async () => undefined);
    const [before] = await catalogLayouts(admin, [CUSTOMER.source]);
    // ALTER TABLE journals a D CG the agent reads; a reader that missed it keeps the old layout.
    await admin.query("ALTER TABLE SHOP.CUSTOMER ADD COLUMN TIER CHAR(4) NOT NULL DEFAULT 'STD'");
    await admin.query("UPDATE SHOP.CUSTOMER SET CITY = 'Chur' WHERE ID = 4");
    const [after] = await catalogLayouts(admin, [CUSTOMER.source]);
    const journal = { library: 'SHOP', name: 'QSQJRN' };
    const chain = (await receiverChains(admin, [journal])).get('SHOP/QSQJRN') ?? [];
    const entries = await readJournal(
      admin,
      'QGPL',
      journal,
      [{ library: 'SHOP', file: 'CUSTOMER' }],
      parsePosition(position).restart,
      100,
      after?.fields.length ?? 1,
    );
    const update = entries.find((e) => e.code === 'R' && e.type === 'UP');
    expect(update?.imageLength).toBe(recordLength(after?.fields ?? []));
    expect(recordLength(after?.fields ?? [])).toBe(recordLength(before?.fields ?? []) + 4);
    const reading = (fields: TableReading['fields']): TableReading => ({
      key: 'SHOP.CUSTOMER',
      library: 'SHOP',
      file: 'CUSTOMER',
      members: ['CUSTOMER'],
      memberKey: false,
      fields,
      identify: ['ID'],
      appliedThrough: parsePosition(position).applied,
    });
    const form = { dateFormat: 'iso' as const, timeFormat: 'iso' as const, utcOffsetMinutes: null };
    const records = entries.filter((e) => e.code === 'R');
    expect(() => assemble(records, [reading(before?.fields ?? [])], 100, form, chainOrder(chain))).toThrow(
      /of SHOP\/CUSTOMER in receiver .*: The record image is \d+ bytes; its layout takes \d+\./,
    );
    const right = assemble(records, [reading(after?.fields ?? [])], 100, form, chainOrder(chain));
    // CHAR columns keep their blanks.
    expect(right.changes.at(-1)?.row).toMatchObject({ ID: 4, CITY: 'Chur'.padEnd(20), TIER: 'STD ' });
  });

  it('asks the outfile where JOESD starts once a connection and NULLINDLEN: three statements a read after', async () => {
    const s = await source([CUSTOMER]);
    const { position } = await s.snapshot(CUSTOMER.source, async () => undefined);
    await admin.query("UPDATE SHOP.CUSTOMER SET CITY = 'Chur' WHERE ID = 4");
    const [layout] = await catalogLayouts(admin, [CUSTOMER.source]);
    const fields = layout?.fields.length ?? 0;
    const journal = { library: 'SHOP', name: 'QSQJRN' };
    const read = async (indicators: number) => {
      const before = sandbox.system.requests;
      const from = parsePosition(position).restart;
      const files = [{ library: 'SHOP', file: 'CUSTOMER' }];
      const entries = await readJournal(admin, 'QGPL', journal, files, from, 100, indicators);
      const update = entries.find((e) => e.code === 'R' && e.type === 'UP');
      return { statements: sandbox.system.requests - before, imageLength: update?.imageLength };
    };
    const length = recordLength(layout?.fields ?? []);
    // DSPJRN, its SELECT, DSPFFD, the SELECT of JOESD's position, DLTF of both outfiles.
    expect(await read(fields)).toEqual({ statements: 6, imageLength: length });
    expect(await read(fields)).toEqual({ statements: 3, imageLength: length });
    // A longer JONVI moves JOESD: asked again, and the image still its own length.
    expect(await read(fields + 40)).toEqual({ statements: 6, imageLength: length });
    expect(await read(fields + 40)).toEqual({ statements: 3, imageLength: length });
  });

  it('an update gives the columns it changed; a key update is a delete of the old key and an insert', async () => {
    const s = await source([CUSTOMER]);
    const checkpoint = await startAt(s, CUSTOMER);
    await admin.query("UPDATE SHOP.CUSTOMER SET CITY = 'Bern' WHERE ID = 4");
    await admin.query('UPDATE SHOP.CUSTOMER SET ID = 104 WHERE ID = 5');
    const { changes } = await s.readChanges([CUSTOMER.source], checkpoint);
    expect(changes.map((c) => [c.op, c.key.ID, c.changedColumns])).toEqual([
      ['update', 4, ['CITY']],
      ['delete', 5, null],
      ['insert', 104, null],
    ]);
    expect(changes[0]?.row).toMatchObject({
      ID: 4,
      CITY: 'Bern                ',
      BALANCE: '40.50',
      SINCE: '2020-05-14',
    });
  });

  it('timestamps stay as the system wrote them, or go to UTC with useDatabaseTimezone', async () => {
    await admin.close();
    await sandbox.close();
    sandbox = await startSandboxIbmi({ seed: true, utcOffsetMinutes: 120 });
    admin = await sandbox.connect({ ...SEED_ADMIN });
    const orders = journalEntity({ schema: 'SHOP', table: 'ORDERS' });
    const placed = async (s: JournalSource) => {
      const rows: Row[] = [];
      await s.snapshot(orders.source, async (page) => void rows.push(...page));
      return rows.find((r) => r.ORDERNO === 1001n)?.PLACED;
    };
    const local = await source([orders]);
    const utc = await source([orders], { useDatabaseTimezone: true }, 'utc');
    expect(await placed(local)).toBe('2026-01-02 10:00:00.000000');
    expect(await placed(utc)).toBe('2026-01-02 08:00:00.000000');
    const [fromLocal, fromUtc] = [await startAt(local, orders), await startAt(utc, orders)];
    await admin.query("UPDATE SHOP.ORDERS SET PLACED = '2026-03-01-00.30.00.123456' WHERE ORDERNO = 1001");
    expect((await local.readChanges([orders.source], fromLocal)).changes[0]?.row?.PLACED).toBe(
      '2026-03-01 00:30:00.123456',
    );
    expect((await utc.readChanges([orders.source], fromUtc)).changes[0]?.row?.PLACED).toBe(
      '2026-02-28 22:30:00.123456',
    );
  });
});

describe('commitment control', () => {
  it('rolled-back work never reaches the target; committed work does, once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'journal-rollback-'));
    const path = join(dir, 'replica.sqlite');
    const runner = () =>
      new PipelineRunner({
        openSource: () => source([CUSTOMER]),
        openTarget: async () => new SqliteTarget(path, 'p1'),
        entities: [{ source: CUSTOMER.source, target: { table: 'customer' } }],
        retry: { firstDelayMs: 10, maxDelayMs: 50, maxAttempts: 2 },
      });
    await runner().runUntilCaughtUp();
    await admin
      .transaction(async (t) => {
        await t.query("INSERT INTO SHOP.CUSTOMER (ID, NAME) VALUES (900, 'Never')");
        await t.query("UPDATE SHOP.CUSTOMER SET NAME = 'Never either' WHERE ID = 1");
        await t.query('DELETE FROM SHOP.CUSTOMER WHERE ID = 2');
        throw new Error('changed my mind');
      })
      .catch(() => undefined);
    await admin.transaction(async (t) => {
      await t.query("INSERT INTO SHOP.CUSTOMER (ID, NAME) VALUES (901, 'Kept')");
      await t.query("UPDATE SHOP.CUSTOMER SET NAME = 'Renamed' WHERE ID = 3");
    });
    const first = runner();
    await first.runUntilCaughtUp();
    expect(first.failure).toBeNull();
    const db = new Database(path, { readonly: true });
    const replica = db.prepare('SELECT ID, NAME FROM customer ORDER BY ID').all() as {
      ID: number;
      NAME: string;
    }[];
    db.close();
    const source_ = (await admin.query('SELECT ID, NAME FROM SHOP.CUSTOMER ORDER BY ID')).map((r) => ({
      ID: Number(r.ID),
      NAME: String(r.NAME),
    }));
    expect(replica).toEqual(source_);
    expect(replica.map((r) => r.ID)).toContain(2);
    expect(replica.map((r) => r.ID)).not.toContain(900);
    expect(replica.find((r) => r.ID === 3)?.NAME).toBe('Renamed');
  });

  it('a transaction open when a batch ends is released whole when it commits, nothing twice', async () => {
    const s = await source([CUSTOMER]);
    let checkpoint = await startAt(s, CUSTOMER);
    const other = await sandbox.connect({ ...SEED_ADMIN });
    let proceed!: () => void;
    const gate = new Promise<void>((resolve) => (proceed = resolve));
    let started!: () => void;
    const inside = new Promise<void>((resolve) => (started = resolve));
    const open = other.transaction(async (t) => {
      await t.query("INSERT INTO SHOP.CUSTOMER (ID, NAME) VALUES (700, 'Open')");
      started();
      await gate;
      await t.query("INSERT INTO SHOP.CUSTOMER (ID, NAME) VALUES (701, 'Open too')");
    });
    await inside;
    await admin.query("INSERT INTO SHOP.CUSTOMER (ID, NAME) VALUES (800, 'Autocommit')");
    const first = await s.readChanges([CUSTOMER.source], checkpoint);
    expect(ops(first.changes, 'ID')).toEqual(['insert 800']);
    const position = parsePosition(first.checkpoint['SHOP.CUSTOMER'] ?? '');
    expect(position.restart.sequence).toBeLessThan(position.applied.sequence);
    checkpoint = first.checkpoint;
    proceed();
    await open;
    const second = await s.readChanges([CUSTOMER.source], checkpoint);
    expect(ops(second.changes, 'ID')).toEqual(['insert 700', 'insert 701']);
    expect((await s.readChanges([CUSTOMER.source], second.checkpoint)).changes).toEqual([]);
    await other.close();
  });
});

describe('row identification through a reorganisation', () => {
  const NOTES = journalEntity({ schema: 'LEGACY', table: 'NOTES' });
  const rrn = { ...NOTES, rowIdentification: { kind: 'rrn' as const } };
  const logical = {
    ...NOTES,
    rowIdentification: { kind: 'logicalKey' as const, columns: ['NOTE', 'WRITTEN'] },
  };

  it('RRN: the changes after RGZPFM land on the wrong rows; the agent snapshots the file again instead', async () => {
    const s = await source([rrn]);
    const replicaByRrn = new Map<number, Row>();
    const { position } = await s.snapshot(NOTES.source, async (page) => {
      for (const r of page) replicaByRrn.set(Number(r.RRN), r);
    });
    const b = [...replicaByRrn.values()].map((r) => String(r.NOTE).trim());
    await admin.query('DELETE FROM LEGACY.NOTES WHERE RRN(NOTES) = 1');
    await admin.command('RGZPFM FILE(LEGACY/NOTES)');
    // The note that was at RRN 3 is at RRN 2 now.
    await admin.query(
      "UPDATE LEGACY.NOTES SET NOTE = 'edited after the reorganisation' WHERE RRN(NOTES) = 2",
    );
    const after = await admin.query('SELECT NOTE FROM LEGACY.NOTES ORDER BY RRN(NOTES)');

    // Applied by RRN as they come (the reorganisation ignored), the changes corrupt the replica.
    const [layout] = await catalogLayouts(admin, [NOTES.source]);
    const journal = { library: 'LEGACY', name: 'JRN' };
    const chain = (await receiverChains(admin, [journal])).get('LEGACY/JRN') ?? [];
    const entries = await readJournal(
      admin,
      'QGPL',
      journal,
      [{ library: 'LEGACY', file: 'NOTES' }],
      parsePosition(position).restart,
      100,
      layout?.fields.length ?? 1,
    );
    const reading: TableReading = {
      key: 'LEGACY.NOTES',
      library: 'LEGACY',
      file: 'NOTES',
      members: ['NOTES'],
      memberKey: false,
      fields: layout?.fields ?? [],
      identify: 'rrn',
      appliedThrough: parsePosition(position).applied,
    };
    const form = { dateFormat: 'iso' as const, timeFormat: 'iso' as const, utcOffsetMinutes: null };
    const naive = assemble(
      entries.filter((e) => e.code !== 'F'),
      [reading],
      100,
      form,
      chainOrder(chain),
    );
    for (const c of naive.changes)
      if (c.op === 'delete') replicaByRrn.delete(Number(c.key.RRN));
      else replicaByRrn.set(Number(c.key.RRN), c.row as Row);
    const trimmed = (rows: Row[]) => rows.map((r) => String(r.NOTE).trim());
    const naiveNotes = trimmed([...replicaByRrn.entries()].sort(([a], [b]) => a - b).map(([, r]) => r));
    // The edit replaced the note that was at RRN 2; the note it was meant for stays unedited.
    expect(trimmed(after)).toEqual([b[1], 'edited after the reorganisation', b[3], b[4]]);
    expect(naiveNotes).toEqual(['edited after the reorganisation', b[2], b[3], b[4]]);

    // The agent sees the F RG entry and asks for a snapshot of the file, with no changes for it.
    const batch = await s.readChanges([NOTES.source], { 'LEGACY.NOTES': position });
    expect(batch.changes).toEqual([]);
    expect(batch.resnapshot).toEqual([
      {
        table: 'LEGACY.NOTES',
        reason: 'the file was reorganised (RGZPFM): its relative record numbers changed',
      },
    ]);
  });

  it('a logical key: the same changes, applied by the key, give the source exactly', async () => {
    const s = await source([logical]);
    const replica = new Map<string, Row>();
    const keyOf = (r: Row) => `${String(r.NOTE)}|${String(r.WRITTEN)}`;
    const { position } = await s.snapshot(NOTES.source, async (page) => {
      for (const r of page) replica.set(keyOf(r), r);
    });
    await admin.query('DELETE FROM LEGACY.NOTES WHERE RRN(NOTES) = 1');
    await admin.command('RGZPFM FILE(LEGACY/NOTES)');
    await admin.query(
      "UPDATE LEGACY.NOTES SET NOTE = 'edited after the reorganisation' WHERE RRN(NOTES) = 2",
    );
    const batch = await s.readChanges([NOTES.source], { 'LEGACY.NOTES': position });
    expect(batch.resnapshot).toEqual([]);
    for (const c of batch.changes)
      if (c.op === 'delete') replica.delete(keyOf(c.key));
      else if (c.op === 'insert') replica.set(keyOf(c.row as Row), c.row as Row);
    const sourceRows = await admin.query('SELECT NOTE FROM LEGACY.NOTES');
    expect([...replica.values()].map((r) => r.NOTE).sort()).toEqual(sourceRows.map((r) => r.NOTE).sort());
  });
});

describe('the receiver chain', () => {
  it('a receiver deleted before it was read costs the file its position, with the receiver named; nothing is skipped', async () => {
    const s = await source([ITEMS], { enableDdsDiscovery: true });
    const checkpoint = await startAt(s, ITEMS);
    await admin.query('UPDATE LEGACY.ITEMS SET STOCK = 99 WHERE ITEMNO = 1');
    await admin.command('CHGJRN JRN(LEGACY/JRN) JRNRCV(*GEN)');
    await admin.command('DLTJRNRCV JRNRCV(LEGACY/JRN0001)');
    const batch = await s.readChanges([ITEMS.source], checkpoint);
    expect(batch.changes).toEqual([]);
    expect(batch.resnapshot).toEqual([
      {
        table: 'LEGACY.ITEMS',
        reason: expect.stringMatching(
          /^Journal receiver LEGACY\/JRN0001, where LEGACY\.ITEMS resumes \(after sequence \d+\), was deleted before the agent read it/,
        ) as unknown,
      },
    ]);
    const backlog = await s.backlog([ITEMS.source], checkpoint);
    expect(backlog).toMatchObject({
      rowsToRead: null,
      perTable: [{ table: 'LEGACY.ITEMS', rowsToRead: null }],
    });
  });

  it('an entry with minimised data (MINENTDTA) stops the read with the entry and the fix, never a misread', async () => {
    const s = await source([CUSTOMER]);
    const checkpoint = await startAt(s, CUSTOMER);
    await admin.command('CHGJRN JRN(SHOP/QSQJRN) MINENTDTA(*FILE)');
    await admin.query("UPDATE SHOP.CUSTOMER SET NAME = 'X' WHERE ID = 2");
    await expect(s.readChanges([CUSTOMER.source], checkpoint)).rejects.toThrow(
      /Journal entry \d+ \(R UP\) of SHOP\/CUSTOMER in receiver .* holds minimised entry data .*MINENTDTA\(\*NONE\)/,
    );
    await admin.command('CHGJRN JRN(SHOP/QSQJRN) MINENTDTA(*NONE)');
  });

  it('journaling ended on a file (ENDJRNPF) stops that file alone, naming it and the way back', async () => {
    const s = await source([CUSTOMER]);
    const checkpoint = await startAt(s, CUSTOMER);
    await admin.query("UPDATE SHOP.CUSTOMER SET CITY = 'Before' WHERE ID = 1");
    await admin.command('ENDJRNPF FILE(SHOP/CUSTOMER)');
    // Read on by this agent (its journal known): the change before the end arrives, then the stop.
    const batch = await s.readChanges([CUSTOMER.source], checkpoint);
    expect(batch.changes.map((c) => String(c.row?.CITY).trim())).toEqual(['Before']);
    expect(batch.stopped).toEqual([
      {
        table: 'SHOP.CUSTOMER',
        reason: expect.stringMatching(
          /^journaling of SHOP\/CUSTOMER ended \(ENDJRNPF, journal entry \d+ in .*\): .*STRJRNPF … IMAGES\(\*BOTH\)\), then copy it again$/,
        ),
      },
    ]);
    // Read by an agent started afterwards (no journal to find): stopped too, never the whole read failed.
    const fresh = await source([CUSTOMER]);
    expect((await fresh.readChanges([CUSTOMER.source], checkpoint)).stopped).toEqual([
      {
        table: 'SHOP.CUSTOMER',
        reason: expect.stringMatching(/is no longer journaled: .*then copy it again$/),
      },
    ]);
    await admin.command('STRJRNPF FILE(SHOP/CUSTOMER) JRN(SHOP/QSQJRN) IMAGES(*BOTH)');
  });

  it('a file whose first member is not named like it (CRTPF … MBR(Y2026)) has its changes read', async () => {
    sandbox.putSource('LEGACY', 'QDDSSRC', 'PERIODS', NOTES_DDS);
    await admin.command('CRTPF FILE(LEGACY/PERIODS) SRCFILE(LEGACY/QDDSSRC) MBR(Y2026)');
    await admin.command('STRJRNPF FILE(LEGACY/PERIODS) JRN(LEGACY/JRN) IMAGES(*BOTH)');
    const periods = journalEntity(
      { schema: 'LEGACY', table: 'PERIODS' },
      { rowIdentification: { kind: 'rrn' } },
    );
    const s = await source([periods]);
    const checkpoint = await startAt(s, periods);
    await admin.query("INSERT INTO LEGACY.PERIODS VALUES ('in Y2026', '2026-11-24-09.00.00.000000')");
    const { changes } = await s.readChanges([periods.source], checkpoint);
    expect(changes.map((c) => c.row?.NOTE)).toEqual(['in Y2026'.padEnd(40, ' ')]);
  });

  it('an idle file follows the journal: receivers the agent read past are deleted, and it reads on', async () => {
    const orders = journalEntity({ schema: 'SHOP', table: 'ORDERS' });
    const s = await source([CUSTOMER, orders]);
    let checkpoint = { ...(await startAt(s, CUSTOMER)), ...(await startAt(s, orders)) };
    const receivers = async () =>
      (
        await admin.query(
          "SELECT JOURNAL_RECEIVER_LIBRARY, JOURNAL_RECEIVER_NAME, STATUS FROM QSYS2.JOURNAL_RECEIVER_INFO WHERE JOURNAL_LIBRARY = 'SHOP' ORDER BY ATTACH_TIMESTAMP",
        )
      ).map((r) => ({ name: String(r.JOURNAL_RECEIVER_NAME), attached: String(r.STATUS) === 'ATTACHED' }));
    // Only ORDERS changes, over two receiver changes; CUSTOMER stays idle.
    for (const step of [1, 2]) {
      await admin.query(`UPDATE SHOP.ORDERS SET NOTE = 'step ${step}' WHERE ORDERNO = 1001`);
      await admin.command('CHGJRN JRN(SHOP/QSQJRN) JRNRCV(*GEN)');
      const batch = await s.readChanges([CUSTOMER.source, orders.source], checkpoint);
      expect(batch.resnapshot).toEqual([]);
      expect(ops(batch.changes, 'ORDERNO')).toEqual(['update 1001']);
      checkpoint = batch.checkpoint;
    }
    // The operator deletes every receiver but the attached one: the agent has read past them all.
    for (const r of await receivers())
      if (!r.attached) await admin.command(`DLTJRNRCV JRNRCV(SHOP/${r.name})`);
    expect(checkpoint['SHOP.CUSTOMER']).toBe(checkpoint['SHOP.ORDERS']);
    await admin.query("UPDATE SHOP.CUSTOMER SET CITY = 'Awake' WHERE ID = 3");
    const batch = await s.readChanges([CUSTOMER.source, orders.source], checkpoint);
    expect(batch.resnapshot).toEqual([]);
    expect(ops(batch.changes, 'ID')).toEqual(['update 3']);
  });

  it('a sequence reset (CHGJRN SEQOPT(*RESET)) loses and repeats nothing; the backlog counts across it', async () => {
    const s = await source([CUSTOMER]);
    const checkpoint = await startAt(s, CUSTOMER);
    await admin.query("INSERT INTO SHOP.CUSTOMER (ID, NAME) VALUES (501, 'Before')");
    await admin.command('CHGJRN JRN(SHOP/QSQJRN) JRNRCV(*GEN) SEQOPT(*RESET)');
    await admin.query("INSERT INTO SHOP.CUSTOMER (ID, NAME) VALUES (502, 'After')");
    await admin.query('DELETE FROM SHOP.CUSTOMER WHERE ID = 501');
    // Entries: the insert, then J NR and J PR around the change, then the new receiver's insert and delete.
    expect((await s.backlog([CUSTOMER.source], checkpoint)).rowsToRead).toBe(5);
    const batch = await s.readChanges([CUSTOMER.source], checkpoint);
    expect(ops(batch.changes, 'ID')).toEqual(['insert 501', 'insert 502', 'delete 501']);
    expect(batch.changes.map((c) => c.position)).toEqual([
      'SHOP/QSQJRN0001/70',
      'SHOP/QSQJRN0002/2',
      'SHOP/QSQJRN0002/3',
    ]);
    expect((await s.readChanges([CUSTOMER.source], batch.checkpoint)).changes).toEqual([]);
  });
});

describe('backlog', () => {
  it('ROWS_TO_READ and MIN_LEFT by the spec’s query on the checkpoint table', async () => {
    const s = await source([CUSTOMER]);
    const checkpoint = await startAt(s, CUSTOMER);
    await s.saveCheckpoint(checkpoint);
    for (let id = 600; id < 612; id++)
      await admin.query('INSERT INTO SHOP.CUSTOMER (ID, NAME) VALUES (?, ?)', [id, `n${id}`]);
    const figure = await backlogQuery(s.c, s.sync);
    expect(figure).toMatchObject({ rowsToRead: 12, perTable: [{ table: 'SHOP.CUSTOMER', rowsToRead: 12 }] });
    expect(figure.minutesLeft).toBeCloseTo(minutesLeft(12), 12);
    expect(minutesLeft(12)).toBeCloseTo(0.0001, 12);
    const before = await s.backlog([CUSTOMER.source], checkpoint);
    expect(before).toMatchObject({ rowsToRead: 12, measuredMinutesLeft: null }); // nothing read yet: no rate
    const batch = await s.readChanges([CUSTOMER.source], checkpoint, { maxRows: 5 });
    const after = await s.backlog([CUSTOMER.source], batch.checkpoint);
    expect(after.rowsToRead).toBe(7);
    // Seven entries at the rate five were just read: a positive estimate, in minutes.
    expect(after.measuredMinutesLeft).toBeGreaterThan(0);
  });
});

describe('the sync library', () => {
  it('keeps no outfile after a read, and CHGJRN … DLTRCV(*YES) leaves its journal one receiver', async () => {
    const s = await openJournalSource({
      credentials: sandboxIbmiCredentials(sandbox),
      configuration: journalConfiguration(),
      pipelineId: 'p1',
      agentId: 'src',
      entities: [CUSTOMER],
      rotateEvery: 2,
    });
    opened.push(s);
    const checkpoint = await startAt(s, CUSTOMER);
    await admin.query("INSERT INTO SHOP.CUSTOMER (ID, NAME) VALUES (400, 'x')");
    const batch = await s.readChanges([CUSTOMER.source], checkpoint);
    const files = await admin.query(
      "SELECT OBJNAME FROM TABLE(QSYS2.OBJECT_STATISTICS('SYNC', '*FILE', '*ALL')) X",
    );
    expect(files.map((f) => f.OBJNAME)).toEqual(['JOURNALSCP']);
    const receivers = async () =>
      (
        await admin.query(
          "SELECT JOURNAL_RECEIVER_NAME FROM QSYS2.JOURNAL_RECEIVER_INFO WHERE JOURNAL_LIBRARY = 'SYNC' ORDER BY ATTACH_TIMESTAMP",
        )
      ).map((r) => r.JOURNAL_RECEIVER_NAME);
    await s.saveCheckpoint(checkpoint);
    expect(await receivers()).toEqual(['QSQJRN0001']);
    await s.saveCheckpoint(batch.checkpoint);
    expect(await receivers()).toEqual(['QSQJRN0002']);
    expect(await s.loadCheckpoint()).toEqual(batch.checkpoint);
    // A later start finds the library and its table by one statement, and still saves journaled.
    const again = await source([CUSTOMER], {}, 'again');
    const before = sandbox.system.requests;
    await again.sync.ready();
    expect(sandbox.system.requests - before).toBe(1);
    const commits = async () =>
      (
        await admin.query(
          "SELECT SEQUENCE_NUMBER FROM TABLE(QSYS2.DISPLAY_JOURNAL('SYNC', 'QSQJRN', '', '*CURCHAIN', NULL, NULL, 'C', 'CM', '', '')) X",
        )
      ).length;
    const committed = await commits();
    await again.saveCheckpoint(batch.checkpoint);
    expect(await commits()).toBe(committed + 1);
    expect(await again.loadCheckpoint()).toEqual(batch.checkpoint);
  });
});
