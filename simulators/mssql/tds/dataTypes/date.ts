// date: DATEN, three bytes of days since 0001-01-01 (MS-TDS 2.2.5.5.1.8).
import { TYPE } from './sqlTypes';
import type { DataType, Named } from './dataType';
import { date3, daysFrom, EPOCH_0001, ymdFrom } from './temporal';
import { lengthPrefixed, readLengthPrefixed } from './wire';

export const dateType: DataType<Named<'date'>> = {
  info: () => Buffer.from([TYPE.DATEN]),
  write: (_t, value) =>
    value === null
      ? lengthPrefixed(null)
      : lengthPrefixed(date3(daysFrom(EPOCH_0001, String(value).slice(0, 10)))),
  read: (_t, c) => {
    const b = readLengthPrefixed(c);
    return b === null ? null : ymdFrom(EPOCH_0001, b.readUIntLE(0, 3));
  },
  tokens: { [TYPE.DATEN]: () => ({ name: 'date' }) },
};
