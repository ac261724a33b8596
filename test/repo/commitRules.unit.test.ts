// The commit-message check says what a log reader would trip on, and lets a good message through.
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module script, typed by its use here.
import { messageProblems } from '../../scripts/check-commits.mjs';

const check = messageProblems as (subject: string, body: string) => string[];

describe('commit messages', () => {
  it('lets an imperative subject with a body through', () => {
    expect(check('Report an idle pipeline’s lag as 0 in /metrics', 'Why it matters.')).toEqual([]);
    expect(check('Pass the checks on a fresh machine', 'Why.')).toEqual([]);
  });

  it('names each problem: length, period, tense, prefix, no body', () => {
    expect(check(`Add ${'x'.repeat(80)}`, 'b')).toEqual(['the subject has 84 characters; at most 72']);
    expect(check('Add a thing.', 'b')).toEqual(['the subject ends with a period']);
    expect(check('Added a thing', 'b')[0]).toMatch(/imperative \("Add", not "Added" or "Adds"\)/);
    expect(check('Adds a thing', 'b')[0]).toMatch(/starts with "Adds"/);
    expect(check('Fixing a thing', 'b')[0]).toMatch(/starts with "Fixing"/);
    expect(check('Docs: a thing', 'b')).toEqual([
      'the subject starts with "Docs:", not a verb in the imperative',
    ]);
    expect(check('Add a thing', '  \n')).toEqual(['there is no body saying why']);
  });
});
