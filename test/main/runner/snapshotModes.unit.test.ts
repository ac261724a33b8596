// The snapshot modes and copy requests of the runner, on a stand-in source whose position can be lost
// on demand and a target in memory: `initial` copies first, `never` and `when-needed` start from the
// current position, a lost position copies again (`when-needed`) or stops the pipeline (`never`); a
// copy's state survives in the checkpoint row; a request copies again, a cancel stops a copy.
import { describe, expect, it } from 'vitest';
import type { SnapshotMode } from '../../../shared/agents/common';
import type { Change, ChangeBatch, Checkpoint, Row, SourceAgent } from '../../../main/agents/source';
import type { Target } from '../../../main/agents/target';
import { parseStored } from '../../../main/runner/copies';
import { PipelineRunner } from '../../../main/runner/pipelineRunner';
import type { RunnerEvent } from '../../../main/runner/events';

const shape = {
  ref: { schema: 'dbo', table: 'T' },
  columns: [{ name: 'Id', sourceType: 'int', nullable: false }],
  key: ['Id'],
};
const entities = [{ source: shape.ref, target: { table: 'T' } }];

/**
 * A source of `rows` rows read in chunks; `lose()` makes its next read report the position lost.
 * `wide` rows carry a text column `Doc` of that many characters, declared as `docType`.
 */
function standIn(rows: number, wide = 0, docType = 'nvarchar(max)') {
  let lost = false;
  const reads: (string | null)[] = [];
  const limits: number[] = [];
  const agent: SourceAgent = {
    check: async () => [],
    describe: async () => [
      wide
        ? { ...shape, columns: [...shape.columns, { name: 'Doc', sourceType: docType, nullable: false }] }
        : shape,
    ],
    countRows: async () => rows,
    snapshotStart: async () => '100',
    readRows: async () => [],
    readChunk: async (_t, cursor, limit) => {
      reads.push(cursor);
      limits.push(limit);
      const from = cursor === null ? 0 : Number(cursor);
      const to = Math.min(rows, from + limit);
      const text = 'x'.repeat(wide);
      const chunk: Row[] = Array.from({ length: to - from }, (_, i) => ({
        Id: from + i,
        ...(wide ? { Doc: text } : {}),
      }));
      return { rows: chunk, next: to < rows ? String(to) : null };
    },
    readChanges: async (_tables, checkpoint): Promise<ChangeBatch> => {
      const at = checkpoint['dbo.T'];
      if (at === undefined)
        return { changes: [], checkpoint: {}, resnapshot: [{ table: 'dbo.T', reason: 'first run' }] };
      if (lost) {
        lost = false;
        return {
          changes: [],
          checkpoint: {},
          resnapshot: [{ table: 'dbo.T', reason: `Changes after ${at} were removed by retention cleanup.` }],
        };
      }
      return { changes: [], checkpoint: { 'dbo.T': at }, resnapshot: [] };
    },
    loadCheckpoint: async () => ({}),
    saveCheckpoint: async () => undefined,
    backlog: async () => ({ rowsToRead: 0, versionsBehind: 0, perTable: [] }),
    close: async () => undefined,
  };
  return { agent, reads, limits, lose: () => (lost = true) };
}

function memory(): Target & { checkpoint: Checkpoint; rows: Map<number, Row> } {
  return {
    description: 'memory',
    checkpoint: {},
    rows: new Map(),
    prepare: async () => undefined,
    reconcile: async () => ({ added: [], done: [] }),
    async loadCheckpoint() {
      return { ...this.checkpoint };
    },
    async clear(_t, next) {
      this.rows.clear();
      Object.assign(this.checkpoint, next);
    },
    async apply(changes: readonly Change[], next) {
      for (const c of changes)
        if (c.row) this.rows.set(Number(c.key.Id), c.row);
        else this.rows.delete(Number(c.key.Id));
      Object.assign(this.checkpoint, next);
    },
    close: async () => undefined,
  };
}

