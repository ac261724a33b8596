// The contract every target of the runner passes (as Debezium runs every sink through one suite):
// `prepare` twice, a snapshot committed with its position or rolled back whole, changes applied in
// order with their checkpoint in one transaction (a failing batch leaves neither), key updates, and
// a value of every type of the documented mapping (main/agents/targetValues.ts, docs/runner.md)
// read back as written. A harness gives the suite a target and a way to read its tables.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  Change,
  Checkpoint,
  ColumnShape,
  Row,
  RowValue,
  TableShape,
} from '../../../../main/agents/source';
import { copiedChanges, FencedOut, type TableTarget, type TargetTable } from '../../../../main/agents/target';
import type { Replica } from '../../../helpers/replica';

export interface TargetHarness {
  /** A new target over a fresh place (file, schema, database), for one pipeline id. */
  open(pipelineId: string): Promise<TableTarget>;
  /** The table as written, canonical (test/helpers/replica.ts). */
  read(table: TargetTable): Promise<Replica>;
  /** How many fraction digits of a time the target keeps. */
  fractionDigits: number;
  /**
   * Columns of the typed table not yet written exact, with the issue that owns them. The suite checks
   * that they still differ, so the entry must go when the gap is closed.
   */
  knownGaps?: Record<string, string>;
  close(): Promise<void>;
}

/** One column per affinity of the mapping (a datetimeoffset keeps its instant only: issue 20's). */
const TYPED: TableShape = {
  ref: { schema: 'dbo', table: 'Typed' },
  columns: [
    { name: 'Id', sourceType: 'int', nullable: false },
    { name: 'Big', sourceType: 'bigint', nullable: true },
    { name: 'Amount', sourceType: 'decimal(18,4)', nullable: true },
    { name: 'Ratio', sourceType: 'float', nullable: true },
    { name: 'Name', sourceType: 'nvarchar(40)', nullable: true },
    { name: 'Flag', sourceType: 'bit', nullable: true },
    { name: 'Day', sourceType: 'date', nullable: true },
    { name: 'At', sourceType: 'datetime2(6)', nullable: true },
    { name: 'Clock', sourceType: 'time(6)', nullable: true },
    { name: 'Guid', sourceType: 'uniqueidentifier', nullable: true },
    { name: 'Bytes', sourceType: 'varbinary(16)', nullable: true },
  ],
  key: ['Id'],
};
const typedTable = (name: string): TargetTable => ({
  source: 'dbo.Typed',
  name,
  columns: TYPED.columns,
  key: TYPED.key,
});

const VALUES: Record<string, RowValue> = {
  Id: 1,
  Big: 9_007_199_254_740_993n,
  Amount: '12345678901234.5678',
  Ratio: 0.25,
  Name: 'Zoë 東京 🚀',
  Flag: true,
  Day: '2026-02-28',
  At: '2026-03-01 12:34:56.123456',
  Clock: '23:59:59.654321',
  Guid: '6F9619FF-8B86-D011-B42D-00C04FC964FF',
  Bytes: new Uint8Array([0, 1, 254, 255]),
};
const typedLine = (fractionDigits: number) =>
  [
    '1',
    '9007199254740993',
    '12345678901234.5678',
    (0.25).toPrecision(7),
    'Zoë 東京 🚀',
    '1',
    '2026-02-28',
    `2026-03-01 12:34:56.${'123456'.padEnd(fractionDigits, '0')}`,
    `23:59:59.${'654321'.padEnd(fractionDigits, '0')}`,
    '6f9619ff-8b86-d011-b42d-00c04fc964ff',
    '0001feff',
  ].join('|');

const table = (name: string): TargetTable => ({
  source: 'dbo.Items',
  name,
  columns: [
    { name: 'Id', sourceType: 'int', nullable: false },
    { name: 'Name', sourceType: 'nvarchar(40)', nullable: false },
  ],
  key: ['Id'],
});
const upsert = (id: number, name: string, position: string): Change => ({
  table: 'dbo.Items',
  op: 'update',
  key: { Id: id },
  row: { Id: id, Name: name },
  changedColumns: null,
  position,
});
const remove = (id: number, position: string): Change => ({
  table: 'dbo.Items',
  op: 'delete',
  key: { Id: id },
  row: null,
  changedColumns: null,
  position,
});

