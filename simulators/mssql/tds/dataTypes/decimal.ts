// decimal and numeric: DECIMALN/NUMERICN with precision and scale, a sign byte and the unscaled
// magnitude little-endian (MS-TDS 2.2.5.5.1.6).
import { decimalBytes, TYPE } from './sqlTypes';
import type { DataType, Named } from './dataType';
import { decimalToUnscaled, exactText, unscaledToDecimal } from './decimalText';
import { readUnits, writeUnits } from './temporal';
import { lengthPrefixed, readLengthPrefixed } from './wire';

type Decimal = Named<'decimal' | 'numeric'>;

const readDecimal = (c: { u8(): number }, id: number): Decimal => {
  c.u8();
  const precision = c.u8();
  const scale = c.u8();
  return { name: id === TYPE.DECIMALN ? 'decimal' : 'numeric', precision, scale };
};

export const decimalTypes: DataType<Decimal> = {
  info: (t) =>
    Buffer.from([
      t.name === 'decimal' ? TYPE.DECIMALN : TYPE.NUMERICN,
      1 + decimalBytes(t.precision),
      t.precision,
      t.scale,
    ]),
  write: (t, value) => {
    if (value === null) return lengthPrefixed(null);
    const unscaled = decimalToUnscaled(exactText(value), t.scale);
    const size = decimalBytes(t.precision);
    const b = Buffer.alloc(1 + size);
    b[0] = unscaled < 0n ? 0 : 1;
    writeUnits(unscaled < 0n ? -unscaled : unscaled, size).copy(b, 1);
    return lengthPrefixed(b);
  },
  read: (t, c) => {
    const b = readLengthPrefixed(c);
    if (b === null) return null;
    const magnitude = readUnits(b.subarray(1));
    return unscaledToDecimal(b[0] === 1 ? magnitude : -magnitude, t.scale);
  },
  tokens: { [TYPE.DECIMALN]: readDecimal, [TYPE.NUMERICN]: readDecimal },
};
