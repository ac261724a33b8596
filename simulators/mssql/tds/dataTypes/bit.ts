// bit: BITN, one byte (MS-TDS 2.2.5.4.2); BIT as a client may send it.
import { TYPE } from './sqlTypes';
import type { DataType, Named } from './dataType';
import { lengthPrefixed, readLengthPrefixed } from './wire';

export const bitType: DataType<Named<'bit'>> = {
  info: () => Buffer.from([TYPE.BITN, 1]),
  write: (_t, value) =>
    lengthPrefixed(
      value === null ? null : Buffer.from([value === true || value === 1 || value === 1n ? 1 : 0]),
    ),
  read: (_t, c) => {
    const b = readLengthPrefixed(c);
    return b === null ? null : b[0] !== 0;
  },
  tokens: {
    [TYPE.BIT]: () => ({ name: 'bit' }),
    [TYPE.BITN]: (c) => {
      c.u8();
      return { name: 'bit' };
    },
  },
};
