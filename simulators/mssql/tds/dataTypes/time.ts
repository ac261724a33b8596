// time(n): TIMEN with its scale, units of 10^-n seconds since midnight in 3 to 5 bytes (MS-TDS 2.2.5.5.1.8).
import { timeBytes, TYPE } from './sqlTypes';
import type { DataType, Named } from './dataType';
import { readUnits, timeText, timeUnits, writeUnits } from './temporal';
import { lengthPrefixed, readLengthPrefixed } from './wire';

export const timeType: DataType<Named<'time'>> = {
  info: (t) => Buffer.from([TYPE.TIMEN, t.scale]),
  write: (t, value) =>
    value === null
      ? lengthPrefixed(null)
      : lengthPrefixed(writeUnits(timeUnits(String(value), t.scale), timeBytes(t.scale))),
  read: (t, c) => {
    const b = readLengthPrefixed(c);
    return b === null ? null : timeText(readUnits(b), t.scale);
  },
  tokens: { [TYPE.TIMEN]: (c) => ({ name: 'time', scale: c.u8() }) },
};
