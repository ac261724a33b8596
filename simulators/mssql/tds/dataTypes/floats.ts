// float and real: FLTN with 8 or 4 bytes (MS-TDS 2.2.5.4.2); FLT8 and FLT4 as a client may send them.
import { TYPE } from './sqlTypes';
import type { DataType, Named } from './dataType';
import { lengthPrefixed, readLengthPrefixed } from './wire';

export const floatTypes: DataType<Named<'float' | 'real'>> = {
  info: (t) => Buffer.from([TYPE.FLTN, t.name === 'float' ? 8 : 4]),
  write: (t, value) => {
    if (value === null) return lengthPrefixed(null);
    const b = Buffer.alloc(t.name === 'float' ? 8 : 4);
    if (t.name === 'float') b.writeDoubleLE(Number(value));
    else b.writeFloatLE(Number(value));
    return lengthPrefixed(b);
  },
  read: (_t, c) => {
    const b = readLengthPrefixed(c);
    if (b === null) return null;
    return b.length === 4 ? b.readFloatLE() : b.readDoubleLE();
  },
  tokens: {
    [TYPE.FLT4]: () => ({ name: 'real' }),
    [TYPE.FLT8]: () => ({ name: 'float' }),
    [TYPE.FLTN]: (c) => ({ name: c.u8() === 4 ? 'real' : 'float' }),
  },
};
