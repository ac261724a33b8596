// The runner's fault handling with stand-in sources and targets: a lost connection is retried with
// backoff and the pipeline goes on; a failure that cannot heal stops it with the reason; retries end.
import { describe, expect, it } from 'vitest';
import { AgentConnectionError } from '../../../main/agents/connectionError';
import type { Change, ChangeBatch, Checkpoint, SourceAgent } from '../../../main/agents/source';
import { PipelineRunner } from '../../../main/runner/pipelineRunner';
import { isTransient } from '../../../main/runner/failures';
import type { RunnerEvent } from '../../../main/runner/events';
import { classifySqlServerError } from '../../../main/agents/drivers/mssql/errors';
import { classifyIbmiError } from '../../../main/agents/journal/errors';
import { classifyPostgresError } from '../../../main/agents/postgresql/errors';
import { classifySqliteError } from '../../../main/agents/sqlite/target';

/** What the shipped agents say of an error, the first that knows it. */
const everyPlugin = (error: unknown) =>
  [classifySqlServerError, classifyIbmiError, classifyPostgresError, classifySqliteError]
    .map((classify) => classify(error))
    .find((v) => v !== undefined);
import type { Target } from '../../../main/agents/target';

const shape = {
  ref: { schema: 'dbo', table: 'T' },
  columns: [{ name: 'Id', sourceType: 'int', nullable: false }],
  key: ['Id'],
};

function source(readChanges: SourceAgent['readChanges']): SourceAgent {
  return {
    check: async () => [],
    describe: async () => [shape],
    countRows: async () => 0,
    snapshotStart: async () => '1',
    readRows: async () => [],
    readChunk: async () => ({ rows: [], next: null }),
    readChanges,
    loadCheckpoint: async () => ({}),
    saveCheckpoint: async () => undefined,
    backlog: async () => ({ rowsToRead: 0, versionsBehind: 0, perTable: [] }),
    close: async () => undefined,
  };
}

function memoryTarget(): Target & { applied: number } {
  let checkpoint: Checkpoint = { 'dbo.T': '1' };
  return {
    description: 'memory',
    applied: 0,
    prepare: async () => undefined,
    reconcile: async () => ({ added: [], done: [] }),
    loadCheckpoint: async () => checkpoint,
    clear: async (_t, next) => void (checkpoint = { ...checkpoint, ...next }),
    async apply(changes, next) {
      this.applied += changes.length;
      checkpoint = { ...checkpoint, ...next };
    },
    close: async () => undefined,
  };
}

const change = {
  table: 'dbo.T',
  op: 'insert' as const,
  key: { Id: 1 },
  row: { Id: 1 },
  changedColumns: null,
  position: '2',
};
const retry = { firstDelayMs: 1, maxDelayMs: 4, maxAttempts: 3 };
const entities = [{ source: shape.ref, target: { table: 'T' } }];

