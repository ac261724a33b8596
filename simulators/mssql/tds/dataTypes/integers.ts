// tinyint, smallint, int and bigint: INTN with their byte count (MS-TDS 2.2.5.4.2); INT1, INT2, INT4
// and INT8 as a client may send them.
import { TYPE } from './sqlTypes';
import type { DataType, Named } from './dataType';
import { lengthPrefixed, readLengthPrefixed } from './wire';

type Integer = Named<'tinyint' | 'smallint' | 'int' | 'bigint'>;
const intLength = { tinyint: 1, smallint: 2, int: 4, bigint: 8 } as const;

export const integerTypes: DataType<Integer> = {
  info: (t) => Buffer.from([TYPE.INTN, intLength[t.name]]),
  write: (t, value) => {
    if (value === null) return lengthPrefixed(null);
    // An int the driver gave as a number: written straight after its length byte.
    if (t.name === 'int' && typeof value === 'number' && Number.isInteger(value)) {
      const b = Buffer.allocUnsafe(5);
      b[0] = 4;
      b.writeInt32LE(value, 1);
      return b;
    }
    const b = Buffer.alloc(intLength[t.name]);
    const n = BigInt(typeof value === 'boolean' ? Number(value) : (value as number | bigint | string));
    if (t.name === 'tinyint') b.writeUInt8(Number(n));
    else if (t.name === 'smallint') b.writeInt16LE(Number(n));
    else if (t.name === 'int') b.writeInt32LE(Number(n));
    else b.writeBigInt64LE(n);
    return lengthPrefixed(b);
  },
  read: (_t, c) => {
    const b = readLengthPrefixed(c);
    if (b === null) return null;
    return b.length === 1
      ? b.readUInt8()
      : b.length === 2
        ? b.readInt16LE()
        : b.length === 4
          ? b.readInt32LE()
          : b.readBigInt64LE();
  },
  tokens: {
    [TYPE.INT1]: () => ({ name: 'tinyint' }),
    [TYPE.INT2]: () => ({ name: 'smallint' }),
    [TYPE.INT4]: () => ({ name: 'int' }),
    [TYPE.INT8]: () => ({ name: 'bigint' }),
    [TYPE.INTN]: (c) => {
      const len = c.u8();
      return { name: len === 1 ? 'tinyint' : len === 2 ? 'smallint' : len === 4 ? 'int' : 'bigint' };
    },
  },
};
