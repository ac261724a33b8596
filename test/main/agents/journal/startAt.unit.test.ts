// startAt as the journal agent reads it: a position as given, a time in the IBM i's local time (as
// journal entries carry it), a time with a zone moved to the same instant there.
import { describe, expect, it } from 'vitest';
import { parseStartAt, StartUnavailable } from '../../../../main/agents/journal/startAt';

const localOf = (text: string, utcOffsetMinutes: number) => {
  const p = parseStartAt(text, utcOffsetMinutes);
  return p.kind === 'time' ? p.local : null;
};

describe('parseStartAt', () => {
  it('reads a journal position', () => {
    expect(parseStartAt('SHOP/QSQJRN0003/1207', 0)).toEqual({
      kind: 'position',
      position: { library: 'SHOP', receiver: 'QSQJRN0003', sequence: 1207 },
      said: 'journal position SHOP/QSQJRN0003/1207',
    });
  });

  it("takes a time without a zone as the IBM i's, and one with a zone as that instant there", () => {
    expect(localOf('2026-07-01 11:00:00', 60)).toBe('2026-07-01 11:00:00.000000');
    expect(localOf('2026-07-01T10:00:00Z', 60)).toBe('2026-07-01 11:00:00.000000');
    expect(localOf('2026-07-01T12:30:00+02:00', 60)).toBe('2026-07-01 11:30:00.000000');
    // Across midnight, with a fraction kept to the microsecond.
    expect(localOf('2026-07-01T00:30:00.25-01:00', -300)).toBe('2026-06-30 20:30:00.250000');
    expect(parseStartAt('2026-07-01 11:00:00', 60).said).toBe("2026-07-01 11:00:00 (the IBM i's local time)");
  });

  it('refuses a time the calendar has not', () => {
    expect(() => parseStartAt('2026-02-30 00:00:00', 0)).toThrow(StartUnavailable);
    expect(() => parseStartAt('2026-07-01 24:00:00', 0)).toThrow('is no date and time of the calendar');
  });
});
