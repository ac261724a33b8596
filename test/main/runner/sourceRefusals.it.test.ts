// A table the source no longer lets the agent read (SQL Server's DENY SELECT, answered with 229; an
// IBM i file whose authority was revoked, CPF9802 on DSPJRN) is suspended at its position with the
// reason and the grant that gives it back; the pipeline's other table reads on, its changes applied
// and counted. Once granted again and resumed, the table reads the changes made meanwhile and equals
// the source. With onTableError stop-pipeline the pipeline stops instead. Both sources, both targets.
import { describe, expect, it } from 'vitest';
import { tableKey, type TableRef } from '../../../main/agents/source';
import type { RunnerEvent } from '../../../main/runner/events';
import type { PipelineRunner } from '../../../main/runner/pipelineRunner';
import type { OnTableError } from '../../../shared/agents/common';
import type { ContractRow, SourceHarness } from '../agents/contract/sourceAgent';
import { SEED_ADMIN } from '../../../simulators/ibmi/seed';
import { bothSources } from '../../helpers/bothSources';
import { runnerOver } from '../../helpers/runnerOver';
import { SOURCE_TARGET_PAIRS, targetSideFor } from '../../helpers/targetSide';
import { until } from '../../helpers/until';

const sources = bothSources({ pipelineId: 'srcrefused', ibmiSchema: 'SRCREFUSED' });

describe.each(SOURCE_TARGET_PAIRS)(
  'a %s table the source no longer lets the agent read, into %s',
  (sourceKind, targetKind) => {
    it('is suspended with the grant that gives it back, the other table reads on; resumed, it catches up', async () => {
      const h: SourceHarness = await sources.harness(sourceKind);
      const pipelineId = `srcref_${sourceKind === 'journal' ? 'jr' : 'ct'}_${targetKind}`;
      const side = await targetSideFor(targetKind, sources.client(), pipelineId);
      const a = await h.createTable(`SA${targetKind[0]}`);
      const b = await h.createTable(`SB${targetKind[0]}`);
      const source = new Map<TableRef, ContractRow[]>([
        [a, []],
        [b, []],
      ]);
      const insert = async (t: TableRef, id: number) => {
        const row = { id, name: `row ${id}`, amount: `${id}.25` };
        await h.insert(t, [row]);
        source.get(t)?.push(row);
      };
      const atTarget = async (t: TableRef) =>
        (await side.rows(h.entity(t).target.table)).map((r) => h.normalize(r)).sort((x, y) => x.id - y.id);
      const events: RunnerEvent[] = [];
      const runner = (onTableError?: OnTableError) =>
        runnerOver(h, side, [a, b], events, {
          onTableError,
          retry: { firstDelayMs: 10, maxDelayMs: 50, maxAttempts: 2 },
        });
      const caughtUp = async () => {
        const r = runner();
        await r.runUntilCaughtUp();
        expect(r.failure).toBeNull();
        return r;
      };

      const whileRunning = async (work: (r: PipelineRunner) => Promise<void>) => {
        const r = runner();
        void r.start();
        try {
          await until('the pipeline streaming', () => r.state === 'streaming');
          await work(r);
        } finally {
          await r.stop();
        }
      };
      const suspendedSaying = (said: RegExp) => {
        const suspended = events.find((e) => e.kind === 'table-suspended');
        expect(suspended).toMatchObject({ table: tableKey(a) });
        expect(suspended?.kind === 'table-suspended' && suspended.reason).toMatch(said);
      };
      const resume = () =>
        whileRunning(async (r) => {
          expect(r.resumeTable(tableKey(a))).toBe('resumed');
          await until('A caught up', async () => (await atTarget(a)).length === source.get(a)?.length);
        });
      const grantBack =
        sourceKind === 'journal'
          ? 'GRTOBJAUT OBJ\\(SRCREFUSED/T\\d+\\) OBJTYPE\\(\\*FILE\\) USER\\(CDCAGENT\\) AUT\\(\\*USE\\)'
          : 'GRANT SELECT, VIEW CHANGE TRACKING ON dbo\\.\\w+ TO \\[dba\\]';

      await insert(a, 1);
      await insert(b, 1);
      await caughtUp();

      // While the pipeline runs, the agent loses its authority to A; both tables change.
      events.length = 0;
      await whileRunning(async () => {
        await h.revokeRead(a);
        await insert(a, 2);
        await insert(b, 2);
        await until('A suspended', () => events.some((e) => e.kind === 'table-suspended'));
        await until('B applied', async () => (await atTarget(b)).length === 2);
      });
      suspendedSaying(
        new RegExp(
          (sourceKind === 'journal'
            ? 'no longer authorized to .*CPF9802 on DSPJRN'
            : 'may no longer read .*SELECT permission was denied') + `.*${grantBack}.*then resume`,
        ),
      );
      expect(await atTarget(b)).toEqual(source.get(b));
      expect(await atTarget(a)).toEqual(source.get(a)?.slice(0, 1));
      const applied = events.flatMap((e) => (e.kind === 'batch-applied' ? [e.tables[tableKey(b)]] : []));
      expect(applied.reduce((n, t) => n + (t?.inserts ?? 0), 0)).toBe(1);
      expect(events.some((e) => e.kind === 'failed')).toBe(false);

      // Still suspended across a restart while B goes on; granted again and resumed, A reads on.
      await insert(a, 3);
      await insert(b, 3);
      const restarted = await caughtUp();
      expect(restarted.snapshots().find((t) => t.table === tableKey(a))?.status).toBe('suspended');
      expect(await atTarget(b)).toEqual(source.get(b));
      expect((await atTarget(a)).map((x) => x.id)).toEqual([1]);
      await h.grantRead(a);
      await resume();
      expect(await atTarget(a)).toEqual(source.get(a));
      expect(events.some((e) => e.kind === 'table-resumed' && e.table === tableKey(a))).toBe(true);

      // Taken away while the pipeline was stopped: suspended at the start, never taken for dropped.
      await h.revokeRead(a);
      await insert(a, 4);
      await insert(b, 4);
      events.length = 0;
      await caughtUp();
      suspendedSaying(
        new RegExp(
          (sourceKind === 'journal'
            ? 'no longer authorized to .*CPF9802 on CHKOBJ'
            : 'SELECT permission was denied') + `.*${grantBack}`,
        ),
      );
      expect(events.some((e) => e.kind === 'table-stopped')).toBe(false);
      expect(await atTarget(b)).toEqual(source.get(b));
      await h.grantRead(a);
      await resume();
      expect(await atTarget(a)).toEqual(source.get(a));

      // The DBA who wants whole transactions gets the pipeline stopped, with the same reason.
      await h.revokeRead(a);
      await insert(a, 5);
      const strict = runner('stop-pipeline');
      await strict.runUntilCaughtUp();
      expect(strict.failure).toMatch(sourceKind === 'journal' ? /CPF9802/ : /SELECT permission was denied/);
      await h.grantRead(a);
    });
  },
);

