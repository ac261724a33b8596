// The contract every target without tables passes (a stream, a log): it has no table to read back, so
// the suite reads what it published. A checkpoint is recovered from the target itself by a target
// opened afresh (as after a restart), its values byte for byte; a batch whose checkpoint a crash cut
// off, applied again, is in the stream once; and a restart sends nothing again.
import { describe, expect, it } from 'vitest';
import type { Change, Checkpoint } from '../../../../main/agents/source';
import type { Target, TargetTable } from '../../../../main/agents/target';

export interface StreamTargetHarness {
  /** The suite's table: key `id`, a text `name`. */
  table: TargetTable;
  /** A target on the suite's stream, opened afresh each time (as the runner opens one after a restart). */
  open(): Promise<Target>;
  /** A target whose next checkpoint store fails after its changes went out (a crash between the two). */
  openCrashingOnce(): Promise<Target>;
  /** The change events published for the table, in order: each one's operation and key. */
  published(): Promise<{ op: 'c' | 'u' | 'd' | 'r'; id: number }[]>;
}

const change = (table: TargetTable, op: Change['op'], id: number, position: string): Change => ({
  table: table.source,
  op,
  key: { id },
  row: op === 'delete' ? null : { id, name: `row ${id} at ${position}` },
  changedColumns: null,
  position,
});

/** A target opened as the runner opens one: prepared bare, its checkpoint read, then its tables prepared. */
async function opened(h: StreamTargetHarness, crashing?: 'crashing once'): Promise<Target> {
  const target = crashing ? await h.openCrashingOnce() : await h.open();
  await target.prepare([]);
  await target.loadCheckpoint();
  await target.prepare([h.table]);
  return target;
}

export function streamTargetContract(name: string, makeHarness: () => Promise<StreamTargetHarness>): void {
  describe(`${name} as a target without tables`, () => {
    it('keeps its checkpoint itself: a target opened afresh reads it back, values byte for byte', async () => {
      const h = await makeHarness();
      const first = await opened(h);
      expect(await first.loadCheckpoint()).toEqual({});
      // Opaque runner text, with characters a careless store would change.
      const checkpoint: Checkpoint = { [h.table.source]: '{"v":1,"at":"0x00FF…","note":"Ä \\" é"}' };
      await first.apply([change(h.table, 'insert', 1, 'p1')], checkpoint);
      await first.close();
      const again = await opened(h);
      expect(await again.loadCheckpoint()).toEqual(checkpoint);
      // A checkpoint stored without changes (a quiet table moved on) is kept the same way.
      const quiet = { [h.table.source]: 'p2 opaque' };
      await again.apply([], quiet);
      await again.close();
      const third = await opened(h);
      expect(await third.loadCheckpoint()).toEqual(quiet);
      await third.close();
      expect(await h.published()).toEqual([{ op: 'c', id: 1 }]);
    });

    it('publishes a batch once when it is applied again after a crash cut off its checkpoint', async () => {
      const h = await makeHarness();
      const crashing = await opened(h, 'crashing once');
      const from = await crashing.loadCheckpoint();
      const batch = [change(h.table, 'insert', 1, 'p1'), change(h.table, 'update', 1, 'p2')];
      const after = { ...from, [h.table.source]: 'p2' };
      await expect(crashing.apply(batch, after)).rejects.toThrow();
      await crashing.close();
      // The runner replays from the checkpoint it last committed: the same batch, on a new target.
      const replaying = await opened(h);
      expect(await replaying.loadCheckpoint()).toEqual(from);
      await replaying.apply(batch, after);
      expect(await replaying.loadCheckpoint()).toEqual(after);
      await replaying.apply([change(h.table, 'delete', 1, 'p3')], { [h.table.source]: 'p3' });
      await replaying.close();
      expect(await h.published()).toEqual([
        { op: 'c', id: 1 },
        { op: 'u', id: 1 },
        { op: 'd', id: 1 },
      ]);
      // A restart at the committed position sends nothing again.
      const restarted = await opened(h);
      expect(await restarted.loadCheckpoint()).toEqual({ [h.table.source]: 'p3' });
      await restarted.close();
      expect(await h.published()).toHaveLength(3);
    });
  });
}
