// sql_variant: SSVARIANT with its largest size; a stored variant (its instance, variant.ts) sent with
// its length, any other value told from itself (MS-TDS 2.2.5.5.4). Clients never send it as a parameter.
import { DEFAULT_COLLATION, TYPE, UnsupportedTypeError, type SqlValue } from './sqlTypes';
import type { DataType, Named } from './dataType';

/**
 * A sql_variant value (MS-TDS 2.2.5.5.4): its base type's token, the properties' length, the
 * properties, then the value. The sandbox keeps no base type beside a stored value, so it is told
 * from the value: int or bigint, float, varbinary, or nvarchar (simulators/mssql/CONFORMANCE.md).
 */
function variantValue(value: SqlValue): Buffer {
  const long = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    return b;
  };
  if (value === null) return long(0);
  let instance: Buffer;
  if (typeof value === 'bigint' || (typeof value === 'number' && Number.isInteger(value))) {
    const n = BigInt(value);
    const small = n >= -2147483648n && n <= 2147483647n;
    const data = Buffer.alloc(small ? 4 : 8);
    if (small) data.writeInt32LE(Number(n));
    else data.writeBigInt64LE(n);
    instance = Buffer.concat([Buffer.from([small ? TYPE.INT4 : TYPE.INT8, 0]), data]);
  } else if (typeof value === 'number') {
    const data = Buffer.alloc(8);
    data.writeDoubleLE(value);
    instance = Buffer.concat([Buffer.from([TYPE.FLT8, 0]), data]);
  } else if (Buffer.isBuffer(value)) {
    const max = Buffer.alloc(2);
    max.writeUInt16LE(8000);
    instance = Buffer.concat([Buffer.from([TYPE.BIGVARBIN, 2]), max, value]);
  } else {
    const data = Buffer.from(typeof value === 'boolean' ? (value ? '1' : '0') : String(value), 'utf16le');
    const max = Buffer.alloc(2);
    max.writeUInt16LE(8000);
    instance = Buffer.concat([Buffer.from([TYPE.NVARCHAR, 7]), DEFAULT_COLLATION, max, data]);
  }
  return Buffer.concat([long(instance.length), instance]);
}
export const sqlVariantType: DataType<Named<'sql_variant'>> = {
  info: () => {
    const head = Buffer.alloc(5);
    head[0] = TYPE.SSVARIANT;
    head.writeUInt32LE(8016, 1);
    return head;
  },
  write: (_t, value) =>
    Buffer.isBuffer(value)
      ? Buffer.concat([Buffer.from([value.length & 0xff, (value.length >> 8) & 0xff, 0, 0]), value])
      : variantValue(value),
  read: () => {
    throw new UnsupportedTypeError(TYPE.SSVARIANT);
  },
  tokens: {},
};