/** The table's columns and then the runner's own (a table mode's), each nullable, never compared. */
const withRunnerColumns = (base: TargetTable, added: readonly [string, string][]): ColumnShape[] => [
  ...base.columns,
  ...added.map(([name, sourceType]): ColumnShape => ({ name, sourceType, nullable: true, provenance: true })),
];

/** The table kept in history mode: a row per version, valid from and to the runner's columns. */
const inHistory = (base: TargetTable): TargetTable => ({
  ...base,
  columns: withRunnerColumns(base, [
    ['ValidFrom', 'datetime2(3)'],
    ['ValidTo', 'datetime2(3)'],
  ]),
  history: { from: 'ValidFrom', to: 'ValidTo' },
});

/** A copy's chunk as the runner writes it: the target's copy path, or its changes where it has none. */
const writeChunk = (target: TableTarget, t: TargetTable, rows: readonly Row[], checkpoint: Checkpoint) =>
  target.applyCopy
    ? target.applyCopy(t, rows, checkpoint)
    : target.apply(copiedChanges(t, rows, 'copy'), checkpoint);

export function targetContract(name: string, makeHarness: () => Promise<TargetHarness>): void {
  describe(`target contract: ${name}`, () => {
    let h: TargetHarness;
    let count = 0;
    /** A fresh table name and pipeline per test, so tests never see each other's rows. */
    const fresh = async () => {
      count += 1;
      const t = table(`items_${count}`);
      const target = await h.open(`contract-${count}`);
      await target.prepare([t]);
      return { t, target };
    };
    beforeAll(async () => {
      h = await makeHarness();
    });
    afterAll(async () => {
      await h?.close();
    });

    it('prepares twice without harm, and starts with no checkpoint', async () => {
      const { t, target } = await fresh();
      await target.prepare([t]);
      expect(await target.loadCheckpoint()).toEqual({});
      expect((await h.read(t)).rows).toEqual([]);
      await target.close();
    });

    it('empties a table with its checkpoint in one transaction when a copy starts', async () => {
      const { t, target } = await fresh();
      await target.apply([upsert(9, 'old', '1')], { 'dbo.Items': '1' });
      await target.clear(t, { 'dbo.Items': '7 copy {"rowsDone":0}' });
      expect((await h.read(t)).rows).toEqual([]);
      expect(await target.loadCheckpoint()).toEqual({ 'dbo.Items': '7 copy {"rowsDone":0}' });
      // A chunk goes in as upserts over rows the stream may have written meanwhile.
      await target.apply([upsert(2, 'stream', '8')], { 'dbo.Items': '8 copy {"rowsDone":0}' });
      await target.apply(
        [
          { ...upsert(1, 'a', '8'), op: 'insert' },
          { ...upsert(2, 'b', '8'), op: 'insert' },
        ],
        { 'dbo.Items': '8' },
      );
      expect((await h.read(t)).rows).toEqual(['1|a', '2|b']);
      expect(await target.loadCheckpoint()).toEqual({ 'dbo.Items': '8' });
      await target.close();
    });

    it('keeps the rows and checkpoint when emptying fails', async () => {
      const { t, target } = await fresh();
      await target.apply([upsert(1, 'kept', '1')], { 'dbo.Items': '1' });
      const missing = { ...t, name: 'no_such_table' };
      await expect(target.clear(missing, { 'dbo.Items': '2' })).rejects.toThrow();
      expect((await h.read(t)).rows).toEqual(['1|kept']);
      expect(await target.loadCheckpoint()).toEqual({ 'dbo.Items': '1' });
      await target.close();
    });

    it('applies changes in order with the checkpoint, the last change per key winning', async () => {
      const { t, target } = await fresh();
      await target.apply(
        [upsert(1, 'a', '1'), upsert(2, 'b', '2'), upsert(1, 'a2', '3'), remove(2, '4'), upsert(3, 'c', '5')],
        { 'dbo.Items': '5' },
      );
      expect((await h.read(t)).rows).toEqual(['1|a2', '3|c']);
      expect(await target.loadCheckpoint()).toEqual({ 'dbo.Items': '5' });
      // A key update arrives as the old key's delete and the new key's insert.
      await target.apply([remove(3, '6'), { ...upsert(4, 'c', '6'), op: 'insert' }], { 'dbo.Items': '6' });
      expect((await h.read(t)).rows).toEqual(['1|a2', '4|c']);
      await target.close();
      // A new target over the same place reads the same checkpoint.
      const again = await h.open(`contract-${count}`);
      expect(await again.loadCheckpoint()).toEqual({ 'dbo.Items': '6' });
      await again.close();
    });

    it('keeps a deleted row flagged with its time when the table soft-deletes, and clears it on return', async () => {
      count += 1;
      const base = table(`items_${count}`);
      const t: TargetTable = {
        ...base,
        columns: withRunnerColumns(base, [
          ['Gone', 'bit'],
          ['GoneAt', 'datetime2(3)'],
        ]),
        softDelete: { flag: 'Gone', at: 'GoneAt' },
      };
      const target = await h.open(`contract-${count}`);
      expect(target.softDeletes).toBe(true);
      await target.prepare([t]);
      const live = (id: number, name: string, position: string): Change => {
        const c = upsert(id, name, position);
        return { ...c, row: { ...c.row, Gone: false, GoneAt: null } };
      };
      await target.apply([live(1, 'a', '1'), live(2, 'b', '1')], { 'dbo.Items': '1' });
      await target.apply([remove(1, '2')], { 'dbo.Items': '2' });
      const [gone, kept] = (await h.read(t)).rows;
      expect(gone).toMatch(/^1\|a\|(1|true)\|\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}/);
      expect(kept).toMatch(/^2\|b\|(0|false)\|/);
      await target.apply([live(1, 'a again', '3')], { 'dbo.Items': '3' });
      expect((await h.read(t)).rows[0]).toMatch(/^1\|a again\|(0|false)\|/);
      await target.close();
    });

    it('keeps a row per version when the table keeps history, a change of its values each', async () => {
      count += 1;
      const base = table(`items_${count}`);
      const t = inHistory(base);
      const target = await h.open(`contract-${count}`);
      expect(target.keepsHistory).toBe(true);
      // A live table whose mode becomes history is made again (its rows are then copied again).
      await target.prepare([base]);
      await target.apply([upsert(9, 'live', '1')], { 'dbo.Items': '1' });
      await target.prepare([t]);
      await target.prepare([t]);
      expect((await h.read(t)).rows).toEqual([]);
      /** Each row as id|name|current, by id and name (a key's names here sort as its versions came). */
      const versions = async () => {
        const rows = (await h.read(t)).rows.map((r) => r.split('|'));
        for (const r of rows) expect(r[2]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}/);
        return rows
          .map((r) => `${r[0]}|${r[1]}|${r[3] === '∅' ? 'current' : 'ended'}`)
          .sort((a, b) => a.localeCompare(b));
      };
      await writeChunk(
        target,
        t,
        [
          { Id: 1, Name: 'a' },
          { Id: 2, Name: 'b' },
        ],
        { 'dbo.Items': '1' },
      );
      // Within one batch: key 1 changed twice (two versions), key 2 written again alike (none), then
      // deleted (its version ended), key 3 inserted.
      await target.apply(
        [
          upsert(1, 'a2', '2'),
          upsert(2, 'b', '2'),
          upsert(1, 'a3', '3'),
          remove(2, '4'),
          upsert(3, 'c', '5'),
        ],
        { 'dbo.Items': '5' },
      );
      expect(await versions()).toEqual([
        '1|a|ended',
        '1|a2|ended',
        '1|a3|current',
        '2|b|ended',
        '3|c|current',
      ]);
      // A copy again ends the current versions and opens those it reads; a deleted key comes back.
      await target.clear(t, { 'dbo.Items': '6 copy {"rowsDone":0}' });
      await writeChunk(target, t, [{ Id: 1, Name: 'a3' }], { 'dbo.Items': '6' });
      await target.apply([{ ...upsert(2, 'b again', '7'), op: 'insert' }], { 'dbo.Items': '7' });
      const all = await versions();
      expect(all.filter((v) => v.endsWith('current'))).toEqual(['1|a3|current', '2|b again|current']);
      expect(all).toHaveLength(7);
      // A version ends when the next opens, at the same instant: no moment has two, or none.
      const key1 = (await h.read(t)).rows.map((r) => r.split('|')).filter((r) => r[0] === '1');
      const [a, a2, a3] = ['a', 'a2', 'a3'].map((name) => key1.find((r) => r[1] === name));
      expect([a?.[3], a2?.[3]]).toEqual([a2?.[2], a3?.[2]]);
      // A verify reads the current versions only.
      if (target.readBack) {
        const back = await target.readBack.rows(t, [{ Id: 1 }, { Id: 2 }, { Id: 3 }]);
        expect(back.map((r) => String(r.Name ?? r.name)).sort()).toEqual(['a3', 'b again']);
        const keys = await target.readBack.keys(t, null, 10);
        expect(keys.keys.map((k) => Number(k.Id ?? k.id))).toEqual([1, 2]);
      }
      // Values are told apart exactly, not as a collation or padding would compare them: a change of
      // case is a version, a trailing space another; the same value again none.
      await target.apply(
        [upsert(2, 'B AGAIN', '8'), upsert(2, 'B AGAIN ', '8'), upsert(2, 'B AGAIN ', '8')],
        { 'dbo.Items': '8' },
      );
      expect((await versions()).filter((v) => v.startsWith('2|'))).toEqual([
        '2|B AGAIN |current',
        '2|b again|ended',
        '2|B AGAIN|ended',
        '2|b|ended',
      ]);
      // Back to live: made again, one row per key.
      await target.prepare([base]);
      await target.apply([upsert(1, 'x', '9'), upsert(1, 'y', '9')], { 'dbo.Items': '9' });
      expect((await h.read(base)).rows).toEqual(['1|y']);
      await target.close();
    });

    it('tells a history row’s versions apart by every type’s value, exactly, nulls alike', async () => {
      count += 1;
      const typed = typedTable(`typed_history_${count}`);
      // And a fixed-width text, as an IBM i CHAR arrives: padded at some targets, compared so.
      const base = {
        ...typed,
        columns: [...typed.columns, { name: 'Code', sourceType: 'CHAR(6)', nullable: true }],
      };
      const t = inHistory(base);
      const target = await h.open(`contract-${count}`);
      await target.prepare([t]);
      const write = (row: Row): Change => ({ ...upsert(Number(row.Id), '', '1'), table: t.source, row });
      // Each a change a padding, a rounding or a collation could hide: a trailing space, a trailing
      // zero byte, a microsecond, the last digit of a bigint past a double's.
      const changed: Record<string, RowValue> = {
        Big: 9_007_199_254_740_994n,
        Amount: '12345678901235.5678',
        Ratio: 0.5,
        Name: 'Zoë 東京 🚀 ',
        Flag: false,
        Day: '2026-03-01',
        At: '2026-03-01 12:34:56.123457',
        Clock: '23:59:59.654322',
        Guid: '6F9619FF-8B86-D011-B42D-00C04FC96500',
        Bytes: new Uint8Array([0, 1, 254, 255, 0]),
        Code: 'ab c',
      };
      const values = { ...VALUES, Code: 'ab' };
      await target.apply([write(values), write({ Id: 2 })], { [t.source]: '1' });
      // Written again alike (nulls too): no version.
      await target.apply([write(values), write({ Id: 2 })], { [t.source]: '2' });
      expect((await h.read(t)).rows).toHaveLength(2);
      // Each column changed, written again alike, then back: two versions a column.
      const changes = Object.entries(changed).flatMap(([name, value]) => [
        write({ ...values, [name]: value }),
        write({ ...values, [name]: value }),
        write(values),
      ]);
      await target.apply(changes, { [t.source]: '3' });
      const rows = (await h.read(t)).rows;
      const perKey = (id: string) => rows.filter((r) => r.startsWith(`${id}|`)).length;
      expect(perKey('1')).toBe(1 + 2 * Object.keys(changed).length);
      expect(perKey('2')).toBe(1);
      await target.close();
    });

    it('applies a large batch in order: a key changed again within it, deleted, inserted again', async () => {
      const { t, target } = await fresh();
      // 400 changes over 20 keys, broken by deletes, then 64 upserts in a row over 10 keys: a key comes
      // back 10 or 20 rows later, within one multi-row statement or across two, its last change in
      // the same statement as the one before it; the last change of each key wins.
      const changes: Change[] = [];
      const expected = new Map<number, string>();
      for (let i = 0; i < 464; i++) {
        const id = i < 400 ? (i * 7) % 20 : i % 10;
        const position = String(i + 1);
        if (i < 400 && i % 37 === 36) {
          changes.push(remove(id, position));
          expected.delete(id);
        } else {
          changes.push({ ...upsert(id, `v${i}`, position), op: i % 2 ? 'update' : 'insert' });
          expected.set(id, `v${i}`);
        }
      }
      await target.apply(changes, { 'dbo.Items': '464' });
      const rows = [...expected].map(([id, name]) => `${id}|${name}`);
      expect([...(await h.read(t)).rows].sort()).toEqual(rows.sort());
      expect(rows.length).toBeGreaterThan(15);
      await target.close();
    });

    it('applies nothing of a batch that fails, neither rows nor checkpoint', async () => {
      const { t, target } = await fresh();
      await target.apply([upsert(1, 'a', '1')], { 'dbo.Items': '1' });
      // Name is NOT NULL: the second change fails at the target, after the first was sent.
      const failing = [upsert(2, 'b', '2'), { ...upsert(3, 'c', '3'), row: { Id: 3, Name: null } }];
      await expect(target.apply(failing, { 'dbo.Items': '3' })).rejects.toThrow();
      expect((await h.read(t)).rows).toEqual(['1|a']);
      expect(await target.loadCheckpoint()).toEqual({ 'dbo.Items': '1' });
      await target.close();
    });

    it('commits nothing when another engine moved a fenced table since it was read', async () => {
      const { t, target } = await fresh();
      await target.apply([upsert(1, 'a', '1')], { 'dbo.Items': '1' });
      // Engines sharing a stream: this one read from position 1, another committed 2 since.
      await target.apply([upsert(1, 'theirs', '2')], { 'dbo.Items': '2' }, { 'dbo.Items': '1' });
      await expect(
        target.apply(
          [upsert(1, 'mine', '2'), upsert(5, 'mine', '2')],
          { 'dbo.Items': '2' },
          { 'dbo.Items': '1' },
        ),
      ).rejects.toBeInstanceOf(FencedOut);
      expect((await h.read(t)).rows).toEqual(['1|theirs']);
      expect(await target.loadCheckpoint()).toEqual({ 'dbo.Items': '2' });
      // A table with no position yet is fenced by its absence.
      await expect(target.apply([], { 'dbo.Other': '1' }, { 'dbo.Other': '0' })).rejects.toBeInstanceOf(
        FencedOut,
      );
      await target.apply([], { 'dbo.Other': '1' }, { 'dbo.Other': null });
      expect(await target.loadCheckpoint()).toEqual({ 'dbo.Items': '2', 'dbo.Other': '1' });
      await target.close();
    });

    it('writes a copy’s chunks with their checkpoints, each row over the one already there', async () => {
      const { t, target } = await fresh();
      await target.apply([upsert(1, 'stream', '1'), upsert(700, 'stream', '1')], { 'dbo.Items': '1' });
      // Five rows (one statement a row) and 600 (the bulk path), over the stream's rows and the chunk's.
      for (const n of [5, 600]) {
        const rows = Array.from({ length: n }, (_, i) => ({ Id: i + 1, Name: `chunk of ${n}: ${i + 1}` }));
        await writeChunk(target, t, rows, { 'dbo.Items': `copied ${n}` });
        const expected = [...rows.map((r) => `${r.Id}|${r.Name}`), '700|stream'];
        expect([...(await h.read(t)).rows].sort()).toEqual(expected.sort());
        expect(await target.loadCheckpoint()).toEqual({ 'dbo.Items': `copied ${n}` });
      }
      await target.close();
    });

    it('writes nothing of a copy’s chunk that fails at its last row, neither rows nor checkpoint', async () => {
      const { t, target } = await fresh();
      await target.apply([upsert(1, 'a', '1')], { 'dbo.Items': '1' });
      for (const n of [5, 600]) {
        const rows: Row[] = Array.from({ length: n }, (_, i) => ({ Id: i + 1, Name: 'b' }));
        rows.push({ Id: n + 1, Name: null });
        await expect(writeChunk(target, t, rows, { 'dbo.Items': '2' })).rejects.toThrow();
        expect((await h.read(t)).rows).toEqual(['1|a']);
        expect(await target.loadCheckpoint()).toEqual({ 'dbo.Items': '1' });
      }
      await target.close();
    });

    it('reconciles a table to a changed shape: a column added, one widened, a dropped one kept nullable or dropped', async () => {
      const { t, target } = await fresh();
      await target.apply([upsert(1, 'one', 'p1')], { 'dbo.Items': 'p1' });
      const [id, name] = t.columns as [ColumnShape, ColumnShape];
      const note: ColumnShape = { name: 'Note', sourceType: 'nvarchar(20)', nullable: true };
      const wider: TargetTable = { ...t, columns: [id, { ...name, sourceType: 'nvarchar(80)' }, note] };
      const first = await target.reconcile(wider, 'keep');
      expect(first.added).toEqual(['Note']);
      expect(first.done).toContainEqual(expect.stringMatching(/^column Note added/));
      const long = 'x'.repeat(60);
      await target.apply([{ ...upsert(2, long, 'p2'), row: { Id: 2, Name: long, Note: 'n' } }], {
        'dbo.Items': 'p2',
      });
      expect((await h.read(wider)).rows).toEqual(['1|one|∅', `2|${long}|n`]);
      // Name dropped at the source: kept, and a row without it goes in.
      const kept = await target.reconcile({ ...wider, columns: [id, note] }, 'keep');
      expect(kept.done).toContain('column Name kept, made nullable');
      await target.apply([{ ...upsert(3, '', 'p3'), row: { Id: 3, Note: 'no name' } }], {
        'dbo.Items': 'p3',
      });
      expect((await h.read(wider)).rows).toContain('3|∅|no name');
      expect(await target.reconcile({ ...wider, columns: [id, note] }, 'keep')).toEqual({
        added: [],
        done: [],
      });
      const dropped = await target.reconcile({ ...wider, columns: [id, note] }, 'drop');
      expect(dropped.done).toEqual(['column Name dropped']);
      expect((await h.read({ ...wider, columns: [id, note] })).rows).toHaveLength(3);
      await target.close();
    });

    it('follows a column retyped at the source: in place where the target can, otherwise made again empty', async () => {
      const { t, target } = await fresh();
      await target.apply([upsert(1, 'one', 'p1')], { 'dbo.Items': 'p1' });
      const [id, name] = t.columns as [ColumnShape, ColumnShape];
      // nvarchar(40) → nvarchar(80): every target widens in place (or has nothing to change); no copy.
      const wider: TargetTable = { ...t, columns: [id, { ...name, sourceType: 'nvarchar(80)' }] };
      expect(
        (await target.reconcile(wider, 'keep', [{ name: 'Name', from: 'nvarchar(40)' }])).remade,
      ).toBeUndefined();
      expect((await h.read(wider)).rows).toEqual(['1|one']);
      // nvarchar(80) → int: no target converts text to numbers here; the column is made again, empty.
      const numeric: TargetTable = { ...t, columns: [id, { ...name, sourceType: 'int', nullable: true }] };
      const retyped = await target.reconcile(numeric, 'keep', [{ name: 'Name', from: 'nvarchar(80)' }]);
      expect(retyped.remade).toEqual(['Name']);
      expect(retyped.done).toContainEqual(expect.stringMatching(/^column Name made again as /));
      expect((await h.read(numeric)).rows).toEqual(['1|∅']);
      await target.apply([{ ...upsert(1, '', 'p2'), row: { Id: 1, Name: 42 } }], { 'dbo.Items': 'p2' });
      expect((await h.read(numeric)).rows).toEqual(['1|42']);
      // Reconciled again without a retype (a reconnect): nothing to do.
      expect(await target.reconcile(numeric, 'keep')).toEqual({ added: [], done: [] });
      await target.close();
    });

    it('writes a large batch (the bulk path) as it writes small ones: every type, escapes, inserts over rows already there, updates', async () => {
      count += 1;
      const bulk = typedTable(`typed_bulk_${count}`);
      const small = typedTable(`typed_small_${count}`);
      const target = await h.open(`contract-${count}`);
      await target.prepare([bulk]);
      const other = await h.open(`contract-small-${count}`);
      await other.prepare([small]);
      const copied = typedTable(`typed_copied_${count}`);
      const copier = await h.open(`contract-copied-${count}`);
      await copier.prepare([copied]);
      const row = (id: number, round: number): Row =>
        id % 7 === 0
          ? { Id: id }
          : {
              ...VALUES,
              Id: id,
              Big: BigInt(id) * 1_000_000_007n * (round ? -1n : 1n),
              Amount: `${id}.${String(round).padStart(4, '0')}`,
              Ratio: id / 8,
              Name: `${round}: tab\there\\back\nline\r\\N ${id}`,
              Flag: (id + round) % 2 === 0,
              Bytes: Uint8Array.from([id % 256, 9, 10, 13, 92]),
            };
      const change = (id: number, round: number, op: Change['op']): Change => ({
        table: 'dbo.Typed',
        op,
        key: { Id: id },
        row: row(id, round),
        changedColumns: null,
        position: String(round),
      });
      const ids = Array.from({ length: 600 }, (_, i) => i + 1);
      // Round 0: inserts; round 1: updates of them all; round 2: inserts of keys the table has
      // (a copy that ran ahead), which must land as updates.
      for (const [round, op] of [
        [0, 'insert'],
        [1, 'update'],
        [2, 'insert'],
      ] as const) {
        const changes = ids.map((id) => change(id, round, op));
        await target.apply(changes, { 'dbo.Typed': String(round) });
        for (let from = 0; from < changes.length; from += 100)
          await other.apply(changes.slice(from, from + 100), { 'dbo.Typed': String(round) });
        // The third round as a copy's chunk: the copy path writes what apply writes.
        if (round < 2) await copier.apply(changes, { 'dbo.Typed': String(round) });
        else
          await writeChunk(
            copier,
            copied,
            changes.map((c) => c.row as Row),
            { 'dbo.Typed': String(round) },
          );
        const [a, b, c] = [
          (await h.read(bulk)).rows,
          (await h.read(small)).rows,
          (await h.read(copied)).rows,
        ];
        expect(a).toHaveLength(600);
        expect(a).toEqual(b);
        expect(c).toEqual(a);
      }
      expect(await target.loadCheckpoint()).toEqual({ 'dbo.Typed': '2' });
      expect(await other.loadCheckpoint()).toEqual({ 'dbo.Typed': '2' });
      expect(await copier.loadCheckpoint()).toEqual({ 'dbo.Typed': '2' });
      await target.close();
      await other.close();
      await copier.close();
    });

    it('applies nothing of a large batch that fails at its last row, inserts or updates', async () => {
      const { t, target } = await fresh();
      await target.apply([upsert(1, 'a', '1')], { 'dbo.Items': '1' });
      for (const op of ['insert', 'update'] as const) {
        const failing = Array.from({ length: 600 }, (_, i) => ({ ...upsert(i + 2, 'b', '2'), op }));
        failing.push({ ...upsert(700, 'c', '3'), op, row: { Id: 700, Name: null } });
        await expect(target.apply(failing, { 'dbo.Items': '3' })).rejects.toThrow();
        expect((await h.read(t)).rows).toEqual(['1|a']);
        expect(await target.loadCheckpoint()).toEqual({ 'dbo.Items': '1' });
      }
      await target.close();
    });

    it('writes a value of every type of the mapping and reads it back as written', async () => {
      count += 1;
      const t = typedTable(`typed_${count}`);
      const target = await h.open(`contract-${count}`);
      await target.prepare([t]);
      const insert = (row: Row): Change => ({
        table: t.source,
        op: 'insert',
        key: { Id: row.Id ?? null },
        row,
        changedColumns: null,
        position: '1',
      });
      await target.apply([insert(VALUES), insert({ Id: 2 })], { [t.source]: '1' });
      const nulls = ['2', ...Array<string>(TYPED.columns.length - 1).fill('∅')].join('|');
      const [written, empty] = (await h.read(t)).rows;
      expect(empty).toBe(nulls);
      const expected = typedLine(h.fractionDigits).split('|');
      const got = (written ?? '').split('|');
      const gaps = h.knownGaps ?? {};
      TYPED.columns.forEach((c, i) => {
        if (c.name in gaps)
          expect(got[i], `${c.name}: ${gaps[c.name]} (gap closed? remove it)`).not.toBe(expected[i]);
        else expect(got[i], c.name).toBe(expected[i]);
      });
      await target.close();
    });
  });
}
