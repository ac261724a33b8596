// datetime2(n): DATETIME2N with its scale, the time's units then the date's three bytes (MS-TDS
// 2.2.5.5.1.8); a plain text value takes the fast path that writes the bytes in place.
import { timeBytes, TYPE, ValueError } from './sqlTypes';
import type { DataType, Named } from './dataType';
import {
  date3,
  DATETIME_RE,
  datetime2Bytes,
  daysFrom,
  EPOCH_0001,
  readUnits,
  shift,
  timeText,
  timeUnits,
  writeUnits,
  ymdFrom,
} from './temporal';
import { lengthPrefixed, readLengthPrefixed } from './wire';

export const datetime2Type: DataType<Named<'datetime2'>> = {
  info: (t) => Buffer.from([TYPE.DATETIME2N, t.scale]),
  write: (t, value) => {
    if (value === null) return lengthPrefixed(null);
    const fast = typeof value === 'string' ? datetime2Bytes(value, t.scale) : null;
    if (fast) return fast;
    const m = DATETIME_RE.exec(String(value));
    if (!m) throw new ValueError(`'${String(value)}' is not a datetime2.`);
    const [days, units] = shift(
      daysFrom(EPOCH_0001, m[1] ?? ''),
      timeUnits(m[2] ?? '00:00', t.scale),
      t.scale,
      0,
    );
    return lengthPrefixed(Buffer.concat([writeUnits(units, timeBytes(t.scale)), date3(days)]));
  },
  read: (t, c) => {
    const b = readLengthPrefixed(c);
    if (b === null) return null;
    const tb = timeBytes(t.scale);
    return `${ymdFrom(EPOCH_0001, b.readUIntLE(tb, 3))} ${timeText(readUnits(b.subarray(0, tb)), t.scale)}`;
  },
  tokens: { [TYPE.DATETIME2N]: (c) => ({ name: 'datetime2', scale: c.u8() }) },
};
