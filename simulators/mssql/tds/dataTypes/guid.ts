// uniqueidentifier: GUID, 16 bytes with its first three groups little-endian (MS-TDS 2.2.5.5.1.7).
import { TYPE, ValueError } from './sqlTypes';
import type { DataType, Named } from './dataType';
import { lengthPrefixed, readLengthPrefixed } from './wire';

/** The text's hex digits in the order SQL Server keeps them: the first three groups byte-reversed. */
function swapped(b: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(b.subarray(0, 4)).reverse(),
    Buffer.from(b.subarray(4, 6)).reverse(),
    Buffer.from(b.subarray(6, 8)).reverse(),
    b.subarray(8),
  ]);
}

function guidBytes(text: string): Buffer {
  const hex = text.replace(/[{}-]/g, '');
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) throw new ValueError(`'${text}' is not a uniqueidentifier.`);
  return swapped(Buffer.from(hex, 'hex'));
}

function guidText(b: Buffer): string {
  const h = swapped(b).toString('hex').toUpperCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export const guidType: DataType<Named<'uniqueidentifier'>> = {
  info: () => Buffer.from([TYPE.GUID, 16]),
  write: (_t, value) => lengthPrefixed(value === null ? null : guidBytes(String(value))),
  read: (_t, c) => {
    const b = readLengthPrefixed(c);
    return b === null ? null : guidText(b);
  },
  tokens: {
    [TYPE.GUID]: (c) => {
      c.u8();
      return { name: 'uniqueidentifier' };
    },
  },
};