describe('PipelineRunner faults', () => {
  it('retries a lost connection with growing delays, then goes on', async () => {
    let calls = 0;
    const target = memoryTarget();
    const events: RunnerEvent[] = [];
    const runner = new PipelineRunner({
      openSource: async () =>
        source(async () => {
          calls++;
          if (calls <= 2) throw Object.assign(new Error('read ECONNRESET'), { code: 'ESOCKET' });
          return calls === 3
            ? { changes: [change], checkpoint: { 'dbo.T': '2' }, resnapshot: [] }
            : { changes: [], checkpoint: { 'dbo.T': '2' }, resnapshot: [] };
        }),
      openTarget: async () => target,
      entities,
      onEvent: (e) => events.push(e),
      retry,
    });
    await runner.runUntilCaughtUp();
    expect(runner.state).toBe('stopped');
    expect(target.applied).toBe(1);
    expect(events.filter((e) => e.kind === 'retrying')).toEqual([
      { kind: 'retrying', attempt: 1, delayMs: 1, reason: 'read ECONNRESET' },
      { kind: 'retrying', attempt: 2, delayMs: 2, reason: 'read ECONNRESET' },
    ]);
  });

  it('waits through its clock: the real backoff (500 ms doubling to 30 s) and the lag, with no timer', async () => {
    let calls = 0;
    const waits: number[] = [];
    const clock = {
      now: () => Date.UTC(2026, 0, 1, 12, 0, 5),
      sleep: async (ms: number) => void waits.push(ms),
    };
    const events: RunnerEvent[] = [];
    const runner = new PipelineRunner({
      openSource: async () =>
        source(async () => {
          calls++;
          if (calls <= 8) throw Object.assign(new Error('read ECONNRESET'), { code: 'ESOCKET' });
          return {
            changes: calls === 9 ? [change] : [],
            checkpoint: { 'dbo.T': '2' },
            resnapshot: [],
            newestCommitTime: new Date(Date.UTC(2026, 0, 1, 12, 0, 2)),
          };
        }),
      openTarget: async () => memoryTarget(),
      entities,
      onEvent: (e) => events.push(e),
      clock,
    });
    await runner.runUntilCaughtUp();
    expect(waits).toEqual([500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
    expect(events.find((e) => e.kind === 'batch-applied')).toMatchObject({ lagMs: 3000 });
  });

  it('stops at once on a failure no retry heals, with its reason', async () => {
    const runner = new PipelineRunner({
      openSource: async () =>
        source(async () => {
          throw Object.assign(new Error("The SELECT permission was denied on the object 'T'."), {
            number: 229,
          });
        }),
      openTarget: async () => memoryTarget(),
      entities,
      retry,
    });
    await runner.runUntilCaughtUp();
    expect(runner.state).toBe('failed');
    expect(runner.failure).toBe("The SELECT permission was denied on the object 'T'.");
  });

  it.each([
    ['unreachable', 'retried', 3],
    ['login', 'not retried', 0],
    ['certificate-file', 'not retried', 0],
  ] as const)('a source that cannot be opened (%s) is %s', async (kind, _label, retries) => {
    const events: RunnerEvent[] = [];
    const runner = new PipelineRunner({
      openSource: async () => {
        throw new AgentConnectionError(`${kind} failure`, 'remedy', kind);
      },
      openTarget: async () => memoryTarget(),
      entities,
      onEvent: (e) => events.push(e),
      retry,
    });
    await runner.runUntilCaughtUp();
    expect(runner.failure).toBe(`${kind} failure`);
    expect(events.filter((e) => e.kind === 'retrying')).toHaveLength(retries);
  });

  it.each([
    ['read ECONNRESET', true, { code: 'ESOCKET' }],
    ['Requests can only be made in the LoggedIn state, not the Final state', true, { code: 'EINVALIDSTATE' }],
    ['terminating connection due to administrator command', true, { code: '57P01' }],
    [
      'CWBCO1047: The IBM i server application disconnected the connection.',
      true,
      { messageId: 'CWBCO1047' },
    ],
    ["The SELECT permission was denied on the object 'T'.", false, { number: 229 }],
    [
      'Requests can only be made in the LoggedIn state, not the SentClientRequest state',
      false,
      { code: 'EINVALIDSTATE' },
    ],
    ['Transaction (Process ID 53) was deadlocked', true, { number: 1205 }],
    ['SQL0913: Row or object ORDERS in SHOP type *FILE in use.', true, { messageId: 'SQL0913' }],
    ['CPF9802: Not authorized to object ORDERS in SHOP.', false, { messageId: 'CPF9802' }],
    ['deadlock detected', true, { code: '40P01' }],
    ['permission denied for table orders', false, { code: '42501' }],
    ['Connection terminated unexpectedly', true, {}],
    ['database is locked', true, { code: 'SQLITE_BUSY' }],
  ] as const)('"%s" is transient: %s', (message, transient, fields) => {
    expect(isTransient(Object.assign(new Error(message), fields), everyPlugin)).toBe(transient);
  });

  it("leaves a driver's errors to its plugin: without one, only Node's network failures pass", () => {
    const cwbco = Object.assign(new Error('CWBCO1047: The IBM i server application disconnected.'), {
      messageId: 'CWBCO1047',
    });
    expect(isTransient(cwbco)).toBe(false);
    expect(isTransient(cwbco, everyPlugin)).toBe(true);
    expect(isTransient(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe(true);
  });

  it('gives up after the last retry and keeps the reason', async () => {
    const events: RunnerEvent[] = [];
    const runner = new PipelineRunner({
      // A SQL Server source: its lock time-out (1222) is one a retry may heal.
      openSource: async () => ({
        ...source(async () => {
          throw Object.assign(new Error('Lock request time out period exceeded.'), { number: 1222 });
        }),
        classifyError: classifySqlServerError,
      }),
      openTarget: async () => memoryTarget(),
      entities,
      onEvent: (e) => events.push(e),
      retry,
    });
    await runner.runUntilCaughtUp();
    expect(runner.state).toBe('failed');
    expect(events.filter((e) => e.kind === 'retrying')).toHaveLength(3);
    expect(events.at(-1)).toEqual({ kind: 'failed', reason: 'Lock request time out period exceeded.' });
  });
});

describe('PipelineRunner applies only what changed', () => {
  it('leaves out an update whose before and after images differ only in columns it does not replicate', async () => {
    const wide = {
      ...shape,
      columns: [
        { name: 'Id', sourceType: 'int', nullable: false },
        { name: 'Amount', sourceType: 'decimal(9,2)', nullable: false },
        { name: 'Note', sourceType: 'varchar(20)', nullable: true },
      ],
    };
    const update = (changedColumns: string[], position: string) => ({
      table: 'dbo.T',
      op: 'update' as const,
      key: { Id: 1 },
      row: { Id: 1, Amount: '1.00', Note: 'x' },
      changedColumns,
      position,
    });
    const target = memoryTarget();
    const applied: string[] = [];
    const inner = target.apply.bind(target);
    target.apply = async (changes, next) => {
      applied.push(...changes.map((c) => c.position));
      await inner(changes, next);
    };
    let reads = 0;
    const runner = new PipelineRunner({
      openSource: async () => ({
        ...source(async () =>
          reads++ === 0
            ? {
                changes: [update(['Note'], '2'), update([], '3'), update(['Amount', 'Note'], '4')],
                checkpoint: { 'dbo.T': '4' },
                resnapshot: [],
              }
            : { changes: [], checkpoint: { 'dbo.T': '4' }, resnapshot: [] },
        ),
        describe: async () => [wide],
      }),
      openTarget: async () => target,
      entities: [{ ...entities[0], source: shape.ref, target: { table: 'T' }, columns: ['Amount'] }],
      retry,
    });
    await runner.runUntilCaughtUp();
    expect(applied).toEqual(['4']);
    expect(await target.loadCheckpoint()).toEqual({ 'dbo.T': '4' });
  });
});

describe('PipelineRunner and the source checkpoint', () => {
  it('has saved the source checkpoint by the time it says a batch was applied', async () => {
    // A backlog read the moment "Applied" shows counts from the source's checkpoint: it must be there.
    const saved: Checkpoint[] = [];
    const seenWhenApplied: (Checkpoint | undefined)[] = [];
    let reads = 0;
    const runner = new PipelineRunner({
      openSource: async () => ({
        ...source(async () =>
          reads++ === 0
            ? { changes: [{ ...change, position: '2' }], checkpoint: { 'dbo.T': '2' }, resnapshot: [] }
            : { changes: [], checkpoint: { 'dbo.T': '2' }, resnapshot: [] },
        ),
        saveCheckpoint: async (c: Checkpoint) => void saved.push({ ...c }),
      }),
      openTarget: async () => memoryTarget(),
      entities,
      retry,
      onEvent: (e) => {
        if (e.kind === 'batch-applied') seenWhenApplied.push(saved.at(-1));
      },
    });
    await runner.runUntilCaughtUp();
    expect(seenWhenApplied).toEqual([{ 'dbo.T': '2' }]);
  });
});

describe('PipelineRunner and a target without tables', () => {
  it('copies and streams into a broker with no tables, each change as the source told it', async () => {
    // A broker keeps no tables: no clear, no reconcile, no read-back; only its checkpoint and what it was sent.
    const sent: Change[] = [];
    let checkpoint: Checkpoint = {};
    const broker: Target = {
      description: 'a broker',
      prepare: async () => undefined,
      loadCheckpoint: async () => checkpoint,
      async apply(changes, next) {
        sent.push(...changes);
        checkpoint = { ...checkpoint, ...next };
      },
      close: async () => undefined,
    };
    const committed = new Date('2026-11-27T10:00:00Z');
    const update: Change = {
      ...change,
      op: 'update',
      row: { Id: 1, Name: 'new' },
      before: { Id: 1, Name: 'old' },
      changedColumns: null,
      position: '3',
      commitTime: committed,
      transactionId: 'tx-7',
    };
    let reads = 0;
    const wide = {
      ...shape,
      columns: [...shape.columns, { name: 'Name', sourceType: 'nvarchar(10)', nullable: true }],
    };
    const runner = new PipelineRunner({
      openSource: async () => ({
        // No checkpoint yet: the source asks for a copy; then the change after the copy's start.
        ...source(async (_tables, from): Promise<ChangeBatch> =>
          from['dbo.T'] === undefined
            ? { changes: [], checkpoint: {}, resnapshot: [{ table: 'dbo.T', reason: 'a new table' }] }
            : reads++ === 0
              ? { changes: [update], checkpoint: { 'dbo.T': '3' }, resnapshot: [] }
              : { changes: [], checkpoint: { 'dbo.T': '3' }, resnapshot: [] },
        ),
        describe: async () => [wide],
        readChunk: async () => ({ rows: [{ Id: 1, Name: 'old' }], next: null }),
      }),
      openTarget: async () => broker,
      entities,
      retry,
    });
    await runner.runUntilCaughtUp();
    expect(sent.map((c) => [c.op, c.copied ?? false, c.row])).toEqual([
      ['insert', true, { Id: 1, Name: 'old' }],
      ['update', false, { Id: 1, Name: 'new' }],
    ]);
    expect(sent[1]).toMatchObject({
      before: { Id: 1, Name: 'old' },
      commitTime: committed,
      transactionId: 'tx-7',
      position: '3',
    });
    expect(checkpoint['dbo.T']).toBe('3');
  });
});

describe('PipelineRunner reads ahead', () => {
  /** A stream of `total` inserts in batches of 10, its log of reads and applies in the order they happened. */
  function stream(total: number, failFirstReadFrom?: number) {
    const log: string[] = [];
    let failed = false;
    const src = source(async (_tables, checkpoint) => {
      const from = Number(checkpoint['dbo.T'] ?? 0);
      log.push(`read ${from}`);
      await new Promise((resolve) => setTimeout(resolve, 1));
      if (from === failFirstReadFrom && !failed) {
        failed = true;
        throw new Error('read ECONNRESET');
      }
      const to = Math.min(total, from + 10);
      const changes = Array.from({ length: to - from }, (_, i) => ({
        ...change,
        key: { Id: from + i + 1 },
        row: { Id: from + i + 1 },
        position: String(from + i + 1),
      }));
      return { changes, checkpoint: { 'dbo.T': String(to) }, resnapshot: [], caughtUp: to >= total };
    });
    let checkpoint: Checkpoint = { 'dbo.T': '0' };
    const applied: number[] = [];
    const target: Target = {
      ...memoryTarget(),
      loadCheckpoint: async () => checkpoint,
      async apply(changes, next) {
        log.push(`apply ${next['dbo.T']}`);
        // The target takes a while: the next read has time to begin.
        await new Promise((resolve) => setTimeout(resolve, 5));
        for (const c of changes) applied.push(Number(c.key.Id));
        checkpoint = { ...checkpoint, ...next };
        log.push(`applied ${next['dbo.T']}`);
      },
    };
    return { src, target, log, applied };
  }

  it('reads batch n+1 while batch n is applied, and commits the batches in order, each once', async () => {
    const { src, target, log, applied } = stream(50);
    const runner = new PipelineRunner({
      openSource: async () => src,
      openTarget: async () => target,
      entities,
    });
    await runner.runUntilCaughtUp();
    expect(applied).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(log.filter((l) => l.startsWith('applied'))).toEqual(
      ['10', '20', '30', '40', '50'].map((n) => `applied ${n}`),
    );
    // The read from 10 begins before batch 10 is committed.
    expect(log.indexOf('read 10')).toBeLessThan(log.indexOf('applied 10'));
    // Each batch read once; none ahead of the batch that reached the stream's end: the stream is
    // read again from 50 only once that batch is committed.
    expect(log.filter((l) => l.startsWith('read'))).toEqual(
      ['0', '10', '20', '30', '40', '50'].map((n) => `read ${n}`),
    );
    expect(log.indexOf('read 50')).toBeGreaterThan(log.indexOf('applied 50'));
  });

  it('reads a batch again when its read ahead failed, without a retry or a lost change', async () => {
    const { src, target, applied } = stream(30, 10);
    const events: RunnerEvent[] = [];
    const runner = new PipelineRunner({
      openSource: async () => src,
      openTarget: async () => target,
      entities,
      onEvent: (e) => events.push(e),
      retry,
    });
    await runner.runUntilCaughtUp();
    expect(applied).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(events.filter((e) => e.kind === 'retrying' || e.kind === 'failed')).toEqual([]);
  });
});
