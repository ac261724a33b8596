// Rows a target refuses are kept aside, never skipped silently, and their table goes on (issue 40):
// both sources into SQLite and PostgreSQL, a trigger at the target refusing names that start with
// "bad". Each refused row is kept with its key, values, position and the target's words, and left out
// of the counts; a retry after the cause is fixed reads the row from the source now (a newer row wins
// over the values kept). Past maxExceptions the table is suspended at its position and resumed there,
// as is a table the target refuses whole; a copy keeps its refused rows aside too.
import { describe, expect, it } from 'vitest';
import { tableKey, type Row, type TableRef } from '../../../main/agents/source';
import type { RefusedRow } from '../../../main/agents/spi';
import type { RunnerEvent } from '../../../main/runner/events';
import { PipelineRunner } from '../../../main/runner/pipelineRunner';
import type { ContractRow, SourceHarness } from '../agents/contract/sourceAgent';
import { bothSources } from '../../helpers/bothSources';
import { SOURCE_TARGET_PAIRS, targetSchemaOf, targetSideFor } from '../../helpers/targetSide';
import { runnerOver } from '../../helpers/runnerOver';
import { until } from '../../helpers/until';

const sources = bothSources({ pipelineId: 'refusals', ibmiSchema: 'REFUSALS' });

type Kept = RefusedRow & { id: number };

