// One table's verify against a source and a target in memory: a row that differs is read again only
// after the pipeline has read past the moment it was seen, and reported only if it stays as it was.
import { describe, expect, it } from 'vitest';
import type { Row, SourceAgent } from '../../../../main/agents/source';
import type { TargetReadBack, TargetTable } from '../../../../main/agents/target';
import { TableVerifyJob, type VerifyStepContext } from '../../../../main/runner/verify/tableVerify';
import { verifyRequestSchema } from '../../../../shared/verify';

const table: TargetTable = {
  source: 'dbo.T',
  name: 't',
  columns: [
    { name: 'id', sourceType: 'int', nullable: false },
    { name: 'name', sourceType: 'nvarchar(20)', nullable: false },
  ],
  key: ['id'],
};

function world(source: Map<number, string>, target: Map<number, string>) {
  const rows = (m: Map<number, string>, keys: readonly Row[]) =>
    keys.flatMap((k) =>
      m.has(Number(k.id)) ? [{ id: Number(k.id), name: m.get(Number(k.id)) as string }] : [],
    );
  const agent = {
    countRows: async () => source.size,
    readChunk: async () => ({ rows: [...source].map(([id, name]) => ({ id, name })), next: null }),
    readRows: async (_t: unknown, keys: readonly Row[]) => rows(source, keys),
  } as unknown as SourceAgent;
  const readBack: TargetReadBack = {
    rows: async (_t, keys) => rows(target, keys),
    keys: async () => ({ keys: [...target.keys()].map((id) => ({ id })), next: null }),
    keptDigits: () => Infinity,
  };
  let clock = 1000;
  const ctx: VerifyStepContext = {
    source: agent,
    readBack,
    table,
    ref: { schema: 'dbo', table: 'T' },
    now: () => clock,
    caughtUpReadStartedAt: 0,
  };
  return { ctx, tick: (ms: number) => (clock += ms) };
}

const options = verifyRequestSchema.parse({});

describe('a table verify', () => {
  it('waits for the pipeline to read past a difference before reading it again; in flight, it clears', async () => {
    const source = new Map([
      [1, 'one'],
      [2, 'two, changed'],
    ]);
    const target = new Map([
      [1, 'one'],
      [2, 'two'],
    ]);
    const { ctx, tick } = world(source, target);
    const job = new TableVerifyJob('dbo.T', options);
    expect(await job.step(ctx)).toBe('worked'); // the source's chunk
    expect(await job.step(ctx)).toBe('worked'); // the target's keys
    expect(job.report(ctx.now()).pending).toBe(1);
    // The pipeline has not read past it yet: the row is not read again, nor reported.
    ctx.caughtUpReadStartedAt = ctx.now() - 1;
    expect(await job.step(ctx)).toBe('waiting');
    // The pipeline applies the change, having begun a read after the row was seen.
    target.set(2, 'two, changed');
    tick(10);
    ctx.caughtUpReadStartedAt = ctx.now();
    expect(await job.step(ctx)).toBe('worked');
    expect(await job.step(ctx)).toBe('done');
    expect(job.report(ctx.now())).toMatchObject({
      status: 'done',
      counts: { missing: 0, extra: 0, different: 0 },
    });
  });

  it('reports a difference that stays, a row missing and an extra one, with their keys and columns', async () => {
    const source = new Map([
      [1, 'one'],
      [2, 'two'],
      [3, 'three'],
    ]);
    const target = new Map([
      [1, 'uno'],
      [3, 'three'],
      [9, 'stray'],
    ]);
    const { ctx, tick } = world(source, target);
    const job = new TableVerifyJob('dbo.T', options);
    await job.step(ctx);
    await job.step(ctx);
    tick(10);
    ctx.caughtUpReadStartedAt = ctx.now();
    await job.step(ctx);
    expect(await job.step(ctx)).toBe('done');
    const report = job.report(ctx.now());
    expect(report.counts).toEqual({ missing: 1, extra: 1, different: 1 });
    expect(report.differences).toEqual(
      expect.arrayContaining([
        { kind: 'different', key: { id: '1' }, columns: ['name'] },
        { kind: 'missing', key: { id: '2' }, columns: [] },
        { kind: 'extra', key: { id: '9' }, columns: [] },
      ]),
    );
    expect(report).toMatchObject({ rowsCompared: 3, targetRows: 3, chunks: 1 });
  });

  it('keeps to its rows-per-second limit: the next chunk waits until the time that many rows take', async () => {
    const source = new Map(Array.from({ length: 50 }, (_, i): [number, string] => [i, `row ${i}`]));
    const { ctx, tick } = world(source, new Map(source));
    const job = new TableVerifyJob('dbo.T', verifyRequestSchema.parse({ rowsPerSecond: 100 }));
    expect(await job.step(ctx)).toBe('worked');
    // 50 rows at 100 a second: half a second before the target's keys are read.
    tick(400);
    expect(await job.step(ctx)).toBe('waiting');
    tick(100);
    expect(await job.step(ctx)).toBe('worked');
    expect(job.report(ctx.now())).toMatchObject({ rowsCompared: 50, rowsPerSecond: 100, targetRows: 50 });
  });

  it('cancelled, it stops where it is and keeps what it found', async () => {
    const { ctx } = world(new Map([[1, 'one']]), new Map());
    const job = new TableVerifyJob('dbo.T', options);
    await job.step(ctx);
    job.cancel(ctx.now());
    expect(await job.step(ctx)).toBe('done');
    expect(job.report(ctx.now())).toMatchObject({ status: 'cancelled', rowsCompared: 1, pending: 1 });
  });
});
