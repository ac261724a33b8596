// A batch netted to one change per row before a target writes it by sets (PostgreSQL, SQL Server):
// the row a DBA finds at the target is the one the last change of its key left.
import { describe, expect, it } from 'vitest';
import type { Change } from '../../../main/agents/source';
import { netChanges } from '../../../main/agents/target';

const change = (table: string, key: Change['key'], op: Change['op'], name = ''): Change => ({
  table,
  op,
  key,
  row: op === 'delete' ? null : { ...key, name },
  changedColumns: null,
  position: name,
});

describe('netChanges', () => {
  it('answers a batch of distinct keys as it is, in order', () => {
    const batch = [change('dbo.A', { id: 1 }, 'insert', 'a'), change('dbo.A', { id: 2 }, 'insert', 'b')];
    expect(netChanges(batch)).toBe(batch);
  });

  it("keeps each key's last change, in the order of those last changes", () => {
    const batch = [
      change('dbo.A', { id: 1 }, 'insert', 'first'),
      change('dbo.A', { id: 2 }, 'insert', 'two'),
      change('dbo.A', { id: 1 }, 'update', 'second'),
      change('dbo.A', { id: 3 }, 'insert', 'three'),
      change('dbo.A', { id: 2 }, 'delete', 'gone'),
    ];
    expect(netChanges(batch).map((c) => c.position)).toEqual(['second', 'three', 'gone']);
  });

  it('tells tables apart, and a number key from its digits as text', () => {
    const batch = [
      change('dbo.A', { id: 1 }, 'insert', 'a1'),
      change('dbo.B', { id: 1 }, 'insert', 'b1'),
      change('dbo.C', { code: '1' }, 'insert', 'c-text'),
      change('dbo.C', { code: 1 }, 'insert', 'c-number'),
    ];
    expect(netChanges(batch)).toHaveLength(4);
  });

  it('nets bigints and composite keys by value', () => {
    const big = 2n ** 63n - 1n;
    const batch = [
      change('dbo.A', { id: big }, 'insert', 'big-1'),
      change('dbo.A', { id: 2n ** 63n - 1n }, 'update', 'big-2'),
      change('dbo.L', { order: 7, line: 1 }, 'insert', 'line-1'),
      change('dbo.L', { order: 7, line: 2 }, 'insert', 'line-2'),
      change('dbo.L', { order: 7, line: 1 }, 'delete', 'line-1-gone'),
    ];
    expect(netChanges(batch).map((c) => c.position)).toEqual(['big-2', 'line-2', 'line-1-gone']);
  });
});