describe.each(SOURCE_TARGET_PAIRS)('rows a %s pipeline cannot write into %s', (sourceKind, targetKind) => {
  it('are kept aside and retried, their table goes on, and a suspended table resumes where it stood', async () => {
    const h: SourceHarness = await sources.harness(sourceKind);
    const pipelineId = `refusals_${sourceKind === 'journal' ? 'jr' : 'ct'}_${targetKind}`;
    const side = await targetSideFor(targetKind, sources.client(), pipelineId);
    const a = await h.createTable(`RA${targetKind[0]}`);
    const b = await h.createTable(`RB${targetKind[0]}`);
    const [aName, bName] = [h.entity(a).target.table, h.entity(b).target.table];
    const source = new Map<string, Map<number, ContractRow>>([
      [aName, new Map()],
      [bName, new Map()],
    ]);
    const insert = async (t: TableRef, id: number, name: string) => {
      const row = { id, name, amount: `${id}.50` };
      await h.insert(t, [row]);
      source.get(h.entity(t).target.table)?.set(id, row);
    };
    const update = async (t: TableRef, id: number, name: string) => {
      await h.update(t, id, name);
      const rows = source.get(h.entity(t).target.table);
      const row = rows?.get(id);
      if (row) rows?.set(id, { ...row, name });
    };
    const atTarget = async (table: string) =>
      (await side.rows(table)).map((r) => h.normalize(r)).sort((x, y) => x.id - y.id);
    const atSource = (table: string) => [...(source.get(table)?.values() ?? [])].sort((x, y) => x.id - y.id);

    const kept: Kept[] = [];
    let lastId = 0;
    const events: RunnerEvent[] = [];
    const runner = (maxExceptions = 1000) =>
      new PipelineRunner({
        openSource: () => h.open(),
        openTarget: () => side.open(),
        entities: [h.entity(a), h.entity(b)],
        onEvent: (e) => events.push(e),
        maxExceptions,
        idleMs: 20,
        onRowsRefused: (rows) => {
          for (const r of rows) {
            const same = (k: Kept) =>
              k.table === r.table &&
              k.position === r.position &&
              h.normalize(k.key as Row).id === idOf(r.key);
            if (!kept.some(same)) kept.push({ ...r, id: ++lastId });
          }
          return Object.fromEntries(
            rows.map((r) => [r.table, kept.filter((k) => k.table === r.table).length]),
          );
        },
        retry: { firstDelayMs: 10, maxDelayMs: 50, maxAttempts: 2 },
      });
    const idOf = (key: Row) => Number(Object.entries(key).find(([k]) => k.toLowerCase() === 'id')?.[1]);
    const caughtUp = async (maxExceptions?: number) => {
      const r = runner(maxExceptions);
      await r.runUntilCaughtUp();
      expect(r.failure).toBeNull();
      return r;
    };
    /** Runs `work` against a running pipeline, then stops it. */
    const whileRunning = async <T>(
      r: PipelineRunner,
      work: (r: PipelineRunner) => Promise<T>,
    ): Promise<T> => {
      void r.start();
      try {
        await until('the pipeline streaming', () => r.state === 'streaming');
        return await work(r);
      } finally {
        await r.stop();
      }
    };
    const retryAll = (r: PipelineRunner) =>
      r.retryRows(kept.map((k) => ({ id: k.id, table: k.table, key: k.key }))).then((outcomes) => {
        for (const o of outcomes)
          if (o.status === 'applied')
            kept.splice(
              kept.findIndex((k) => k.id === o.id),
              1,
            );
        return outcomes;
      });
    const aTable = tableKey(a);

    // Copied, then the target starts refusing names that start with "bad" in A.
    await insert(a, 1, 'alpha');
    await insert(a, 2, 'beta');
    await insert(b, 1, 'one');
    await caughtUp();
    await side.refuseBad(aName, true);

    // A refused row is kept with what a DBA needs; the rest of its table and the other table go in.
    await insert(a, 3, 'bad three');
    await insert(a, 4, 'delta');
    await update(a, 1, 'alpha 2');
    await insert(b, 2, 'two');
    events.length = 0;
    await caughtUp();
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({ table: aTable, op: 'insert' });
    expect(idOf(kept[0]?.key ?? {})).toBe(3);
    expect(h.normalize(kept[0]?.values ?? {}).name).toBe('bad three');
    expect(kept[0]?.position).not.toBe('');
    expect(kept[0]?.error).toMatch(/refused: a bad name/);
    expect(await atTarget(aName)).toEqual(atSource(aName).filter((r) => r.id !== 3));
    expect(await atTarget(bName)).toEqual(atSource(bName));
    const applied = events.flatMap((e) => (e.kind === 'batch-applied' ? [e.tables[aTable]] : []));
    expect(applied.reduce((n, t) => n + (t?.inserts ?? 0), 0)).toBe(1);
    expect(events.find((e) => e.kind === 'rows-refused')).toMatchObject({ table: aTable, rows: 1, kept: 1 });
    expect(events.some((e) => e.kind === 'table-suspended' || e.kind === 'failed')).toBe(false);

    // Refused again after a change at the source: a second row kept (another position).
    await insert(a, 5, 'bad five');
    await caughtUp();
    await update(a, 5, 'bad five, newer');
    await caughtUp();
    expect(kept.map((k) => idOf(k.key))).toEqual([3, 5, 5]);

    // The cause fixed, a retry reads each row from the source now: the older row 5 kept writes the newer.
    await side.refuseBad(aName, false);
    const outcomes = await whileRunning(runner(), retryAll);
    expect(outcomes.map((o) => o.status)).toEqual(['applied', 'applied', 'applied']);
    expect(kept).toEqual([]);
    expect(await atTarget(aName)).toEqual(atSource(aName));
    expect((await atTarget(aName)).find((r) => r.id === 5)?.name).toBe('bad five, newer');

    // maxExceptions 0: the first refused row suspends A at its position; B goes on.
    await side.refuseBad(aName, true);
    await insert(a, 6, 'bad six');
    await insert(b, 3, 'three');
    events.length = 0;
    const limited = await caughtUp(0);
    const suspended = events.find((e) => e.kind === 'table-suspended');
    expect(suspended).toMatchObject({ table: aTable });
    expect(suspended?.kind === 'table-suspended' && suspended.reason).toMatch(
      /was suspended: 1 of its rows are kept as exceptions, more than the pipeline's limit \(Rows kept aside per table, 0\).*resume it once the cause is fixed/,
    );
    expect(limited.snapshots().find((t) => t.table === aTable)?.status).toBe('suspended');
    expect(await atTarget(bName)).toEqual(atSource(bName));
    // Its changes wait at its position while it is suspended; resumed, it reads them.
    await insert(a, 7, 'eta');
    await insert(b, 4, 'four');
    await caughtUp(0);
    expect((await atTarget(aName)).some((r) => r.id === 7)).toBe(false);
    expect(await atTarget(bName)).toEqual(atSource(bName));
    await side.refuseBad(aName, false);
    await whileRunning(runner(0), async (r) => {
      expect(r.resumeTable(aTable)).toBe('resumed');
      await until('A read on from its position', async () => (await atTarget(aName)).some((x) => x.id === 7));
      expect(await retryAll(r)).toEqual([{ id: expect.any(Number), status: 'applied' }]);
    });
    expect(events.some((e) => e.kind === 'table-resumed' && e.table === aTable)).toBe(true);
    expect(await atTarget(aName)).toEqual(atSource(aName));

    // A table the target refuses whole (gone there while running) is suspended, the other goes on.
    events.length = 0;
    await whileRunning(runner(), async () => {
      await side.hide(aName, true);
      await insert(a, 8, 'theta');
      await insert(b, 5, 'five');
      await until('A suspended', () => events.some((e) => e.kind === 'table-suspended'));
      await until('B applied', async () => (await atTarget(bName)).some((x) => x.id === 5));
    });
    expect(events.find((e) => e.kind === 'table-suspended')).toMatchObject({ table: aTable });
    expect(events.some((e) => e.kind === 'failed')).toBe(false);
    await insert(a, 9, 'iota');
    await side.hide(aName, false);
    await whileRunning(runner(), async (r) => {
      expect(r.resumeTable(aTable)).toBe('resumed');
      await until('A caught up', async () => (await atTarget(aName)).some((x) => x.id === 9));
    });
    expect(await atTarget(aName)).toEqual(atSource(aName));
    expect(kept).toEqual([]);

    // A copy keeps its refused rows aside too: rows 3, 5 and 6 (their names start with "bad"), the rest copied.
    await side.refuseBad(aName, true);
    events.length = 0;
    const copy = runner();
    expect(copy.requestSnapshot(aTable)).toBe(true);
    await copy.runUntilCaughtUp();
    expect(copy.failure).toBeNull();
    expect(events.some((e) => e.kind === 'snapshot-done' && e.table === aTable)).toBe(true);
    expect(kept.map((k) => idOf(k.key))).toEqual([3, 5, 6]);
    expect(kept.every((k) => k.op === 'insert' && /refused: a bad name/.test(k.error))).toBe(true);
    expect(await atTarget(aName)).toEqual(atSource(aName).filter((r) => ![3, 5, 6].includes(r.id)));
  });
});

