// TDS pieces of the simulated SQL Server against bytes written out from Microsoft's documentation
// (MS-TDS), computed by hand here, not produced by the code under test.
import { describe, expect, it } from 'vitest';
import { decodePassword, parseLogin7 } from '../tds/login7';
import { encodeMessage, MessageReader, PACKET, PacketStream } from '../tds/packet';
import { TokenWriter, type Column } from '../tds/tokens';
import { ENCRYPT, negotiateEncryption, parsePrelogin, buildPreloginResponse } from '../tds/prelogin';
import { Cursor } from '../tds/dataTypes/cursor';
import { readValue, writeValue } from '../tds/dataTypes/values';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');

describe('LOGIN7', () => {
  it('parses the sample login of MS-TDS section 4.2 byte for byte', () => {
    // The packet data of MS-TDS 4.2 "Login Request" (after its 8-byte packet header).
    const sample = hex(`
      88 00 00 00 02 00 09 72 00 10 00 00 00 00 00 07 00 01 00 00 00 00 00 00
      E0 03 00 00 00 00 00 00 09 04 00 00 5E 00 08 00 6E 00 02 00 72 00 00 00
      72 00 07 00 80 00 00 00 80 00 00 00 80 00 04 00 88 00 00 00 88 00 00 00
      00 50 8B E2 B7 8F 88 00 00 00 88 00 00 00 88 00 00 00 00 00 00 00
      73 00 6B 00 6F 00 73 00 74 00 6F 00 76 00 31 00 73 00 61 00 4F 00 53 00
      51 00 4C 00 2D 00 33 00 32 00 4F 00 44 00 42 00 43 00`);
    const login = parseLogin7(sample);
    expect(login).toMatchObject({
      tdsVersion: 0x72090002,
      packetSize: 4096,
      hostName: 'skostov1',
      userName: 'sa',
      password: '',
      appName: 'OSQL-32',
      library: 'ODBC',
      database: '',
      usesSspi: false,
    });
  });

  it('undoes the password obfuscation: each byte nibble-swapped, then XOR 0xA5', () => {
    // 'a' is 61 00 in UCS-2; swapped 16 00; XOR A5 gives B3 A5.
    expect(decodePassword(hex('B3 A5'))).toBe('a');
    // 'Z' is 5A 00: swapped A5 00, XOR A5 gives 00 A5.
    expect(decodePassword(hex('00 A5 B3 A5'))).toBe('Za');
  });

  it('refuses a LOGIN7 whose strings point past the message', () => {
    const broken = Buffer.alloc(94);
    broken.writeUInt32LE(94, 0);
    broken.writeUInt16LE(90, 36);
    broken.writeUInt16LE(10, 38);
    expect(() => parseLogin7(broken)).toThrow(/past the message/);
  });
});

describe('datetime2 values', () => {
  it('are written as the general path writes them, for every scale, date, time, fraction and carry', () => {
    let seed = 3;
    const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    const two = (n: number) => String(n).padStart(2, '0');
    for (const scale of [0, 1, 3, 5, 7])
      for (let i = 0; i < 4000; i++) {
        // Days past a month's end too (Feb 30): those take the general path, as the T form always does.
        const date = `${String(1 + next(9999)).padStart(4, '0')}-${two(1 + next(12))}-${two(1 + next(31))}`;
        const time = i % 20 === 0 ? '23:59:59' : `${two(next(24))}:${two(next(60))}:${two(next(60))}`;
        const digits = next(10);
        const fraction = digits ? `.${String(next(1e9)).padStart(9, '0').slice(0, digits)}` : '';
        const text = `${date} ${time}${fraction}`;
        const write = (v: string) => {
          try {
            return writeValue({ name: 'datetime2', scale }, v).toString('hex');
          } catch (error) {
            return (error as Error).message;
          }
        };
        expect(write(text), text).toBe(write(text.replace(' ', 'T')));
      }
  });
});

describe('packets', () => {
  it('splits a message into packets of the negotiated size, the last one with EOM, and reads it back', () => {
    const data = Buffer.alloc(10_000, 0xab);
    const wire = encodeMessage(PACKET.TABULAR_RESULT, data, 4096);
    expect(wire.length).toBe(10_000 + 3 * 8);
    expect([wire[1], wire[4096 + 1], wire[8192 + 1]]).toEqual([0, 0, 1]);
    expect(wire.readUInt16BE(2)).toBe(4096);
    const reader = new MessageReader();
    const firstHalf = reader.push(wire.subarray(0, 5000));
    const messages = reader.push(wire.subarray(5000));
    expect(firstHalf).toEqual([]);
    expect(messages).toHaveLength(1);
    expect(messages[0]?.data.equals(data)).toBe(true);
  });

  it('streams a large result: whole packets leave while rows are written, numbered on, one EOM at the end', () => {
    const columns: Column[] = [
      { name: 'Id', type: { name: 'int' }, nullable: false },
      { name: 'Name', type: { name: 'nvarchar', length: 50 }, nullable: true },
    ];
    const rows = Array.from({ length: 5000 }, (_, i) => [i, i % 3 ? `name ${i}` : null]);
    const whole = new TokenWriter();
    for (const r of rows) whole.row(columns, r);
    const expected = whole.take();

    const sent: Buffer[] = [];
    const stream = new PacketStream(PACKET.TABULAR_RESULT, 4096, 0, (bytes) => sent.push(bytes));
    const streamed = new TokenWriter((bytes) => stream.add(bytes));
    let sentWhileWriting = 0;
    rows.forEach((r, i) => {
      streamed.row(columns, r);
      if (i === 2500) sentWhileWriting = sent.length;
    });
    // Halfway through the rows, packets have already gone, none of them the last.
    expect(sentWhileWriting).toBeGreaterThan(0);
    stream.end(streamed.take());
    const wire = Buffer.concat(sent);
    const ids: number[] = [];
    const statuses: number[] = [];
    for (let at = 0; at < wire.length; at += wire.readUInt16BE(at + 2)) {
      ids.push(wire[at + 6] ?? -1);
      statuses.push(wire[at + 1] ?? -1);
    }
    expect(ids).toEqual(ids.map((_, i) => (i + 1) % 256));
    expect(statuses.filter((s) => s === 1)).toHaveLength(1);
    expect(statuses.at(-1)).toBe(1);
    const [message] = new MessageReader().push(wire);
    expect(message?.data.equals(expected)).toBe(true);
    expect(wire.equals(encodeMessage(PACKET.TABULAR_RESULT, expected, 4096))).toBe(true);
  });

  it('refuses a packet shorter than its own header', () => {
    expect(() => new MessageReader().push(hex('12 01 00 04 00 00 01 00'))).toThrow(/shorter than its header/);
  });
});