function run(mode: SnapshotMode, source: ReturnType<typeof standIn>, target: ReturnType<typeof memory>) {
  const events: RunnerEvent[] = [];
  const runner = new PipelineRunner({
    openSource: async () => source.agent,
    openTarget: async () => target,
    entities,
    snapshotMode: mode,
    snapshotChunkRows: 10,
    // A chunk per step: the reads and commits these tests count.
    copyStepMs: 0,
    onEvent: (e) => events.push(e),
  });
  return { runner, events, kinds: () => events.map((e) => e.kind) };
}

describe('snapshot modes', () => {
  it('initial: copies the table first, chunk by chunk, then streams from the position read before it', async () => {
    const source = standIn(25);
    const target = memory();
    const { runner, kinds } = run('initial', source, target);
    await runner.runUntilCaughtUp();
    expect(source.reads).toEqual([null, '10', '20']);
    expect(target.rows.size).toBe(25);
    expect(target.checkpoint).toEqual({ 'dbo.T': '100' });
    expect(kinds().filter((k) => k.startsWith('snapshot-') && k !== 'snapshot-chunk-read')).toEqual([
      'snapshot-started',
      'snapshot-progress',
      'snapshot-progress',
      'snapshot-progress',
      'snapshot-done',
    ]);
  });

  it('never: starts from the current position without a copy, and stops when that position is lost', async () => {
    const source = standIn(25);
    const target = memory();
    const first = run('never', source, target);
    await first.runner.runUntilCaughtUp();
    expect(source.reads).toEqual([]);
    expect(target.rows.size).toBe(0);
    expect(target.checkpoint).toEqual({ 'dbo.T': '100' });
    expect(first.events.find((e) => e.kind === 'snapshot-skipped')).toMatchObject({
      table: 'dbo.T',
      reason: expect.stringContaining('"never"'),
    });
    source.lose();
    const second = run('never', source, target);
    await second.runner.runUntilCaughtUp();
    expect(second.runner.state).toBe('failed');
    expect(second.runner.failure).toContain('Changes after 100 were removed by retention cleanup.');
    expect(second.runner.failure).toContain('"when-needed"');
    expect(source.reads).toEqual([]);
  });

  it('when-needed: no first copy, but a lost position copies the table again with the reason', async () => {
    const source = standIn(15);
    const target = memory();
    await run('when-needed', source, target).runner.runUntilCaughtUp();
    expect(source.reads).toEqual([]);
    source.lose();
    const again = run('when-needed', source, target);
    await again.runner.runUntilCaughtUp();
    expect(again.events.find((e) => e.kind === 'snapshot-started')).toMatchObject({
      reason: 'Changes after 100 were removed by retention cleanup.',
    });
    expect(source.reads).toEqual([null, '10']);
    expect(target.rows.size).toBe(15);
  });
});

