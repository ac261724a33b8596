// money and smallmoney: ten-thousandths as an integer, smallmoney in 4 bytes and money in 8 with the
// high half first (MS-TDS 2.2.5.5.1.4); MONEYN, and MONEY and MONEY4 as a client may send them.
import { TYPE } from './sqlTypes';
import type { DataType, Named } from './dataType';
import { decimalToUnscaled, exactText, unscaledToDecimal } from './decimalText';
import { lengthPrefixed, readLengthPrefixed } from './wire';

export const moneyTypes: DataType<Named<'money' | 'smallmoney'>> = {
  info: (t) => Buffer.from([TYPE.MONEYN, t.name === 'money' ? 8 : 4]),
  write: (t, value) => {
    if (value === null) return lengthPrefixed(null);
    const units = decimalToUnscaled(exactText(value), 4);
    if (t.name === 'smallmoney') {
      const b = Buffer.alloc(4);
      b.writeInt32LE(Number(units));
      return lengthPrefixed(b);
    }
    const b = Buffer.alloc(8);
    b.writeInt32LE(Number(BigInt.asIntN(64, units) >> 32n));
    b.writeUInt32LE(Number(BigInt.asUintN(32, units)), 4);
    return lengthPrefixed(b);
  },
  read: (_t, c) => {
    const b = readLengthPrefixed(c);
    if (b === null) return null;
    const units =
      b.length === 4
        ? BigInt(b.readInt32LE(0))
        : (BigInt(b.readInt32LE(0)) << 32n) | BigInt(b.readUInt32LE(4));
    return unscaledToDecimal(units, 4);
  },
  tokens: {
    [TYPE.MONEY]: () => ({ name: 'money' }),
    [TYPE.MONEY4]: () => ({ name: 'smallmoney' }),
    [TYPE.MONEYN]: (c) => ({ name: c.u8() === 4 ? 'smallmoney' : 'money' }),
  },
};
