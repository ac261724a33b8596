// Check results as the Pipelines screen sums them up: failures first, what could not run apart and
// said once per cause, and no "nothing failed" for a pipeline without tables.
import { describe, expect, it } from 'vitest';
import { checksHeadline, checksInOrder, checkTitle, uncheckedCauses } from '../../shared/checkSummary';
import type { CheckResult } from '../../shared/controlApi';

const check = (id: string, status: CheckResult['status'], message = id): CheckResult => ({
  id,
  status,
  message,
  remedy: status === 'passed' ? null : 'Do something.',
});
const CATALOGUE = 'The login cannot read the catalogue views.';

describe('check results summed up', () => {
  const checks = [
    check('connection', 'passed'),
    check('primary-keys', 'unchecked', CATALOGUE),
    check('change-retention', 'unchecked', CATALOGUE),
    check('snapshot-isolation', 'warning'),
    check('schemas-catalog', 'failed'),
    check('column-types', 'unchecked', 'SQL Server answered error 1205: deadlock'),
  ];

  it('puts failures first, then what could not run, warnings, passes', () => {
    expect(checksInOrder(checks).map((c) => c.id)).toEqual([
      'schemas-catalog',
      'primary-keys',
      'change-retention',
      'column-types',
      'snapshot-isolation',
      'connection',
    ]);
  });

  it('says each cause of checks that could not run once, with the checks it stopped', () => {
    expect(uncheckedCauses(checks)).toEqual([
      { why: CATALOGUE, remedy: 'Do something.', ids: ['primary-keys', 'change-retention'] },
      { why: 'SQL Server answered error 1205: deadlock', remedy: 'Do something.', ids: ['column-types'] },
    ]);
  });

  it('counts failed, could not run and warnings apart, and says when there are no tables', () => {
    expect(checksHeadline(checks, 3)).toBe('1 check failed, 3 could not run, 1 warning.');
    expect(checksHeadline([check('connection', 'passed')], 2)).toBe('Every check passed.');
    expect(checksHeadline([check('connection', 'passed')], 0)).toBe(
      'No tables chosen yet: choose the tables to replicate. Every check passed.',
    );
  });

  it('names each check, an unknown one by its id', () => {
    expect(checkTitle('change-retention')).toBe('Change retention');
    expect(checkTitle('made-up')).toBe('made-up');
  });
});

describe('one date-time format', () => {
  const at = '2026-11-27T16:05:09.123Z';
  it('is the reader’s locale, 24-hour, with the time zone', async () => {
    const { dateTime, timeOfDay } = await import('../../shared/format');
    expect(dateTime(at, 'en-US', 'UTC')).toBe('Nov 27, 2026, 16:05:09 UTC');
    expect(dateTime(at, 'en-GB', 'Europe/Berlin')).toMatch(/^27 Nov 2026, 17:05:09 (CET|GMT\+1)$/);
    expect(timeOfDay(at, 'en-US', 'America/New_York')).toMatch(/^11:05:09 (EST|GMT-5)$/);
  });
});
