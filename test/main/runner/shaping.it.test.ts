// Shaping before the data leaves the source (issue 56), both sources into SQLite and PostgreSQL: a
// table whose names are hashed with the salt, whose amount is renamed price and whose rows are
// filtered — copied, then streamed, with rows moving into and out of the filter by update — and a
// table that skips deletes and keeps the last two characters of its names. The target holds exactly
// what the shaping says (no clear name anywhere, the salt nowhere), verify finds it clean and finds a
// planted difference, and a changed shaping copies the table again.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { tableKey, type Row } from '../../../main/agents/source';
import type { RunnerEvent } from '../../../main/runner/events';
import { PipelineRunner } from '../../../main/runner/pipelineRunner';
import type { RunnerEntity } from '../../../main/runner/targetTables';
import { SHAPING_CHANGED, type TableMode } from '../../../shared/shaping';
import { verifyRequestSchema } from '../../../shared/verify';
import { bothSources } from '../../helpers/bothSources';
import { SOURCE_TARGET_PAIRS, targetSideFor } from '../../helpers/targetSide';
import { provenanceColumns } from '../../helpers/provenance';
import { until } from '../../helpers/until';
import { verifyWith } from '../../helpers/verify';

const sources = bothSources({ pipelineId: 'shaping', ibmiSchema: 'SHAPING' });
const SALT = 'salt-of-the-shaping-suite-7f3a';
const hashed = (v: string) => createHmac('sha256', SALT).update(v, 'utf8').digest('hex');

/** A target row with its column names in lower case, values as text. */
const plain = (r: Row) =>
  Object.fromEntries(Object.entries(r).map(([k, v]) => [k.toLowerCase(), v === null ? null : String(v)]));

