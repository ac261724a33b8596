// The value framings MS-TDS shares between types: a length byte, a USHORT length, or PLP chunks
// (2.2.5.2.3) for the max types.
import type { Cursor } from './cursor';

const PLP_NULL = 0xffffffffffffffffn;
const PLP_UNKNOWN = 0xfffffffffffffffen;

export function plp(data: Buffer | null): Buffer {
  if (data === null) {
    const out = Buffer.alloc(8);
    out.writeBigUInt64LE(PLP_NULL);
    return out;
  }
  const head = Buffer.alloc(12);
  head.writeBigUInt64LE(BigInt(data.length));
  head.writeUInt32LE(data.length, 8);
  return data.length === 0
    ? Buffer.concat([head.subarray(0, 8), Buffer.alloc(4)])
    : Buffer.concat([head, data, Buffer.alloc(4)]);
}

const NULL_VALUE = Buffer.from([0]);
export function lengthPrefixed(data: Buffer | null): Buffer {
  if (data === null) return NULL_VALUE;
  const b = Buffer.allocUnsafe(1 + data.length);
  b[0] = data.length;
  data.copy(b, 1);
  return b;
}

export function readPlp(c: Cursor): Buffer | null {
  const total = c.u64();
  if (total === PLP_NULL) return null;
  const parts: Buffer[] = [];
  for (;;) {
    const size = c.u32();
    if (size === 0) break;
    parts.push(c.bytes(size));
  }
  const data = Buffer.concat(parts);
  if (total !== PLP_UNKNOWN && BigInt(data.length) !== total)
    throw new Error('A PLP value is shorter than announced.');
  return data;
}

/** A value with a one-byte length (the nullable fixed types): null for length 0. */
export function readLengthPrefixed(c: Cursor): Buffer | null {
  const size = c.u8();
  return size === 0 ? null : c.bytes(size);
}
