// SQL Server's dates and times as targets store them: every 100-ns digit the column's scale keeps,
// whether the driver carried it in the Date or beside it, and no digit made up.
import { describe, expect, it } from 'vitest';
import type { ColumnShape } from '../../../main/agents/source';
import { dateTimeText, portable, portableWriter } from '../../../main/agents/targetValues';

type TediousDate = Date & { nanosecondsDelta?: number };

/** tedious's Date for a value in 100-ns ticks since 1970: milliseconds in the Date, the rest beside it. */
function tediousDate(ticks: bigint, withDelta: boolean): TediousDate {
  const ms = ticks / 10_000n - (ticks % 10_000n < 0n ? 1n : 0n);
  const d: TediousDate = new Date(Number(ms));
  if (withDelta) d.nanosecondsDelta = Number(ticks - ms * 10_000n) / 1e7;
  return d;
}

/** The expected text, worked out from the ticks with integers alone. */
function expected(
  ticks: bigint,
  scale: number,
  part: 'datetime' | 'date' | 'time',
  withDelta: boolean,
): string {
  const ms = ticks / 10_000n - (ticks % 10_000n < 0n ? 1n : 0n);
  const iso = new Date(Number(ms)).toISOString();
  const seven = withDelta
    ? String(((ticks % 10_000_000n) + 10_000_000n) % 10_000_000n).padStart(7, '0')
    : `${iso.slice(20, 23)}0000`;
  const time = `${iso.slice(11, 19)}${scale > 0 ? `.${seven.slice(0, scale)}` : ''}`;
  return part === 'date' ? iso.slice(0, 10) : part === 'time' ? time : `${iso.slice(0, 10)} ${time}`;
}

// Deterministic pseudo-random ticks between 0001-01-01 and 9999-12-31 (a test must not flake).
function* someTicks(count: number): Generator<bigint> {
  let seed = 12345;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  const low = -621355968000000000n;
  const span = 3155378975999999999n;
  for (let i = 0; i < count; i++)
    yield low + (((BigInt(next()) * 2n ** 31n + BigInt(next())) * 2n ** 2n + BigInt(next() % 4)) % span);
  yield low;
  yield low + span;
  yield 0n;
  yield 9_999_999n;
}

describe('dateTimeText', () => {
  it('writes every digit the scale keeps, with and without the digits past the millisecond', () => {
    for (const ticks of someTicks(400))
      for (const withDelta of [true, false])
        for (const scale of [0, 1, 3, 4, 7])
          for (const part of ['datetime', 'date', 'time'] as const)
            expect([ticks, scale, part, dateTimeText(tediousDate(ticks, withDelta), scale, part)]).toEqual([
              ticks,
              scale,
              part,
              expected(ticks, scale, part, withDelta),
            ]);
  });

  it('keeps 100 ns that a Date cannot hold', () => {
    const d = tediousDate(17_400_000_001_234_567n, true);
    expect(dateTimeText(d, 7, 'datetime')).toBe('2025-02-19 21:20:00.1234567');
    expect(dateTimeText(d, 5, 'time')).toBe('21:20:00.12345');
  });
});

describe('a column writer gives what portable gives', () => {
  const column = (sourceType: string): ColumnShape => ({ name: 'c', sourceType, nullable: true });
  it.each([
    'datetime2(7)',
    'datetime2(3)',
    'datetime2(0)',
    'datetime',
    'smalldatetime',
    'date',
    'time(7)',
    'time(2)',
  ])('%s', (sourceType) => {
    const write = portableWriter(column(sourceType));
    for (const ticks of someTicks(50)) {
      const d = tediousDate(ticks, true);
      expect(write(d)).toBe(portable(column(sourceType), d));
    }
    expect(write(null)).toBeNull();
  });
});
