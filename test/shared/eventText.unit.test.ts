// Every event kind the engine and the runner record has words (shared/eventText.ts): the store's
// addEvent and the runtime's report take only an EventKind, so the compiler refuses a kind without a
// sentence (the runner's RunnerEvent kinds reach report through the runtime, narrowed to EventKind).
import { describe, expect, it } from 'vitest';
import { EVENT_TEXT, eventLabel, eventSentence, eventTables, type EventKind } from '../../shared/eventText';
import type { StartContext } from '../../main/agents/spi';
import type { createRepo } from '../../main/engine/store/repo';

// Compile-time: a kind with no words is refused where events are recorded (tsc runs in npm test; an
// unused @ts-expect-error fails it, so these lines prove the refusal).
type Report = StartContext['report'];
type AddEvent = ReturnType<typeof createRepo>['addEvent'];
const refused = (report: Report, addEvent: AddEvent) => {
  // @ts-expect-error: "no-such-kind" has no sentence in shared/eventText.ts.
  report('no-such-kind', {});
  // @ts-expect-error: the same for the store.
  addEvent('p', null, 'no-such-kind', {}, '');
};
void refused;

describe('events in words', () => {
  it('has a sentence and a label for every kind, none of them the code itself', () => {
    const kinds = Object.keys(EVENT_TEXT) as EventKind[];
    expect(kinds).toEqual(
      expect.arrayContaining(['batch-applied', 'credentials-replaced', 'fix-applied', 'started']),
    );
    for (const kind of kinds) {
      expect(eventSentence(kind, {}), kind).not.toBe(kind);
      expect(eventLabel(kind), kind).not.toBe(kind);
    }
  });

  it('says what happened with the event’s own figures', () => {
    expect(eventSentence('credentials-replaced', { state: 'configured' })).toBe('Host credentials replaced');
    expect(eventSentence('fix-applied', { checkId: 'change-retention', applied: {} })).toBe(
      'Fix applied: change-retention, then checked again',
    );
    expect(
      eventSentence('batch-applied', { changes: 1, inserts: 0, updates: 1, deletes: 0, lagMs: 1234 }),
    ).toBe('Applied 1 change (1 update), 1.2 s behind the source');
    // A lag as Status and the charts say it: the milliseconds of a healthy pipeline, not "0.5 s".
    expect(
      eventSentence('batch-applied', { changes: 1, inserts: 1, updates: 0, deletes: 0, lagMs: 535 }),
    ).toBe('Applied 1 change (1 insert), 535 ms behind the source');
    expect(
      eventSentence('batch-applied', { changes: 12000, inserts: 12000, updates: 0, deletes: 0, lagMs: null }),
    ).toBe('Applied 12,000 changes (12,000 inserts)');
    expect(eventSentence('retrying', { attempt: 2, delayMs: 1000, reason: 'read ECONNRESET' })).toBe(
      'Connection lost, retry 2 in 1 s: read ECONNRESET',
    );
    expect(eventSentence('stopped', { from: 'running', to: 'stopped' })).toBe(
      'Pipeline stopped (was running)',
    );
    const tables = {
      'dbo.Orders': { inserts: 1, updates: 0, deletes: 0 },
      'dbo.Customers': { inserts: 0, updates: 2, deletes: 0 },
    };
    expect(eventSentence('batch-applied', { changes: 3, inserts: 1, updates: 2, deletes: 0, tables })).toBe(
      'Applied 3 changes (1 insert, 2 updates) to 2 tables',
    );
    expect(
      eventSentence('batch-applied', {
        changes: 1,
        inserts: 1,
        updates: 0,
        deletes: 0,
        tables: { 'dbo.Orders': {} },
      }),
    ).toBe('Applied 1 change (1 insert) to dbo.Orders');
    expect(eventTables({ table: 'dbo.Orders', rows: 3 })).toEqual(['dbo.Orders']);
    expect(eventTables({ tables })).toEqual(['dbo.Customers', 'dbo.Orders']);
    expect(eventTables({ reason: 'x' })).toEqual([]);
    // A kind a newer engine records reads as its code, with its reason.
    expect(eventSentence('something-new', { reason: 'why' })).toBe('something-new: why');
  });
});
