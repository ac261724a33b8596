// binary and varbinary: BIGBINARY and BIGVARBIN with their length; a USHORT length before each value,
// or PLP chunks for varbinary(max) (MS-TDS 2.2.5.4.3).
import { TYPE } from './sqlTypes';
import type { Cursor } from './cursor';
import { readSized, writeSized } from './characters';
import type { DataType, Named } from './dataType';

type Binary = Named<'binary' | 'varbinary'>;

const readBinary = (c: Cursor, id: number): Binary => {
  const max = c.u16();
  return { name: id === TYPE.BIGBINARY ? 'binary' : 'varbinary', length: max === 0xffff ? 'max' : max };
};

export const binaryTypes: DataType<Binary> = {
  info: (t) => {
    const head = Buffer.alloc(3);
    head[0] = t.name === 'binary' ? TYPE.BIGBINARY : TYPE.BIGVARBIN;
    head.writeUInt16LE(t.length === 'max' ? 0xffff : t.length, 1);
    return head;
  },
  write: (t, value) =>
    writeSized(
      t.length,
      value === null ? null : Buffer.isBuffer(value) ? value : Buffer.from(String(value), 'latin1'),
    ),
  read: (t, c) => {
    const data = readSized(t.length, c);
    return data === null ? null : Buffer.from(data);
  },
  tokens: { [TYPE.BIGBINARY]: readBinary, [TYPE.BIGVARBIN]: readBinary },
};
