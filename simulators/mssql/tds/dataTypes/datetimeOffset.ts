// datetimeoffset(n): DATETIMEOFFSETN with its scale, the UTC time and date, then the offset in minutes
// (MS-TDS 2.2.5.5.1.8).
import { timeBytes, TYPE, ValueError } from './sqlTypes';
import type { DataType, Named } from './dataType';
import {
  date3,
  daysFrom,
  EPOCH_0001,
  OFFSET_RE,
  pad,
  readUnits,
  shift,
  timeText,
  timeUnits,
  writeUnits,
  ymdFrom,
} from './temporal';
import { lengthPrefixed, readLengthPrefixed } from './wire';

export const datetimeOffsetType: DataType<Named<'datetimeoffset'>> = {
  info: (t) => Buffer.from([TYPE.DATETIMEOFFSETN, t.scale]),
  write: (t, value) => {
    if (value === null) return lengthPrefixed(null);
    const m = OFFSET_RE.exec(String(value));
    if (!m) throw new ValueError(`'${String(value)}' is not a datetimeoffset.`);
    const offset = (m[3] === '-' ? -1 : 1) * (Number(m[4]) * 60 + Number(m[5]));
    const [days, units] = shift(
      daysFrom(EPOCH_0001, m[1] ?? ''),
      timeUnits(m[2] ?? '', t.scale),
      t.scale,
      -offset,
    );
    const o = Buffer.alloc(2);
    o.writeInt16LE(offset);
    return lengthPrefixed(Buffer.concat([writeUnits(units, timeBytes(t.scale)), date3(days), o]));
  },
  read: (t, c) => {
    const b = readLengthPrefixed(c);
    if (b === null) return null;
    const tb = timeBytes(t.scale);
    const offset = b.readInt16LE(tb + 3);
    const [days, units] = shift(b.readUIntLE(tb, 3), readUnits(b.subarray(0, tb)), t.scale, offset);
    const sign = offset < 0 ? '-' : '+';
    const abs = Math.abs(offset);
    return `${ymdFrom(EPOCH_0001, days)} ${timeText(units, t.scale)} ${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
  },
  tokens: { [TYPE.DATETIMEOFFSETN]: (c) => ({ name: 'datetimeoffset', scale: c.u8() }) },
};
