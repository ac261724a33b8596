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

/**
 * A source read in chunks of `chunk` rows in the order `order` gives (key order, or another as a file's
 * record numbers give), and a target that reads key ranges and pages of keys, counting its reads.
 */
function chunkedWorld(
  source: Map<number, string>,
  target: Map<number, string>,
  chunk: number,
  order: (keys: number[]) => number[] = (keys) => keys.sort((a, b) => a - b),
) {
  const base = world(source, target);
  const sourceKeys = order([...source.keys()]);
  const reads = { ranges: 0, lists: 0, keyPages: 0 };
  base.ctx.source.readChunk = async (_t, cursor) => {
    const from = Number(cursor ?? 0);
    const ids = sourceKeys.slice(from, from + chunk);
    const next = from + chunk < sourceKeys.length ? String(from + chunk) : null;
    return { rows: ids.map((id) => ({ id, name: source.get(id) as string })), next };
  };
  const sorted = () => [...target.keys()].sort((a, b) => a - b);
  const rows = base.ctx.readBack.rows;
  base.ctx.readBack = {
    ...base.ctx.readBack,
    rows: async (t, keys) => {
      reads.lists++;
      return rows(t, keys);
    },
    between: async (_t, low, high) => {
      reads.ranges++;
      return sorted()
        .filter((id) => BigInt(id) >= low && BigInt(id) <= high)
        .map((id) => ({ id, name: target.get(id) as string }));
    },
    keys: async (_t, cursor, limit) => {
      reads.keyPages++;
      const after = cursor === null ? -Infinity : Number(JSON.parse(cursor)[0]);
      const page = sorted()
        .filter((id) => id > after)
        .slice(0, limit);
      const last = page.at(-1);
      return {
        keys: page.map((id) => ({ id })),
        next: page.length >= limit && last !== undefined ? JSON.stringify([last]) : null,
      };
    },
  };
  return { ...base, reads };
}

/** Steps a job through to its end, the pipeline always past what it saw. */
async function verified(job: TableVerifyJob, w: ReturnType<typeof world>) {
  for (let i = 0; i < 1000; i++) {
    w.tick(10);
    w.ctx.caughtUpReadStartedAt = w.ctx.now();
    if ((await job.step(w.ctx)) === 'done') return job.report(w.ctx.now());
  }
  throw new Error('the verify did not end');
}

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

  it('finds extras below, between, within and past key-ordered chunks from their ranges alone', async () => {
    // Source keys 1-100 but 5 and 41-47 (a gap between two chunks of 10), one row different.
    const source = new Map<number, string>();
    for (let id = 1; id <= 100; id++) if (id !== 5 && (id < 41 || id > 47)) source.set(id, `row ${id}`);
    const target = new Map(source);
    target.set(20, 'changed');
    target.delete(60);
    // Extras: below the first key, within a chunk's range, in the gap, past the last key.
    for (const id of [-3, 0, 5, 44, 101, 5000]) target.set(id, `stray ${id}`);
    const w = chunkedWorld(source, target, 10);
    const report = await verified(
      new TableVerifyJob('dbo.T', verifyRequestSchema.parse({ chunkRows: 10 })),
      w,
    );
    expect(report.counts).toEqual({ missing: 1, extra: 6, different: 1 });
    expect(report.differences.filter((d) => d.kind === 'extra').map((d) => d.key.id)).toEqual(
      expect.arrayContaining(['-3', '0', '5', '44', '101', '5000']),
    );
    expect(report).toMatchObject({ rowsCompared: 92, targetRows: 97 });
    // No read of every target key: the chunks' ranges, then the keys below and past them.
    expect(w.reads.lists).toBe(1); // the re-read of the differences, not the chunks
    expect(w.reads.keyPages).toBeLessThanOrEqual(3);
  });

  it('reads key ranges of 16-digit keys as of small ones, and finds the same', async () => {
    const base = 10 ** 15;
    const source = new Map<number, string>();
    for (let i = 1; i <= 100; i++) if (i !== 5) source.set(base + i, `row ${i}`);
    const target = new Map(source);
    target.set(base + 20, 'changed');
    for (const id of [base, base + 5, base + 101]) target.set(id, 'stray');
    const w = chunkedWorld(source, target, 10);
    const report = await verified(
      new TableVerifyJob('dbo.T', verifyRequestSchema.parse({ chunkRows: 10 })),
      w,
    );
    expect(report.counts).toEqual({ missing: 0, extra: 3, different: 1 });
    expect(report.differences.filter((d) => d.kind === 'extra').map((d) => d.key.id)).toEqual(
      expect.arrayContaining([String(base), String(base + 5), String(base + 101)]),
    );
    expect(w.reads.ranges).toBe(10);
    expect(w.reads.keyPages).toBeLessThanOrEqual(3);
  });

  it('reads every target key when the chunks are not in key order, and finds the same', async () => {
    const source = new Map<number, string>();
    for (let id = 1; id <= 100; id++) if (id !== 5) source.set(id, `row ${id}`);
    const target = new Map(source);
    for (const id of [0, 5, 101]) target.set(id, `stray ${id}`);
    // Chunks of keys in a record order that is not the key order: a later chunk holds lower keys.
    const w = chunkedWorld(source, target, 10, (keys) => [
      ...keys.filter((k) => k > 50),
      ...keys.filter((k) => k <= 50),
    ]);
    const report = await verified(
      new TableVerifyJob('dbo.T', verifyRequestSchema.parse({ chunkRows: 10 })),
      w,
    );
    expect(report.counts).toEqual({ missing: 0, extra: 3, different: 0 });
    expect(report).toMatchObject({ rowsCompared: 99, targetRows: 102 });
    // The target's keys read through, page by page.
    expect(w.reads.keyPages).toBeGreaterThanOrEqual(10);
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
