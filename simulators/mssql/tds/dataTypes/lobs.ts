// text, ntext and image, the deprecated large types: their TYPE_INFO with a collation (text, ntext) and
// no table name; each value after a 16-byte text pointer and an 8-byte timestamp (MS-TDS 2.2.5.5.2).
import { DEFAULT_COLLATION, TYPE } from './sqlTypes';
import type { Cursor } from './cursor';
import type { DataType, Named } from './dataType';

type Lob = Named<'text' | 'ntext' | 'image'>;
const IDS = { text: TYPE.TEXT, ntext: TYPE.NTEXT, image: TYPE.IMAGE } as const;

const readLob = (c: Cursor, id: number): Lob => {
  c.u32();
  if (id !== TYPE.IMAGE) c.bytes(5);
  return { name: id === TYPE.TEXT ? 'text' : id === TYPE.NTEXT ? 'ntext' : 'image' };
};

export const lobTypes: DataType<Lob> = {
  info: (t) => {
    const head = Buffer.alloc(5);
    head[0] = IDS[t.name];
    head.writeUInt32LE(t.name === 'ntext' ? 0x7ffffffe : 0x7fffffff, 1);
    // Then the collation (text, ntext) and the table's name in parts: none named for a result column.
    return Buffer.concat([head, t.name === 'image' ? Buffer.alloc(0) : DEFAULT_COLLATION, Buffer.from([0])]);
  },
  write: (t, value) => {
    if (value === null) return Buffer.from([0]);
    const data = Buffer.isBuffer(value)
      ? value
      : Buffer.from(String(value), t.name === 'ntext' ? 'utf16le' : 'latin1');
    // A 16-byte text pointer and an 8-byte timestamp, which clients skip, then the value.
    const head = Buffer.alloc(1 + 16 + 8 + 4);
    head[0] = 16;
    head.writeUInt32LE(data.length, 25);
    return Buffer.concat([head, data]);
  },
  read: (t, c) => {
    const size = c.u32();
    if (size === 0xffffffff) return null;
    const data = c.bytes(size);
    return t.name === 'image' ? Buffer.from(data) : data.toString(t.name === 'ntext' ? 'utf16le' : 'latin1');
  },
  tokens: { [TYPE.TEXT]: readLob, [TYPE.NTEXT]: readLob, [TYPE.IMAGE]: readLob },
};
