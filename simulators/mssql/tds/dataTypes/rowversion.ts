// rowversion: binary(8) on the wire (MS-TDS 2.2.5.5.1.2: timestamp is BIGBINARYTYPE, length 8).
import { TYPE } from './sqlTypes';
import type { DataType, Named } from './dataType';

export const rowversionType: DataType<Named<'rowversion'>> = {
  info: () => Buffer.from([TYPE.BIGBINARY, 8, 0]),
  write: (_t, value) => {
    if (value === null) return Buffer.from([0xff, 0xff]);
    const data = Buffer.isBuffer(value) ? value : Buffer.alloc(8);
    return Buffer.concat([Buffer.from([data.length, 0]), data]);
  },
  read: (_t, c) => {
    const size = c.u8();
    return size === 0 ? null : Buffer.from(c.bytes(size));
  },
  tokens: {},
};
