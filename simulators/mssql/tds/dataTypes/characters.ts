// char, varchar, nchar and nvarchar: BIGCHAR, BIGVARCHR, NCHAR and NVARCHAR with their byte length and
// collation; a USHORT length before each value, or PLP chunks for (max) (MS-TDS 2.2.5.4.3).
import { DEFAULT_COLLATION, TYPE, type SqlValue } from './sqlTypes';
import type { Cursor } from './cursor';
import type { DataType, Named } from './dataType';
import { plp, readPlp } from './wire';

type Characters = Named<'char' | 'varchar' | 'nchar' | 'nvarchar'>;
const unicode = (t: Characters) => t.name === 'nchar' || t.name === 'nvarchar';
const IDS = {
  char: TYPE.BIGCHAR,
  varchar: TYPE.BIGVARCHR,
  nchar: TYPE.NCHAR,
  nvarchar: TYPE.NVARCHAR,
} as const;
const NAMES = {
  [TYPE.BIGCHAR]: 'char',
  [TYPE.BIGVARCHR]: 'varchar',
  [TYPE.NCHAR]: 'nchar',
  [TYPE.NVARCHAR]: 'nvarchar',
} as const;

function textBytes(t: Characters, value: SqlValue): Buffer {
  let text = typeof value === 'string' ? value : String(value);
  // char(n) and nchar(n) are fixed-length: SQL Server pads them with spaces.
  if ((t.name === 'char' || t.name === 'nchar') && typeof t.length === 'number')
    text = text.padEnd(t.length, ' ');
  return Buffer.from(text, unicode(t) ? 'utf16le' : 'latin1');
}

/** A USHORT length then the bytes, or PLP chunks for (max): shared with binary and varbinary. */
export function writeSized(length: number | 'max', data: Buffer | null): Buffer {
  if (length === 'max') return plp(data);
  if (data === null) return Buffer.from([0xff, 0xff]);
  const head = Buffer.alloc(2);
  head.writeUInt16LE(data.length);
  return Buffer.concat([head, data]);
}

export function readSized(length: number | 'max', c: Cursor): Buffer | null {
  if (length === 'max') return readPlp(c);
  const size = c.u16();
  return size === 0xffff ? null : c.bytes(size);
}

const readCharacters = (c: Cursor, id: number): Characters => {
  const max = c.u16();
  c.bytes(5);
  const name = NAMES[id as keyof typeof NAMES];
  const wide = id === TYPE.NCHAR || id === TYPE.NVARCHAR;
  return { name, length: max === 0xffff ? 'max' : wide ? max / 2 : max };
};

export const characterTypes: DataType<Characters> = {
  info: (t) => {
    const head = Buffer.alloc(3);
    head[0] = IDS[t.name];
    head.writeUInt16LE(t.length === 'max' ? 0xffff : t.length * (unicode(t) ? 2 : 1), 1);
    return Buffer.concat([head, DEFAULT_COLLATION]);
  },
  write: (t, value) =>
    writeSized(t.length, value === null ? null : Buffer.isBuffer(value) ? value : textBytes(t, value)),
  read: (t, c) => readSized(t.length, c)?.toString(unicode(t) ? 'utf16le' : 'latin1') ?? null,
  tokens: Object.fromEntries(Object.keys(NAMES).map((id) => [Number(id), readCharacters])),
};
