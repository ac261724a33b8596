// Each schema-change policy and each droppedTables choice from both sources into SQLite and
// PostgreSQL, as a DBA sees the target: a column `note` added and the column `amount` dropped at the
// source while the pipeline ran. propagate alters the target to match; add-columns-only adds and keeps;
// ignore-new-columns leaves the new column out and keeps the old one (each withheld change said);
// suspend-table waits for review and, resumed, applies it; the other table reads on throughout. A
// table dropped at the source is dropped at the target, kept, or suspended, as chosen.
import { describe, expect, it } from 'vitest';
import { tableKey, type TableRef } from '../../../main/agents/source';
import type { RunnerEvent } from '../../../main/runner/events';
import type { RunnerOptions } from '../../../main/runner/pipelineRunner';
import type { SourceHarness } from '../agents/contract/sourceAgent';
import { bothSources } from '../../helpers/bothSources';
import { runnerOver } from '../../helpers/runnerOver';
import { SOURCE_TARGET_PAIRS, targetSideFor, type SourceTargetPair } from '../../helpers/targetSide';
import { until } from '../../helpers/until';

const sources = bothSources({ pipelineId: 'shapes', ibmiSchema: 'SHAPES' });
let made = 0;

/** A pipeline over two new tables of the source into a fresh target of the kind. */
async function pipelineOf([sourceKind, targetKind]: SourceTargetPair, options: Partial<RunnerOptions>) {
  const h: SourceHarness = await sources.harness(sourceKind);
  const pipelineId = `shape${++made}_${sourceKind === 'journal' ? 'jr' : 'ct'}_${targetKind}`;
  const side = await targetSideFor(targetKind, sources.client(), pipelineId);
  const a = await h.createTable(`P${made}A`);
  const b = await h.createTable(`P${made}B`);
  const events: RunnerEvent[] = [];
  const runner = () => runnerOver(h, side, [a, b], events, { droppedColumns: 'drop', ...options });
  const caughtUp = async () => {
    const r = runner();
    await r.runUntilCaughtUp();
    expect(r.failure).toBeNull();
    return r;
  };
  const name = (t: TableRef) => h.entity(t).target.table;
  const ids = async (t: TableRef) =>
    (await side.rows(name(t))).map((r) => h.normalize(r).id).sort((x, y) => x - y);
  const row = (id: number) => ({ id, name: `row ${id}`, amount: `${id}.00` });
  return { h, side, a, b, events, runner, caughtUp, name, ids, row };
}

describe.each(SOURCE_TARGET_PAIRS)('schema-change policies from %s into %s', (sourceKind, targetKind) => {
  it.each([
    ['propagate', ['id', 'name', 'note'], null],
    ['add-columns-only', ['id', 'name', 'amount', 'note'], /column .*amount.* kept at the target/i],
    ['ignore-new-columns', ['id', 'name', 'amount'], /column .*note.* added at the source left out/i],
  ] as const)(
    '%s shapes the target as chosen and says what it withheld',
    async (policy, expected, withheld) => {
      const p = await pipelineOf([sourceKind, targetKind], { schemaChanges: policy });
      await p.h.insert(p.a, [p.row(1)]);
      await p.h.insert(p.b, [p.row(1)]);
      await p.caughtUp();
      await p.h.addNoteColumn(p.a);
      await p.h.dropColumn(p.a, 'amount');
      await p.h.update(p.a, 1, 'one, after the change');
      await p.h.insert(p.b, [p.row(2)]);
      await p.caughtUp();
      expect(await p.side.columns(p.name(p.a))).toEqual(expected);
      const rows = (await p.side.rows(p.name(p.a))).map((r) => p.h.normalize(r).name);
      expect(rows).toEqual(['one, after the change']);
      expect(await p.ids(p.b)).toEqual([1, 2]);
      const said = p.events.filter((e) => e.kind === 'schema-change-withheld');
      if (withheld)
        expect(said.map((e) => e.kind === 'schema-change-withheld' && e.reason).join(' ')).toMatch(withheld);
      else expect(said).toEqual([]);
    },
  );

  it('suspend-table waits for review while the other table reads on; resumed, the change is applied', async () => {
    const p = await pipelineOf([sourceKind, targetKind], { schemaChanges: 'suspend-table' });
    await p.h.insert(p.a, [p.row(1)]);
    await p.h.insert(p.b, [p.row(1)]);
    await p.caughtUp();
    await p.h.addNoteColumn(p.a);
    await p.h.update(p.a, 1, 'one, after the change');
    await p.h.insert(p.b, [p.row(2)]);
    await p.caughtUp();
    const suspended = p.events.find((e) => e.kind === 'table-suspended');
    expect(suspended).toMatchObject({ table: tableKey(p.a) });
    expect(suspended?.kind === 'table-suspended' && suspended.reason).toMatch(
      /columns changed at the source \(added: note\).*"suspend-table": review the change, then resume/i,
    );
    expect(await p.side.columns(p.name(p.a))).toEqual(['id', 'name', 'amount']);
    expect(await p.ids(p.b)).toEqual([1, 2]);
    const r = p.runner();
    void r.start();
    try {
      await until('the pipeline streaming', () => r.state === 'streaming');
      expect(r.resumeTable(tableKey(p.a))).toBe('resumed');
      await until(
        'the change applied',
        async () => (await p.side.columns(p.name(p.a)))?.includes('note') ?? false,
      );
      await until('the row updated', async () =>
        (await p.side.rows(p.name(p.a))).some((x) => p.h.normalize(x).name === 'one, after the change'),
      );
    } finally {
      await r.stop();
    }
    expect(await p.side.columns(p.name(p.a))).toEqual(['id', 'name', 'amount', 'note']);
  });

  it.each([
    ['drop', 'table-stopped', 'stopped', false],
    ['keep', 'table-stopped', 'stopped', true],
    ['suspend', 'table-suspended', 'suspended', true],
  ] as const)('a table dropped at the source with droppedTables %s', async (choice, kind, status, kept) => {
    const p = await pipelineOf([sourceKind, targetKind], { droppedTables: choice });
    await p.h.insert(p.a, [p.row(1)]);
    await p.h.insert(p.b, [p.row(1)]);
    await p.caughtUp();
    await p.h.dropTable(p.a);
    await p.h.insert(p.b, [p.row(2)]);
    const r = await p.caughtUp();
    expect(p.events.find((e) => e.kind === kind)).toMatchObject({ table: tableKey(p.a) });
    expect(r.snapshots().find((t) => t.table === tableKey(p.a))?.status).toBe(status);
    expect((await p.side.columns(p.name(p.a))) !== null).toBe(kept);
    expect(await p.ids(p.b)).toEqual([1, 2]);
  });
});