describe.each(['change-tracking', 'journal'] as const)(
  'a number past the target column’s range, from %s',
  (sourceKind) => {
    it('is kept aside with PostgreSQL’s words while the table goes on', async () => {
      const h: SourceHarness = await sources.harness(sourceKind);
      const pipelineId = `range_${sourceKind === 'journal' ? 'jr' : 'ct'}`;
      const client = sources.client();
      const side = await targetSideFor('postgresql', client, pipelineId);
      const schema = targetSchemaOf(pipelineId);
      const t = await h.createTable('RANGE');
      const name = h.entity(t).target.table;
      const kept: RefusedRow[] = [];
      const runner = () =>
        runnerOver(h, side, [t], [], {
          onRowsRefused: (rows) => {
            kept.push(...rows);
            return { [tableKey(t)]: kept.length };
          },
        });
      await h.insert(t, [{ id: 1, name: 'small', amount: '1.50' }]);
      await runner().runUntilCaughtUp();
      const amount = (
        await client.query<{ column_name: string }>(
          "SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 AND lower(column_name) = 'amount'",
          [schema, name],
        )
      ).rows[0]?.column_name;
      // While the pipeline runs, the DBA narrows the target column: 123.45 no longer fits numeric(4,2).
      // (A start would widen it back to the source's type.)
      const r = runner();
      void r.start();
      try {
        await until('streaming', () => r.state === 'streaming');
        await client.query(`ALTER TABLE "${schema}"."${name}" ALTER COLUMN "${amount}" TYPE numeric(4,2)`);
        await h.insert(t, [
          { id: 2, name: 'large', amount: '123.45' },
          { id: 3, name: 'fits', amount: '2.25' },
        ]);
        await until('the row kept aside', () => kept.length === 1);
        await until('the other row applied', async () => (await side.rows(name)).length === 2);
      } finally {
        await r.stop();
      }
      expect(r.failure).toBeNull();
      expect(kept[0]).toMatchObject({ table: tableKey(t), op: 'insert' });
      expect(h.normalize(kept[0]?.values ?? {}).amount).toBe('123.45');
      expect(kept[0]?.error).toMatch(/numeric field overflow/);
      expect((await side.rows(name)).map((x) => h.normalize(x).id).sort()).toEqual([1, 3]);
    });
  },
);