describe.each(['sqlite', 'postgresql'] as const)('journaling ended on one file, into %s', (targetKind) => {
  it('stops that table alone with the way back; journaled again and copied again, it equals the source', async () => {
    const h = await sources.harness('journal');
    const pipelineId = `endjrn_${targetKind}`;
    const side = await targetSideFor(targetKind, sources.client(), pipelineId);
    const [a, b] = [await h.createTable(`EA${targetKind[0]}`), await h.createTable(`EB${targetKind[0]}`)];
    const row = (id: number) => ({ id, name: `row ${id}`, amount: `${id}.50` });
    const ids = async (t: TableRef) =>
      (await side.rows(h.entity(t).target.table)).map((r) => h.normalize(r).id).sort((x, y) => x - y);
    const events: RunnerEvent[] = [];
    const runner = () => runnerOver(h, side, [a, b], events);
    await h.insert(a, [row(1)]);
    await h.insert(b, [row(1)]);
    await runner().runUntilCaughtUp();

    const admin = await sources.ibmi().connect({ ...SEED_ADMIN });
    try {
      const file = `${a.schema}/${a.table}`;
      // While the pipeline runs: a change, journaling ended, changes no journal holds, and B goes on.
      const r = runner();
      void r.start();
      try {
        await until('streaming', () => r.state === 'streaming');
        await h.insert(a, [row(2)]);
        await admin.command(`ENDJRNPF FILE(${file})`);
        await h.insert(a, [row(3)]);
        await h.insert(b, [row(2)]);
        await until('A stopped', () => events.some((e) => e.kind === 'table-stopped'));
        await until('B applied', async () => (await ids(b)).length === 2);
        expect(r.snapshots().find((t) => t.table === tableKey(a))?.status).toBe('stopped');
      } finally {
        await r.stop();
      }
      expect(r.failure).toBeNull();
      expect(events.find((e) => e.kind === 'table-stopped')).toMatchObject({
        table: tableKey(a),
        reason: expect.stringMatching(
          /journaling of .* ended \(ENDJRNPF.*STRJRNPF … IMAGES\(\*BOTH\)\), then copy it again/,
        ),
      });
      // The change journaled before the end arrived; the one after it waits for the copy.
      expect(await ids(a)).toEqual([1, 2]);

      // The way back: journaled again with both images, then copied again.
      await admin.command(`STRJRNPF FILE(${file}) JRN(${a.schema}/QSQJRN) IMAGES(*BOTH)`);
      const again = runner();
      expect(again.requestSnapshot(tableKey(a))).toBe(true);
      await again.runUntilCaughtUp();
      expect(again.failure).toBeNull();
      expect(await ids(a)).toEqual([1, 2, 3]);

      // Ended while the pipeline was stopped: found at the start, stopped alone, B read on.
      await admin.command(`ENDJRNPF FILE(${file})`);
      await h.insert(b, [row(3)]);
      events.length = 0;
      const restarted = runner();
      await restarted.runUntilCaughtUp();
      expect(restarted.failure).toBeNull();
      expect(events.find((e) => e.kind === 'table-stopped')).toMatchObject({
        table: tableKey(a),
        reason: expect.stringMatching(
          /is no longer journaled: .*STRJRNPF … IMAGES\(\*BOTH\)\), then copy it again/,
        ),
      });
      expect(await ids(b)).toEqual([1, 2, 3]);
    } finally {
      await admin.close();
    }
  });
});
