// The engine's event stream tells what its store kept: an event recorded inside a transaction reaches
// subscribers once the transaction commits, never while it is open, and not at all when it rolls back
// (a nested savepoint's rollback included), so a window never shows an event the engine did not keep.
import { describe, expect, it } from 'vitest';
import type { FeedMessage } from '../../../shared/liveFeed';
import { createEngineFeed, observeRepo } from '../../../main/engine/feed';
import { openDb } from '../../../main/engine/store/db';
import { createRepo } from '../../../main/engine/store/repo';

function watched() {
  const feed = createEngineFeed(
    () => undefined,
    () => new Date('2026-11-26T12:00:00Z'),
  );
  const repo = observeRepo(createRepo(openDb(':memory:')), feed);
  const told: FeedMessage[] = [];
  feed.subscribe((m) => told.push(structuredClone(m)));
  const at = '2026-11-26T12:00:00.000Z';
  repo.createPipeline({ id: 'p', name: 'P' }, at);
  const kinds = () => told.flatMap((m) => (m.type === 'event' ? [m.event.kind] : []));
  return { repo, kinds, at, told };
}

describe('the event stream and the store’s transactions', () => {
  it('tells an event of a committed transaction after the commit, not during it', () => {
    const { repo, kinds, at } = watched();
    repo.transaction(() => {
      repo.addEvent('p', null, 'entities-replaced', { count: 1 }, at);
      expect(kinds()).toEqual([]);
    });
    expect(kinds()).toEqual(['entities-replaced']);
    expect(repo.pipelineEvents('p', 10).map((e) => e.kind)).toContain('entities-replaced');
  });

  it('tells nothing of a transaction that rolled back', () => {
    const { repo, kinds, at, told } = watched();
    const before = told.length;
    expect(() =>
      repo.transaction(() => {
        repo.addEvent('p', null, 'entities-replaced', { count: 1 }, at);
        repo.createPipeline({ id: 'q', name: 'Q' }, at);
        throw new Error('the commit failed');
      }),
    ).toThrow('the commit failed');
    expect(told.length).toBe(before);
    expect(kinds()).toEqual([]);
    expect(repo.pipelineEvents('p', 10).map((e) => e.kind)).not.toContain('entities-replaced');
  });

  it('drops what a nested transaction told when it rolls back and the outer one commits', () => {
    const { repo, kinds, at } = watched();
    repo.transaction(() => {
      repo.addEvent('p', null, 'checked', {}, at);
      try {
        repo.transaction(() => {
          repo.addEvent('p', null, 'fix-applied', {}, at);
          throw new Error('inner');
        });
      } catch {
        // the outer transaction goes on
      }
    });
    expect(kinds()).toEqual(['checked']);
  });

  it('tells an event outside a transaction at once', () => {
    const { repo, kinds, at } = watched();
    repo.addEvent('p', null, 'checked', { checks: [] }, at);
    expect(kinds()).toEqual(['checked']);
  });
});
