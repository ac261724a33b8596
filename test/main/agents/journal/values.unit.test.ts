// The journal agent's one form for values, whether SQL hands them over in the connection's formats or
// a record image holds them: a snapshot row and a journaled change of the same row must compare equal.
import { describe, expect, it } from 'vitest';
import {
  formValue,
  localInstant,
  timezoneMinutes,
  type ValueForm,
} from '../../../../main/agents/journal/values';
import type { FieldDef } from '../../../../lib/ibmi/recordImage';

const iso: ValueForm = { dateFormat: 'iso', timeFormat: 'iso', utcOffsetMinutes: null };
const field = (type: FieldDef['type']): FieldDef => ({ name: 'F', type });

describe('formValue', () => {
  it('decimals: exact text with the column scale, whatever the driver gave', () => {
    const price = field({ kind: 'packed', precision: 9, scale: 2 });
    expect(formValue(price, '12.3', iso)).toBe('12.30');
    expect(formValue(price, '-0007.25', iso)).toBe('-7.25');
    expect(formValue(price, 12.5, iso)).toBe('12.50');
    expect(formValue(price, '-0.00', iso)).toBe('0.00');
    expect(formValue(field({ kind: 'zoned', precision: 6, scale: 0 }), '000042', iso)).toBe('42');
    expect(() => formValue(price, 'twelve', iso)).toThrow('"twelve" is not a decimal number.');
  });

  it('integers: SMALLINT and INTEGER as numbers, BIGINT as bigint', () => {
    expect(formValue(field({ kind: 'binary', bytes: 4 }), 7n, iso)).toBe(7);
    expect(formValue(field({ kind: 'binary', bytes: 8 }), '9007199254740993', iso)).toBe(9007199254740993n);
  });

  it('dates and times from the connection formats the spec lists, to yyyy-mm-dd and hh:mm:ss', () => {
    const date = field({ kind: 'date', format: 'iso', ccsid: 37 });
    const time = field({ kind: 'time', format: 'iso', ccsid: 37 });
    expect(formValue(date, '11/22/26', { ...iso, dateFormat: 'mdy' })).toBe('2026-11-22');
    expect(formValue(date, '26/326', { ...iso, dateFormat: 'julian' })).toBe('2026-11-22');
    expect(formValue(date, '22.11.2026', { ...iso, dateFormat: 'eur' })).toBe('2026-11-22');
    expect(formValue(date, '2026-11-22', { ...iso, dateFormat: 'mdy' })).toBe('2026-11-22');
    expect(formValue(time, '13.05.09', iso)).toBe('13:05:09');
    expect(formValue(time, '01:05 PM', { ...iso, timeFormat: 'usa' })).toBe('13:05:00');
  });

  it('timestamps: both spellings to one; to UTC only with the database timezone applied', () => {
    const ts = field({ kind: 'timestamp', ccsid: 37 });
    expect(formValue(ts, '2026-11-22-13.05.09.123456', iso)).toBe('2026-11-22 13:05:09.123456');
    expect(formValue(ts, '2026-11-22 13:05:09.1', iso)).toBe('2026-11-22 13:05:09.100000');
    const berlin = { ...iso, utcOffsetMinutes: 60 };
    expect(formValue(ts, '2026-11-22-00.30.00.000001', berlin)).toBe('2026-11-21 23:30:00.000001');
    expect(formValue(ts, '2026-11-22 00:30:00.000001', berlin)).toBe('2026-11-21 23:30:00.000001');
  });

  it('timestamps: the quick forms (an image, SQL) give what the general rule gives, for any fields', () => {
    const ts = field({ kind: 'timestamp', ccsid: 37 });
    const utc = { ...iso, utcOffsetMinutes: 0 };
    const two = (n: number) => String(n).padStart(2, '0');
    for (let i = 0; i < 2000; i++) {
      const f = [1 + ((i * 7919) % 9999), 1 + (i % 12), 1 + (i % 28), i % 24, (i * 7) % 60, (i * 13) % 60];
      const date = `${String(f[0]).padStart(4, '0')}-${two(f[1] as number)}-${two(f[2] as number)}`;
      const micro = String((i * 104_729) % 1_000_000).padStart(6, '0');
      const expected = `${date} ${two(f[3] as number)}:${two(f[4] as number)}:${two(f[5] as number)}.${micro}`;
      const image = `${date}-${two(f[3] as number)}.${two(f[4] as number)}.${two(f[5] as number)}.${micro}`;
      // A trailing blank takes the general rule (the text trimmed): the quick forms must agree with it.
      for (const form of [iso, utc]) {
        expect(formValue(ts, expected, form)).toBe(expected);
        expect(formValue(ts, image, form)).toBe(expected);
        expect(formValue(ts, `${expected} `, form)).toBe(expected);
        expect(formValue(ts, `${image} `, form)).toBe(expected);
      }
    }
  });

  it('BOOLEAN: true or false from an image, a bit, 1/0 or TRUE/FALSE text; anything else named', () => {
    const flag = field({ kind: 'boolean' });
    expect([true, 1, 1n, '1', ' true '].map((v) => formValue(flag, v, iso))).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect([false, 0, 0n, '0', 'FALSE'].map((v) => formValue(flag, v, iso))).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(formValue(flag, null, iso)).toBeNull();
    expect(() => formValue(flag, 'perhaps', iso)).toThrow(
      'F (BOOLEAN) holds "perhaps", which is neither true nor false.',
    );
  });

  it('ROWID: its bytes as they are', () => {
    const rid = new Uint8Array([0, 1, 0xff]);
    expect(formValue(field({ kind: 'rowid' }), rid, iso)).toBe(rid);
  });

  it('CURRENT TIMEZONE (a ±hhmmss duration) in minutes', () => {
    expect(timezoneMinutes(10000)).toBe(60);
    expect(timezoneMinutes('-53000')).toBe(-330);
    expect(timezoneMinutes(0)).toBe(0);
  });
});

describe('localInstant', () => {
  it('keeps a journal timestamp’s milliseconds: a commit time is never rounded down to its second', () => {
    expect(localInstant('2026-12-07-09.03.30.220512', 60)?.toISOString()).toBe('2026-12-07T08:03:30.220Z');
    expect(localInstant('2026-12-07 09:03:30.9', -300)?.toISOString()).toBe('2026-12-07T14:03:30.900Z');
    expect(localInstant('2026-12-07-09.03.30', 0)?.toISOString()).toBe('2026-12-07T09:03:30.000Z');
    expect(localInstant('', 0)).toBeNull();
  });
});