describe.each(SOURCE_TARGET_PAIRS)('shaping a %s pipeline into %s', (sourceKind, targetKind) => {
  it('masks, renames and filters through the copy, the stream and verify', async () => {
    const h = await sources.harness(sourceKind);
    const pipelineId = `shaping_${sourceKind === 'journal' ? 'jr' : 'ct'}_${targetKind}`;
    const side = await targetSideFor(targetKind, sources.client(), pipelineId);
    const a = await h.createTable(`SA${targetKind[0]}`);
    const b = await h.createTable(`SB${targetKind[0]}`);
    const [aName, bName] = [h.entity(a).target.table, h.entity(b).target.table];
    const shapedA = (extra: Partial<RunnerEntity> = {}): RunnerEntity => ({
      ...h.entity(a),
      columnShaping: { name: { mask: { kind: 'hash' } }, amount: { targetName: 'price' } },
      rowFilter: "name not like 'x%' and amount >= 0",
      ...extra,
    });
    const shapedB: RunnerEntity = {
      ...h.entity(b),
      columnShaping: { name: { mask: { kind: 'keepLast', chars: 2 } } },
      skipOperations: ['delete'],
    };
    const events: RunnerEvent[] = [];
    const runner = (entities: RunnerEntity[] = [shapedA(), shapedB]) =>
      new PipelineRunner({
        openSource: () => h.open(),
        openTarget: () => side.open(),
        entities,
        maskSalt: SALT,
        onEvent: (e) => events.push(e),
        idleMs: 20,
      });
    const caughtUp = async () => {
      const r = runner();
      await r.runUntilCaughtUp();
      expect(r.failure).toBeNull();
      return r;
    };
    const rowsOf = async (table: string) =>
      (await side.rows(table)).map(plain).sort((x, y) => Number(x.id) - Number(y.id));

    await h.insert(a, [
      { id: 1, name: 'alpha', amount: '10.50' },
      { id: 2, name: 'xbeta', amount: '3.00' },
      { id: 3, name: 'gamma', amount: '-1.00' },
      { id: 4, name: 'delta', amount: '0.00' },
    ]);
    await h.insert(b, [
      { id: 1, name: 'alpha', amount: '1.00' },
      { id: 2, name: 'beta', amount: '2.00' },
    ]);
    await caughtUp();
    // The copy: the rows the filter holds true for, names hashed, amount under its new name.
    expect(await side.columns(aName)).toEqual(['id', 'name', 'price']);
    expect(await rowsOf(aName)).toEqual([
      { id: '1', name: hashed('alpha'), price: expect.stringMatching(/^10\.50?$/) },
      { id: '4', name: hashed('delta'), price: expect.stringMatching(/^0(\.00?)?$/) },
    ]);
    expect(await rowsOf(bName)).toEqual([
      { id: '1', name: '***ha', amount: expect.stringMatching(/^1(\.00?)?$/) },
      { id: '2', name: '**ta', amount: expect.stringMatching(/^2(\.00?)?$/) },
    ]);

    // The stream: an insert refused by the filter, one let in; a row moved out by an update (deleted
    // at the target), one moved in (inserted); a delete; deletes skipped in B.
    await h.insert(a, [
      { id: 5, name: 'epsilon', amount: '5.00' },
      { id: 6, name: 'xzeta', amount: '6.00' },
    ]);
    await h.update(a, 1, 'xalpha');
    await h.update(a, 2, 'beta');
    await h.remove(a, 4);
    await h.remove(b, 1);
    await h.update(b, 2, 'bravo');
    await caughtUp();
    expect((await rowsOf(aName)).map((r) => [r.id, r.name])).toEqual([
      ['2', hashed('beta')],
      ['5', hashed('epsilon')],
    ]);
    expect((await rowsOf(bName)).map((r) => [r.id, r.name])).toEqual([
      ['1', '***ha'],
      ['2', '***vo'],
    ]);
    // Nothing clear, nor the salt, in the target or in what the runner told.
    const everything = JSON.stringify([await side.rows(aName), await side.rows(bName), events]);
    for (const clear of ['alpha', 'epsilon', 'bravo', SALT]) expect(everything).not.toContain(clear);
    const applied = events.flatMap((e) => (e.kind === 'batch-applied' ? [e.tables[tableKey(a)]] : []));
    expect(applied.reduce((n, t) => n + (t?.deletes ?? 0), 0)).toBe(2);

    // Verify compares what the shaping should give: clean, B's row deleted at the source kept.
    const clean = await verifyWith(runner());
    expect(clean.tables.map((t) => [t.table, t.counts, t.rowsCompared, t.targetRows])).toEqual([
      [tableKey(a), { missing: 0, extra: 0, different: 0 }, 2, 2],
      // B's row 1, deleted at the source, is kept at the target: not an extra.
      [tableKey(b), { missing: 0, extra: 0, different: 0 }, 1, 2],
    ]);
    // A planted difference is found, by the target's column name.
    await side.tamper(
      aName,
      { column: sourceKind === 'journal' ? 'ID' : 'id', id: 5 },
      sourceKind === 'journal' ? 'NAME' : 'name',
      'tampered',
    );
    const planted = runner();
    planted.requestVerify(tableKey(a), verifyRequestSchema.parse({ chunkRows: 10 }));
    await planted.runUntilCaughtUp();
    const report = planted.verifyReport();
    expect(report?.tables[0]?.counts).toEqual({ missing: 0, extra: 0, different: 1 });
    expect(report?.tables[0]?.differences[0]?.columns.map((c) => c.toLowerCase())).toEqual(['name']);

    // A shaping changed while running: the table is copied again under it (no hash left behind).
    const running = runner();
    void running.start();
    try {
      await until('streaming', () => running.state === 'streaming');
      events.length = 0;
      running.setEntities([
        shapedA({
          columnShaping: { name: { mask: { kind: 'keepFirst', chars: 1 } }, amount: { targetName: 'price' } },
        }),
        shapedB,
      ]);
      await until('A copied again', () =>
        events.some((e) => e.kind === 'snapshot-done' && e.table === tableKey(a)),
      );
    } finally {
      await running.stop();
    }
    expect(events.find((e) => e.kind === 'snapshot-started')).toMatchObject({
      table: tableKey(a),
      reason: SHAPING_CHANGED,
    });
    expect((await rowsOf(aName)).map((r) => [r.id, r.name, r.price])).toEqual([
      ['2', 'b***', expect.stringMatching(/^3(\.00?)?$/)],
      ['5', 'e******', expect.stringMatching(/^5(\.00?)?$/)],
    ]);

    // A shaping that does not fit (a mask on the key) holds that table alone, and says why.
    events.length = 0;
    const misfit = new PipelineRunner({
      openSource: () => h.open(),
      openTarget: () => side.open(),
      entities: [
        { ...h.entity(a), columnShaping: { id: { mask: { kind: 'null' } } } },
        { ...shapedB, skipOperations: ['delete'] },
      ],
      maskSalt: SALT,
      onEvent: (e) => events.push(e),
      idleMs: 20,
    });
    await h.insert(b, [{ id: 3, name: 'charlie', amount: '3.00' }]);
    await misfit.runUntilCaughtUp();
    expect(misfit.failure).toBeNull();
    const held = events.find((e) => e.kind === 'table-suspended');
    expect(held).toMatchObject({ table: tableKey(a) });
    expect(held?.kind === 'table-suspended' && held.reason).toMatch(
      /is part of the row's key and cannot be masked/,
    );
    expect((await rowsOf(bName)).map((r) => r.name)).toEqual(['***ha', '***vo', '*****ie']);
  });
});