describe('a copy in progress', () => {
  it('keeps its cursor in the checkpoint row and resumes after it in a new runner', async () => {
    const source = standIn(40);
    const target = memory();
    const { runner } = run('initial', source, target);
    // Stops after the second chunk's commit: the state at the target is what a crash would leave.
    let commits = 0;
    const stopping = new PipelineRunner({
      openSource: async () => source.agent,
      openTarget: async () => target,
      entities,
      snapshotChunkRows: 10,
      // A chunk per step: the reads and commits these tests count.
      copyStepMs: 0,
      onEvent: (e) => {
        if (e.kind === 'snapshot-progress' && ++commits === 2) void stopping.stop();
      },
    });
    await stopping.start();
    const stored = parseStored(target.checkpoint);
    expect(stored.positions).toEqual({ 'dbo.T': '100' });
    expect(stored.copies.get('dbo.T')).toMatchObject({ cursor: '20', rowsDone: 20, rowsTotal: 40 });
    await runner.runUntilCaughtUp();
    expect(source.reads).toEqual([null, '10', '20', '30']);
    expect(target.rows.size).toBe(40);
    expect(parseStored(target.checkpoint).copies.size).toBe(0);
  });

  it('is copied again on request, and a cancel stops it with its rows so far', async () => {
    const source = standIn(30);
    const target = memory();
    const events: RunnerEvent[] = [];
    const runner = new PipelineRunner({
      openSource: async () => source.agent,
      openTarget: async () => target,
      entities,
      snapshotChunkRows: 10,
      // A chunk per step: the reads and commits these tests count.
      copyStepMs: 0,
      idleMs: 5,
      onEvent: (e) => {
        events.push(e);
        // The second copy is cancelled after its first chunk.
        if (
          e.kind === 'snapshot-progress' &&
          events.filter((x) => x.kind === 'snapshot-started').length === 2
        )
          runner.cancelSnapshot('dbo.T');
        if (e.kind === 'snapshot-cancelled') void runner.stop();
      },
    });
    const loop = runner.start();
    while (!events.some((e) => e.kind === 'snapshot-done')) await new Promise((r) => setTimeout(r, 5));
    expect(runner.requestSnapshot('dbo.Other')).toBe(false);
    expect(runner.requestSnapshot('dbo.T')).toBe(true);
    await loop;
    expect(events.filter((e) => e.kind === 'snapshot-started').map((e) => 'reason' in e && e.reason)).toEqual(
      ['first run', 'asked for by hand'],
    );
    expect(events.find((e) => e.kind === 'snapshot-cancelled')).toMatchObject({
      rowsDone: 10,
      rowsTotal: 30,
    });
    expect(runner.snapshots()).toEqual([
      expect.objectContaining({ table: 'dbo.T', status: 'cancelled', rowsDone: 10, rowsTotal: 30 }),
    ]);
    // The cancelled copy is not taken up again by a new runner; its table streams on.
    const after = run('initial', source, target);
    await after.runner.runUntilCaughtUp();
    expect(after.kinds()).not.toContain('snapshot-chunk-read');
    expect(target.rows.size).toBe(10);
  });

  it('reads fewer rows per chunk when the rows are wide, so memory stays bounded by bytes as well', async () => {
    // Rows of a million characters (two megabytes in memory): 32 MiB a chunk is 15 rows, not 10,000.
    const source = standIn(300, 2 ** 20);
    const target = memory();
    await new PipelineRunner({
      openSource: async () => source.agent,
      openTarget: async () => target,
      entities,
      snapshotChunkRows: 10_000,
      copyStepMs: 0,
    }).runUntilCaughtUp();
    // nvarchar(max) bounds nothing: a first chunk of 100 rows measures them.
    expect(source.limits[0]).toBe(100);
    expect(source.limits.slice(1)).toEqual(Array<number>(14).fill(15));
    expect(target.rows.size).toBe(300);
  });

  it('sizes a first chunk by the declared types: narrow rows take the setting, wide ones what fits', async () => {
    const copy = async (docType: string, wide: number) => {
      const source = standIn(30_000, wide, docType);
      await new PipelineRunner({
        openSource: async () => source.agent,
        openTarget: async () => memory(),
        entities,
        snapshotChunkRows: 10_000,
        copyStepMs: 0,
      }).runUntilCaughtUp();
      return source.limits;
    };
    // nvarchar(50): at most 196 bytes a row, so the whole setting from the first chunk on.
    expect(await copy('nvarchar(50)', 50)).toEqual([10_000, 10_000, 10_000]);
    // nvarchar(4000) declared, 1,000 characters held: the first chunk fits the widest rows the type
    // allows (32 MiB / 8,096 bytes = 4,144), the next ones the rows' measured size.
    const limits = await copy('nvarchar(4000)', 1000);
    expect(limits[0]).toBe(4144);
    expect(limits[1]).toBe(10_000);
  });
});
