// datetime and smalldatetime, which share DATETIMN (8 bytes or 4): days since 1900 with 1/300 s
// ticks, or with minutes (MS-TDS 2.2.5.5.1.8); DATETIME and DATETIM4 as a client may send them.
import { TYPE, ValueError } from './sqlTypes';
import type { DataType, Named } from './dataType';
import { DATETIME_RE, daysFrom, EPOCH_1900, pad, timeText, timeUnits, ymdFrom } from './temporal';
import { lengthPrefixed, readLengthPrefixed } from './wire';

export const datetimeTypes: DataType<Named<'datetime' | 'smalldatetime'>> = {
  info: (t) => Buffer.from([TYPE.DATETIMN, t.name === 'datetime' ? 8 : 4]),
  write: (t, value) => {
    if (value === null) return lengthPrefixed(null);
    const m = DATETIME_RE.exec(String(value));
    if (!m) throw new ValueError(`'${String(value)}' is not a ${t.name}.`);
    if (t.name === 'smalldatetime') {
      // Days since 1900 and minutes since midnight; 29.999 seconds and more round up to the next minute.
      let days = daysFrom(EPOCH_1900, m[1] ?? '');
      let minutes = Number((timeUnits(m[2] ?? '00:00', 3) + 30_001n) / 60_000n);
      if (minutes >= 1440) {
        minutes -= 1440;
        days += 1;
      }
      const b = Buffer.alloc(4);
      b.writeUInt16LE(days);
      b.writeUInt16LE(minutes, 2);
      return lengthPrefixed(b);
    }
    let days = daysFrom(EPOCH_1900, m[1] ?? '');
    // datetime counts 1/300 s; 3.33 ms steps, rounded as SQL Server rounds (.xx0, .xx3, .xx7).
    let ticks = Number((timeUnits(m[2] ?? '00:00', 7) * 300n + 5_000_000n) / 10_000_000n);
    if (ticks >= 300 * 86_400) {
      ticks -= 300 * 86_400;
      days += 1;
    }
    const b = Buffer.alloc(8);
    b.writeInt32LE(days);
    b.writeUInt32LE(ticks, 4);
    return lengthPrefixed(b);
  },
  read: (t, c) => {
    const b = readLengthPrefixed(c);
    if (b === null) return null;
    if (t.name === 'smalldatetime') {
      const minutes = b.readUInt16LE(2);
      return `${ymdFrom(EPOCH_1900, b.readUInt16LE(0))} ${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}:00`;
    }
    const days = b.readInt32LE(0);
    const ticks = b.readUInt32LE(4);
    // 1/300 s ticks shown in milliseconds, rounded: tick 2 is .007, as SQL Server shows it.
    const ms = BigInt(Math.round((ticks * 10) / 3));
    return `${ymdFrom(EPOCH_1900, days)} ${timeText(ms, 3)}`;
  },
  tokens: {
    [TYPE.DATETIME]: () => ({ name: 'datetime' }),
    [TYPE.DATETIM4]: () => ({ name: 'smalldatetime' }),
    [TYPE.DATETIMN]: (c) => ({ name: c.u8() === 4 ? 'smalldatetime' : 'datetime' }),
  },
};