/** A time column's value as an instant: a Date (PostgreSQL's driver), or UTC text (SQLite). */
const instantOf = (v: unknown) =>
  v instanceof Date ? v.getTime() : Date.parse(`${String(v).replace(' ', 'T')}Z`);

describe.each(SOURCE_TARGET_PAIRS)(
  'provenance columns of a %s pipeline into %s',
  (sourceKind, targetKind) => {
    it('say what wrote each row, when and where it committed, and on IBM i which job', async () => {
      const h = await sources.harness(sourceKind);
      const side = await targetSideFor(
        targetKind,
        sources.client(),
        `prov_${sourceKind === 'journal' ? 'jr' : 'ct'}_${targetKind}`,
      );
      const t = await h.createTable(`PROV${targetKind[0]}`);
      const name = h.entity(t).target.table;
      const provenance = provenanceColumns(sourceKind);
      const runner = () =>
        new PipelineRunner({
          openSource: () => h.open(),
          openTarget: () => side.open(),
          entities: [{ ...h.entity(t), columns: ['name'] }],
          provenance,
          idleMs: 20,
        });
      await h.insert(t, [{ id: 1, name: 'copied', amount: '1.00' }]);
      const started = Date.now();
      await runner().runUntilCaughtUp();
      await h.insert(t, [{ id: 2, name: 'inserted', amount: '2.00' }]);
      await h.insertTogether(t, [
        { id: 3, name: 'together', amount: '3.00' },
        { id: 4, name: 'together', amount: '4.00' },
      ]);
      await h.update(t, 1, 'updated');
      const r = runner();
      await r.runUntilCaughtUp();
      expect(r.failure).toBeNull();
      const stored = await side.rows(name);
      const rows = stored.map(plain).sort((x, y) => Number(x.id) - Number(y.id));
      // The entity selects name only: key and provenance columns are kept, amount is not.
      expect(Object.keys(rows[0] ?? {})).toEqual([
        'id',
        'name',
        ...Object.values(provenance).map((n) => n.toLowerCase()),
      ]);
      expect(rows.map((x) => [x.id, x.cdc_op])).toEqual([
        ['1', 'update'],
        ['2', 'insert'],
        ['3', 'insert'],
        ['4', 'insert'],
      ]);
      for (const row of stored) {
        const value = (column: string) => Object.entries(row).find(([k]) => k.toLowerCase() === column)?.[1];
        expect(value('cdc_position')).toMatch(sourceKind === 'journal' ? /^\w+\/\w+\/\d+$/ : /^\d+$/);
        const committed = instantOf(value('cdc_committed'));
        expect(committed).toBeGreaterThan(started - 60_000);
        expect(committed).toBeLessThan(Date.now() + 60_000);
      }
      // One transaction, one id; a change outside a transaction on IBM i is its own (no commit cycle).
      const [one, two, three, four] = rows;
      expect(three?.cdc_tx).not.toBeNull();
      expect(four?.cdc_tx).toBe(three?.cdc_tx);
      if (sourceKind === 'journal') {
        expect(two?.cdc_tx).toBeNull();
        expect(one).toMatchObject({
          cdc_job: 'QZDASOINIT',
          cdc_job_user: 'QUSER',
          cdc_job_number: expect.stringMatching(/^\d{6}$/),
          cdc_program: 'QZDASOINIT',
        });
        expect(one?.cdc_profile).toMatch(/^[A-Z0-9$#@]+$/);
      } else {
        expect(two?.cdc_tx).toBe(two?.cdc_position);
      }
      // Verify leaves provenance out: it says how a row got there, not what the source holds.
      const report = await verifyWith(runner());
      expect(report.tables[0]?.counts).toEqual({ missing: 0, extra: 0, different: 0 });
    });
  },
);

/** A fresh table of `sourceKind` into `targetKind` in a table mode, and runners over it. */
async function tableInMode(
  sourceKind: (typeof SOURCE_TARGET_PAIRS)[number][0],
  targetKind: (typeof SOURCE_TARGET_PAIRS)[number][1],
  prefix: 'soft' | 'hist',
  tableMode: TableMode,
) {
  const h = await sources.harness(sourceKind);
  const pipelineId = `${prefix}_${sourceKind === 'journal' ? 'jr' : 'ct'}_${targetKind}`;
  const side = await targetSideFor(targetKind, sources.client(), pipelineId);
  const t = await h.createTable(`${prefix === 'soft' ? 'SD' : 'HS'}${targetKind[0]}`);
  const runner = () =>
    new PipelineRunner({
      openSource: () => h.open(),
      openTarget: () => side.open(),
      entities: [{ ...h.entity(t), tableMode }],
      idleMs: 20,
    });
  const caughtUp = async () => {
    const r = runner();
    await r.runUntilCaughtUp();
    expect(r.failure).toBeNull();
  };
  return { h, side, t, name: h.entity(t).target.table, runner, caughtUp };
}

describe.each(SOURCE_TARGET_PAIRS)('a soft-deleting %s table into %s', (sourceKind, targetKind) => {
  it('flags a deleted row with its time instead of removing it, and a row back clears the flag', async () => {
    const { h, side, t, name, runner, caughtUp } = await tableInMode(sourceKind, targetKind, 'soft', {
      kind: 'softDelete',
      flagColumn: 'gone',
      timeColumn: 'gone_at',
    });
    const rows = async () =>
      (await side.rows(name))
        .map(plain)
        .sort((x, y) => Number(x.id) - Number(y.id))
        .map((r) => [
          r.id,
          r.name,
          r.gone === null || r.gone === undefined ? null : ['1', 'true'].includes(r.gone),
          r.gone_at !== null,
        ]);
    await h.insert(t, [
      { id: 1, name: 'alpha', amount: '1.00' },
      { id: 2, name: 'beta', amount: '2.00' },
    ]);
    await caughtUp();
    const before = Date.now();
    await h.remove(t, 1);
    await h.update(t, 2, 'beta 2');
    await caughtUp();
    expect(await rows()).toEqual([
      ['1', 'alpha', true, true],
      ['2', 'beta 2', false, false],
    ]);
    // PostgreSQL's driver reads a timestamp as a Date, SQLite holds the text the target wrote.
    const at = (await side.rows(name)).find((r) => Number(r.id ?? r.ID) === 1)?.gone_at;
    const when = at instanceof Date ? at.getTime() : Date.parse(`${String(at).replace(' ', 'T')}Z`);
    expect(Math.abs(when - before)).toBeLessThan(120_000);
    // The key inserted again at the source: the row is live again.
    await h.insert(t, [{ id: 1, name: 'alpha again', amount: '1.00' }]);
    await caughtUp();
    expect(await rows()).toEqual([
      ['1', 'alpha again', false, false],
      ['2', 'beta 2', false, false],
    ]);
    await h.remove(t, 2);
    await caughtUp();
    const report = await verifyWith(runner());
    // Row 2, flagged at the target and gone at the source, is the mode's to keep: not an extra.
    expect(report.tables[0]?.counts).toEqual({ missing: 0, extra: 0, different: 0 });
  });
});

describe.each(SOURCE_TARGET_PAIRS)('a %s history table into %s', (sourceKind, targetKind) => {
  it('keeps a row per version, valid from and to, and verifies the current ones', async () => {
    const { h, side, t, name, runner, caughtUp } = await tableInMode(sourceKind, targetKind, 'hist', {
      kind: 'history',
      validFromColumn: 'valid_from',
      validToColumn: 'valid_to',
    });
    // To the millisecond: PostgreSQL's driver reads a timestamp as a Date, SQLite holds the text.
    const time = (v: unknown) =>
      v === null || v === undefined
        ? null
        : v instanceof Date
          ? v.toISOString().slice(0, 23)
          : String(v).replace(' ', 'T').slice(0, 23);
    const versions = async () =>
      (await side.rows(name))
        .map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k.toLowerCase(), v])))
        .map((r) => ({ id: String(r.id), name: r.name, from: time(r.valid_from), to: time(r.valid_to) }))
        // By id and name: a row's names here sort as its versions came (two may share a millisecond).
        .sort((x, y) => Number(x.id) - Number(y.id) || String(x.name).localeCompare(String(y.name)));
    await h.insert(t, [
      { id: 1, name: 'alpha', amount: '1.00' },
      { id: 2, name: 'beta', amount: '2.00' },
    ]);
    await caughtUp();
    const copied = await versions();
    expect(copied.map((v) => [v.id, v.name, v.to])).toEqual([
      ['1', 'alpha', null],
      ['2', 'beta', null],
    ]);
    // Two updates of one row read together, a delete, an insert.
    await h.update(t, 1, 'alpha 2');
    await h.update(t, 1, 'alpha 3');
    await h.remove(t, 2);
    await h.insert(t, [{ id: 3, name: 'gamma', amount: '3.00' }]);
    await caughtUp();
    const after = await versions();
    // The journal has an entry per update; Change Tracking nets a row's changes since the last read.
    const names = sourceKind === 'journal' ? ['alpha', 'alpha 2', 'alpha 3'] : ['alpha', 'alpha 3'];
    expect(after.map((v) => [v.id, v.name, v.to === null ? 'current' : 'ended'])).toEqual([
      ...names.map((n, i) => ['1', n, i === names.length - 1 ? 'current' : 'ended']),
      ['2', 'beta', 'ended'],
      ['3', 'gamma', 'current'],
    ]);
    // Each version of row 1 begins when the one before it ended; row 2 ended when it was deleted.
    const one = after.filter((v) => v.id === '1');
    for (let i = 1; i < one.length; i++) expect(one[i]?.from).toBe(one[i - 1]?.to);
    expect(after.find((v) => v.id === '2')?.from).toBe(copied[1]?.from);
    // Verify compares the current versions: clean, then a planted difference in one is found.
    const clean = await verifyWith(runner());
    expect(clean.tables[0]?.counts).toEqual({ missing: 0, extra: 0, different: 0 });
    expect(clean.tables[0]?.rowsCompared).toBe(2);
    await side.tamper(
      name,
      { column: sourceKind === 'journal' ? 'ID' : 'id', id: 3 },
      sourceKind === 'journal' ? 'NAME' : 'name',
      'tampered',
    );
    const planted = await verifyWith(runner());
    expect(planted.tables[0]?.counts).toEqual({ missing: 0, extra: 0, different: 1 });
  });
});