describe('PRELOGIN', () => {
  it('answers the encryption option as MS-TDS 2.2.6.5 lays out', () => {
    expect(negotiateEncryption(ENCRYPT.ON, true, false)).toBe(ENCRYPT.ON);
    expect(negotiateEncryption(ENCRYPT.OFF, true, false)).toBe(ENCRYPT.OFF);
    expect(negotiateEncryption(ENCRYPT.NOT_SUP, true, false)).toBe(ENCRYPT.NOT_SUP);
    expect(negotiateEncryption(ENCRYPT.NOT_SUP, true, true)).toBe(ENCRYPT.REQ);
    expect(negotiateEncryption(ENCRYPT.ON, false, false)).toBe(ENCRYPT.NOT_SUP);
  });

  it('writes big-endian option offsets and a terminator', () => {
    const response = buildPreloginResponse(ENCRYPT.ON);
    // VERSION at offset 26 (5 options × 5 bytes + terminator), 6 bytes long.
    expect(response.subarray(0, 5)).toEqual(hex('00 00 1A 00 06'));
    expect(response[25]).toBe(0xff);
    expect(parsePrelogin(response).encryption).toBe(ENCRYPT.ON);
  });
});

describe('values on the wire (MS-TDS 2.2.5.5)', () => {
  const cases: [string, Parameters<typeof writeValue>[0], Parameters<typeof writeValue>[1], string][] = [
    // decimal(5,2) 123.45: length 5, sign 1 (positive), 12345 = 0x3039 little-endian in 4 bytes.
    ['decimal', { name: 'decimal', precision: 5, scale: 2 }, '123.45', '05 01 39 30 00 00'],
    ['negative decimal', { name: 'decimal', precision: 5, scale: 2 }, '-0.01', '05 00 01 00 00 00'],
    // The first three groups of a GUID are little-endian on the wire.
    [
      'uniqueidentifier',
      { name: 'uniqueidentifier' },
      '6F9619FF-8B86-D011-B42D-00C04FC964FF',
      '10 FF 19 96 6F 86 8B 11 D0 B4 2D 00 C0 4F C9 64 FF',
    ],
    // date: days since 0001-01-01 in 3 bytes; 2000-01-01 is day 730119 = 0x0B2407.
    ['date', { name: 'date' }, '2000-01-01', '03 07 24 0B'],
    ['date epoch', { name: 'date' }, '0001-01-01', '03 00 00 00'],
    // datetime: days since 1900-01-01, then 1/300 s ticks; .003 is one tick.
    ['datetime', { name: 'datetime' }, '1900-01-01 00:00:00.003', '08 00 00 00 00 01 00 00 00'],
    // time(0): 3 bytes of seconds; 01:00:00 is 3600 = 0x000E10.
    ['time(0)', { name: 'time', scale: 0 }, '01:00:00', '03 10 0E 00'],
    ['nvarchar', { name: 'nvarchar', length: 10 }, 'hé', '04 00 68 00 E9 00'],
    ['null nvarchar', { name: 'nvarchar', length: 10 }, null, 'FF FF'],
    ['bigint', { name: 'bigint' }, 1n, '08 01 00 00 00 00 00 00 00'],
  ];

  it.each(cases)('%s', (_name, type, value, bytes) => {
    expect(writeValue(type, value).toString('hex').toUpperCase()).toBe(bytes.replace(/ /g, ''));
    if (value !== null)
      expect(readValue(type, new Cursor(hex(bytes)))).toEqual(typeof value === 'bigint' ? value : value);
  });

  it('writes (max) values in PLP chunks, with the all-ones length for null', () => {
    expect(writeValue({ name: 'varbinary', length: 'max' }, null).toString('hex')).toBe('ffffffffffffffff');
    expect(writeValue({ name: 'varbinary', length: 'max' }, Buffer.from([1, 2])).toString('hex')).toBe(
      '0200000000000000' + '02000000' + '0102' + '00000000',
    );
  });

  it('keeps datetimeoffset in UTC on the wire with the offset in minutes', () => {
    // 2026-01-01 01:00 +01:00 is 00:00 UTC: time 0 (5 bytes at scale 7), date, offset 60.
    const wire = writeValue({ name: 'datetimeoffset', scale: 7 }, '2026-01-01 01:00:00.0000000 +01:00');
    expect(wire.subarray(1, 6).toString('hex')).toBe('0000000000');
    expect(wire.readInt16LE(9)).toBe(60);
    expect(readValue({ name: 'datetimeoffset', scale: 7 }, new Cursor(wire))).toBe(
      '2026-01-01 01:00:00.0000000 +01:00',
    );
  });
});
