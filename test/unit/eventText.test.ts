// Every event kind the engine and the runner record has words (shared/eventText.ts): the kinds are
// read from the sources that record them, so a new kind without a sentence fails here.
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EVENT_TEXT, eventLabel, eventSentence, eventTables } from '../../shared/eventText';

const source = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** Kinds the runner reports (RunnerEvent), less the one the engine never keeps. */
function runnerKinds(): string[] {
  const runner = source('main/runner/pipelineRunner.ts');
  const union = runner.slice(
    runner.indexOf('export type RunnerEvent ='),
    runner.indexOf('export interface RunnerOptions'),
  );
  const kinds = [...union.matchAll(/kind: '([a-z-]+)'/g)].map((m) => m[1] ?? '');
  return kinds.filter((k) => k !== 'snapshot-chunk-read');
}

/** Kinds the engine records itself: literal kinds, templated ones spelled out, and its transitions. */
function engineKinds(): string[] {
  const files = readdirSync(new URL('../../main/engine', import.meta.url)).filter((f) => f.endsWith('.ts'));
  const text = files.map((f) => source(`main/engine/${f}`)).join('\n');
  const literal = [...text.matchAll(/addEvent\([^;]*?'([a-z]+(?:-[a-z]+)+|checked|failed)'/gs)].map(
    (m) => m[1] ?? '',
  );
  const transitions = [
    ...text.matchAll(
      /transition\(deps, row, '[a-z]+', (?:row\.state === 'paused' \? )?'([a-z]+)'(?: : '([a-z]+)')?/g,
    ),
  ]
    .flatMap((m) => [m[1], m[2]])
    .filter((k): k is string => k !== undefined);
  expect(text).toContain('`snapshot-${kind}-requested`');
  expect(text).toContain('`verify-${action.action}-requested`');
  return [
    ...literal,
    ...transitions,
    'snapshot-copy-requested',
    'snapshot-cancel-requested',
    'verify-repair-requested',
    'verify-cancel-requested',
  ];
}

describe('events in words', () => {
  it('has a sentence and a label for every kind recorded, none of them the code itself', () => {
    const kinds = [...new Set([...runnerKinds(), ...engineKinds()])].sort();
    // The sources were read: the list is the engine's, not an empty match.
    expect(kinds).toEqual(
      expect.arrayContaining(['batch-applied', 'credentials-replaced', 'fix-applied', 'started']),
    );
    expect(kinds.filter((k) => !(k in EVENT_TEXT))).toEqual([]);
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