describe.each(SOURCE_TARGET_PAIRS)(
  'a shard of three %s tables into one %s table',
  (sourceKind, targetKind) => {
    it('keeps each member’s rows apart by its shard column, copies one member alone, and verifies each', async () => {
      const h = await sources.harness(sourceKind);
      const pipelineId = `shard_${sourceKind === 'journal' ? 'jr' : 'ct'}_${targetKind}`;
      const side = await targetSideFor(targetKind, sources.client(), pipelineId);
      const members = [
        await h.createTable(`EU${targetKind[0]}`),
        await h.createTable(`US${targetKind[0]}`),
        await h.createTable(`AP${targetKind[0]}`),
      ];
      const values = ['eu', 'us', 'ap'];
      const entities = members.map((t, i) => ({
        ...h.entity(t),
        target: { table: 'orders_all' },
        shard: { column: 'region', value: values[i] ?? '' },
      }));
      const events: RunnerEvent[] = [];
      const runner = () =>
        new PipelineRunner({
          openSource: () => h.open(),
          openTarget: () => side.open(),
          entities,
          onEvent: (e) => events.push(e),
          idleMs: 20,
        });
      const caughtUp = async (r = runner()) => {
        await r.runUntilCaughtUp();
        expect(r.failure).toBeNull();
        return r;
      };
      // The same ids in every member: only the shard column keeps them apart.
      for (const [i, t] of members.entries())
        await h.insert(t, [
          { id: 1, name: `${values[i]} one`, amount: '1.00' },
          { id: 2, name: `${values[i]} two`, amount: '2.00' },
        ]);
      await caughtUp();
      const rows = async () =>
        (await side.rows('orders_all'))
          .map(plain)
          .map((r) => `${r.region}/${r.id}/${r.name}`)
          .sort();
      expect(await rows()).toEqual([
        'ap/1/ap one',
        'ap/2/ap two',
        'eu/1/eu one',
        'eu/2/eu two',
        'us/1/us one',
        'us/2/us two',
      ]);
      const [eu, us] = members as [(typeof members)[number], (typeof members)[number]];
      await h.update(eu, 1, 'eu one changed');
      await h.remove(us, 2);
      await caughtUp();
      expect(await rows()).toEqual([
        'ap/1/ap one',
        'ap/2/ap two',
        'eu/1/eu one changed',
        'eu/2/eu two',
        'us/1/us one',
      ]);
      // A copy of one member empties its own rows only.
      const r = runner();
      expect(r.requestSnapshot(tableKey(us))).toBe(true);
      await caughtUp(r);
      expect(await rows()).toHaveLength(5);
      // Each member verifies clean, the others' rows in its table never counted as extras.
      const report = await verifyWith(runner());
      expect(report.tables.map((t) => [t.counts, t.rowsCompared])).toEqual([
        [{ missing: 0, extra: 0, different: 0 }, 2],
        [{ missing: 0, extra: 0, different: 0 }, 1],
        [{ missing: 0, extra: 0, different: 0 }, 2],
      ]);
    });
  },
);
