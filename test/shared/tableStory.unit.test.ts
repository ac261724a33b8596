// A table's story holds its own events only, newest first, in the part each belongs to.
import { describe, expect, it } from 'vitest';
import { tableStory } from '../../shared/tableStory';
import type { VerifyAnswer, VerifyReport } from '../../shared/verify';

let id = 0;
const event = (kind: string, data: Record<string, unknown>) => ({
  id: ++id,
  at: new Date(Date.UTC(2026, 10, 27, 6, 0, id)).toISOString(),
  kind,
  data,
});

const report = (table: string, different: number, kind: 'verify' | 'repair' = 'verify'): VerifyReport => ({
  id: `r${++id}`,
  kind,
  status: 'done',
  options: { chunkRows: 1000, rowsPerSecond: null },
  requestedAt: '2026-11-27T06:10:00.000Z',
  finishedAt: '2026-11-27T06:11:00.000Z',
  repaired: {},
  tables: [
    {
      table,
      status: 'done',
      rowsCompared: 10,
      chunks: 1,
      rowsTotal: 10,
      targetRows: 10,
      counts: { missing: 0, extra: 0, different },
      differences: [],
      pending: 0,
      rowsPerSecond: null,
      secondsLeft: null,
      startedAt: null,
      finishedAt: '2026-11-27T06:11:00.000Z',
      reason: null,
    },
  ],
});

describe("a table's story", () => {
  const events = [
    event('snapshot-done', { table: 'dbo.Orders', rows: 3 }),
    event('snapshot-done', { table: 'dbo.Customers', rows: 4 }),
    event('batch-applied', {
      changes: 3,
      tables: { 'dbo.Orders': { inserts: 1, updates: 1, deletes: 0 }, 'dbo.Customers': { inserts: 1 } },
    }),
    event('schema-changed', { table: 'dbo.Orders', reason: 'column Note added; added at the target' }),
    event('table-stopped', { table: 'dbo.Customers', reason: 'the table was dropped' }),
    event('resnapshot', { table: 'dbo.Orders', reason: 'asked for by hand' }),
  ];

  it('keeps to its table, newest first, each event in its part', () => {
    const verify: VerifyAnswer = {
      agentId: 'ct',
      running: true,
      current: null,
      history: [report('dbo.Orders', 1), report('dbo.Customers', 0)],
    };
    const story = tableStory('dbo.Orders', events, verify);
    expect(story.copies.map((l) => l.text)).toEqual([
      'dbo.Orders is copied again: asked for by hand',
      'Snapshot of dbo.Orders done: 3 rows',
    ]);
    expect(story.changesAtSource.map((l) => l.text)).toEqual([
      'Columns of dbo.Orders changed at the source: column Note added; added at the target',
    ]);
    expect(story.lastChanges).toEqual([{ at: events[2]?.at, inserts: 1, updates: 1, deletes: 0 }]);
    expect(story.verifies).toEqual([
      {
        at: '2026-11-27T06:11:00.000Z',
        clean: false,
        text: 'Verify: 10 rows compared, 0 missing, 0 extra, 1 different',
      },
    ]);
  });

  it('says a stop of its table among the changes at the source, and nothing of another table', () => {
    const story = tableStory('dbo.Customers', events, undefined);
    expect(story.changesAtSource.map((l) => l.text)).toEqual([
      'Replication of dbo.Customers stopped: the table was dropped',
    ]);
    expect(story.copies).toHaveLength(1);
    expect(story.verifies).toEqual([]);
    expect(tableStory('dbo.Nothing', events, undefined)).toEqual({
      copies: [],
      changesAtSource: [],
      lastChanges: [],
      verifies: [],
    });
  });
});
