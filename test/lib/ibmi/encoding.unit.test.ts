// IBM i record-image encodings, checked byte for byte against examples worked out by hand from IBM's
// documented formats (the DATFMT keyword's table gives June 21, 1990 in every format and as packed and
// zoned fields), not against any decoder of this project.
import { describe, expect, it } from 'vitest';
import { decodeText, encodeText } from '../../../lib/ibmi/ccsid';
import {
  decodePacked,
  decodeZoned,
  encodePacked,
  encodeZoned,
  packedLength,
} from '../../../lib/ibmi/decimal';
import { formatDate, formatTime, parseDate, parseTime, type DateFormat } from '../../../lib/ibmi/dateTime';
import { encodeRecord } from '../../../lib/ibmi/recordEncode';
import { decodeRecord, recordLength, type FieldDef } from '../../../lib/ibmi/recordImage';
import { clString, ibmiName } from '../../../lib/ibmi/connection';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex').toUpperCase();
const bytes = (h: string) => new Uint8Array(Buffer.from(h.replace(/ /g, ''), 'hex'));

describe('EBCDIC', () => {
  it('CCSID 37 (US English): letters, digits, punctuation', () => {
    expect(hex(encodeText('Hello, IBM i!', 37))).toBe('C8859393966B40C9C2D440895A');
    expect(decodeText(bytes('C8 85 93 93 96 6B 40 C9 C2 D4 40 89 5A'), 37)).toBe('Hello, IBM i!');
    expect(hex(encodeText('0129 $#@', 37))).toBe('F0F1F2F9405B7B7C');
  });

  it('the same text differs between CCSIDs: brackets in 37 and 500, umlauts in 273', () => {
    expect(hex(encodeText('[]', 37))).toBe('BABB');
    expect(hex(encodeText('[]', 500))).toBe('4A5A');
    expect(hex(encodeText('ÄÖÜäöüß§', 273))).toBe('4AE05AC06AD0A17C');
    expect(decodeText(bytes('4A E0 5A'), 273)).toBe('ÄÖÜ');
  });

  it('the euro sign is in CCSID 1140 and becomes SUB (0x3F) in 37', () => {
    expect(hex(encodeText('€', 1140))).toBe('9F');
    expect(hex(encodeText('€', 37))).toBe('3F');
  });

  it('refuses a CCSID it has no table for, naming the ones it has', () => {
    expect(() => encodeText('x', 290_000)).toThrow(
      /CCSID 290000 is not one the journal agent decodes \(37, 273, .*1208, .*\)/,
    );
  });
});

describe('packed decimal (DDS type P)', () => {
  it('writes digits as nibbles and the sign last: F positive (as IBM i writes it), D negative', () => {
    expect(hex(encodePacked('123.45', 5, 2))).toBe('12345F');
    expect(hex(encodePacked('-123.45', 5, 2))).toBe('12345D');
    expect(hex(encodePacked('7', 4, 0))).toBe('00007F');
    // IBM's example: June 21, 1996 as *MDY in a packed 7,0 field is '0062196F'X.
    expect(hex(encodePacked('62196', 7, 0))).toBe('0062196F');
    expect(packedLength(7)).toBe(4);
  });

  it('reads any positive (A C E F) or negative (B D) sign, exactly', () => {
    expect(decodePacked(bytes('12 34 5F'), 2)).toBe('123.45');
    expect(decodePacked(bytes('12 34 5C'), 2)).toBe('123.45');
    expect(decodePacked(bytes('12 34 5D'), 2)).toBe('-123.45');
    expect(decodePacked(bytes('12 34 5B'), 2)).toBe('-123.45');
    expect(decodePacked(bytes('00 00 0D'), 2)).toBe('0.00');
    expect(decodePacked(bytes('99 99 99 99 99 99 99 99 99 99 99 99 99 99 99 9F'), 10)).toBe(
      '999999999999999999999.9999999999',
    );
  });

  it('refuses what does not fit, and bad nibbles', () => {
    expect(() => encodePacked('1234.5', 5, 2)).toThrow('does not fit in 5,2');
    expect(() => encodePacked('1.234', 5, 2)).toThrow('more than 2 decimal places');
    expect(() => decodePacked(bytes('1A 3F'), 0)).toThrow('bad digit nibble');
    expect(() => decodePacked(bytes('12 31'), 0)).toThrow('bad sign nibble');
  });
});

describe('zoned decimal (DDS type S)', () => {
  it('writes one EBCDIC digit per byte, the sign in the zone of the last', () => {
    // IBM's example: *MDY June 21, 1996 in a zoned 6,0 field reads 062196.
    expect(hex(encodeZoned('62196', 6, 0))).toBe('F0F6F2F1F9F6');
    expect(hex(encodeZoned('-1.5', 3, 1))).toBe('F0F1D5');
    expect(decodeZoned(bytes('F0 F1 D5'), 1)).toBe('-1.5');
    expect(decodeZoned(bytes('F1 F2 C3'), 0)).toBe('123');
  });
});

describe('dates and times in a field format', () => {
  // IBM's DATFMT table: June 21, 1990 in each format with the default separators.
  const june21: [DateFormat, string][] = [
    ['mdy', '06/21/90'],
    ['dmy', '21/06/90'],
    ['ymd', '90/06/21'],
    ['julian', '90/172'],
    ['iso', '1990-06-21'],
    ['usa', '06/21/1990'],
    ['eur', '21.06.1990'],
    ['jis', '1990-06-21'],
  ];
  it.each(june21)('%s: %s, and back', (format, text) => {
    expect(formatDate('1990-06-21', format)).toBe(text);
    expect(parseDate(text, format)).toBe('1990-06-21');
  });

  it('two-digit years hold 1940 to 2039, and a separator can be chosen', () => {
    expect(formatDate('2039-12-31', 'julian')).toBe('39/365');
    expect(parseDate('40/001', 'julian')).toBe('1940-01-01');
    expect(() => formatDate('2040-01-01', 'mdy')).toThrow('1940 to 2039');
    expect(formatDate('2026-03-01', 'dmy', '-')).toBe('01-03-26');
    expect(() => parseDate('02/30/26', 'mdy')).toThrow('not a valid mdy date');
  });

  it('times: *ISO and *EUR hh.mm.ss, *JIS and *HMS hh:mm:ss, *USA hh:mm AM/PM', () => {
    expect(formatTime('13:05:09', 'iso')).toBe('13.05.09');
    expect(formatTime('13:05:09', 'eur')).toBe('13.05.09');
    expect(formatTime('13:05:09', 'jis')).toBe('13:05:09');
    expect(formatTime('13:05:09', 'hms')).toBe('13:05:09');
    expect(formatTime('13:05:09', 'usa')).toBe('01:05 PM');
    expect(formatTime('00:30:00', 'usa')).toBe('12:30 AM');
    expect(parseTime('01:05 PM', 'usa')).toBe('13:05:00');
    expect(parseTime('13.05.09', 'iso')).toBe('13:05:09');
  });
});

describe('a record image in its buffer layout', () => {
  const fields: FieldDef[] = [
    { name: 'CUSNO', type: { kind: 'packed', precision: 5, scale: 0 } },
    { name: 'NAME', type: { kind: 'char', length: 6, ccsid: 37 } },
    { name: 'BAL', type: { kind: 'zoned', precision: 5, scale: 2 } },
    { name: 'QTY', type: { kind: 'binary', bytes: 4 } },
    { name: 'OPENED', type: { kind: 'date', format: 'mdy', separator: '/', ccsid: 37 } },
    { name: 'NOTE', type: { kind: 'varchar', length: 4, ccsid: 37 } },
    { name: 'AT', type: { kind: 'time', format: 'hms', separator: ':', ccsid: 37 } },
    { name: 'CLOSED', type: { kind: 'date', format: 'julian', separator: '/', ccsid: 37 }, nullable: true },
  ];
  const values = {
    CUSNO: '42',
    NAME: 'Ada',
    BAL: '-12.34',
    QTY: 1000n,
    OPENED: '1990-06-21',
    NOTE: 'hi',
    AT: '13:05:09',
    CLOSED: null,
  };
  // Worked out by hand: packed 00042F; 'Ada   ' in CCSID 37; zoned F0F1F2F3D4; 1000 big-endian;
  // '06/21/90' ('/' is 0x61); VARCHAR length 2, 'hi', two unused bytes; '13:05:09' (':' is 0x7A); a null
  // *JUL date holds its default '40/001'.
  const expected =
    '00042F' +
    'C18481404040' +
    'F0F1F2F3D4' +
    '000003E8' +
    'F0F661F2F161F9F0' +
    '000288890000' +
    'F1F37AF0F57AF0F9' +
    'F4F061F0F0F1';

  it('is written field after field, with the null-value indicators', () => {
    const { image, nullIndicators } = encodeRecord(fields, values);
    expect(hex(image)).toBe(expected);
    expect(image.length).toBe(recordLength(fields));
    expect(nullIndicators).toBe('00000001');
  });

  it('is read back to the same values, the null field null whatever its bytes', () => {
    expect(decodeRecord(fields, bytes(expected), '00000001')).toEqual({
      ...values,
      NAME: 'Ada   ',
      CUSNO: '42',
    });
  });

  it('refuses a null in a field that does not allow it', () => {
    expect(() => encodeRecord(fields, { ...values, NAME: null })).toThrow(
      'Field NAME does not allow the null value.',
    );
  });
});

describe('a record image of the wider types', () => {
  const fields: FieldDef[] = [
    { name: 'TITLE', type: { kind: 'graphic', length: 3, ccsid: 1200 } },
    { name: 'CITY', type: { kind: 'vargraphic', length: 3, ccsid: 300 } },
    { name: 'MIXED', type: { kind: 'char', length: 8, ccsid: 939 } },
    { name: 'RAW', type: { kind: 'varhex', length: 3 } },
    { name: 'AT0', type: { kind: 'timestamp', ccsid: 37, precision: 0 } },
    { name: 'AT12', type: { kind: 'timestamp', ccsid: 37, precision: 12 } },
    { name: 'PRICE', type: { kind: 'binary', bytes: 4, scale: 2 } },
    { name: 'LOSS', type: { kind: 'binary', bytes: 2, scale: 2 } },
  ];
  // Worked out by hand: UTF-16BE 'Aü' and a blank; VARGRAPHIC length 2 then 東京 as ICU writes them in
  // 939's double-byte half (0x4557 0x4575) and one unused pair; 東京 in mixed 939 between SO and SI, two
  // blanks; VARBINARY length 2, AB CD, one unused byte; '2026-11-24-10.11.12' in CCSID 37 without and
  // with twelve fraction digits; 12345 and -1 as binary with two decimal positions.
  const stamp = 'F2F0F2F660F1F160F2F460F1F04BF1F14BF1F2';
  const image =
    '004100FC0020' +
    '0002' +
    '45574575' +
    '0000' +
    '0E45574575' +
    '0F4040' +
    '0002ABCD00' +
    stamp +
    stamp +
    '4B' +
    'F1F2F3F4F5F6F7F8F9F0F1F2' +
    '00003039' +
    'FFFF';

  it('decodes each field exactly', () => {
    expect(decodeRecord(fields, bytes(image))).toEqual({
      TITLE: 'Aü ',
      CITY: '東京',
      MIXED: '東京  ',
      RAW: bytes('ABCD'),
      AT0: '2026-11-24-10.11.12',
      AT12: '2026-11-24-10.11.12.123456789012',
      PRICE: '123.45',
      LOSS: '-0.01',
    });
  });

  it('is what the simulated IBM i writes for those values', () => {
    const { image: written } = encodeRecord(fields, {
      TITLE: 'Aü',
      CITY: '東京',
      MIXED: '東京',
      RAW: bytes('ABCD'),
      AT0: '2026-11-24-10.11.12',
      AT12: '2026-11-24-10.11.12.123456789012',
      PRICE: '123.45',
      LOSS: '-0.01',
    });
    expect(hex(written)).toBe(image);
  });

  it('refuses an image shorter than its layout, naming both lengths', () => {
    expect(() => decodeRecord(fields, bytes(image).subarray(0, 20))).toThrow(
      `The record image is 20 bytes; its layout takes ${recordLength(fields)}.`,
    );
  });
});

describe('BOOLEAN and ROWID in a record image', () => {
  const fields: FieldDef[] = [
    { name: 'ON', type: { kind: 'boolean' } },
    { name: 'OFF', type: { kind: 'boolean' } },
    { name: 'RID', type: { kind: 'rowid' } },
    { name: 'N', type: { kind: 'binary', bytes: 2 } },
  ];
  // IBM's Toolbox for Java (AS400Boolean) writes true as x'F1' and false as x'F0'. A ROWID is bit data
  // with length attribute 40, held as a 2-byte length and 40 bytes: here 3 bytes used, 37 unused. Then 7.
  const image = 'F1' + 'F0' + '0003' + 'A1B2C3' + '00'.repeat(37) + '0007';

  it('decodes each field exactly, and the fields after a ROWID at their offsets', () => {
    expect(recordLength(fields)).toBe(1 + 1 + 42 + 2);
    expect(decodeRecord(fields, bytes(image))).toEqual({ ON: true, OFF: false, RID: bytes('A1B2C3'), N: 7n });
  });

  it('is what the simulated IBM i writes for those values', () => {
    const { image: written } = encodeRecord(fields, { ON: true, OFF: false, RID: bytes('A1B2C3'), N: 7n });
    expect(hex(written)).toBe(image);
  });

  it('refuses a BOOLEAN byte Db2 does not write, naming it, rather than guessing', () => {
    expect(() => decodeRecord(fields, bytes(`40${image.slice(2)}`))).toThrow(
      "A BOOLEAN field holds x'40'; Db2 for i writes x'F1' (true) or x'F0' (false).",
    );
  });
});

describe('names and strings on their way to a CL command', () => {
  it('accepts IBM i names, upper-cased, and refuses anything that could change the command', () => {
    expect(ibmiName('sync', 'Library')).toBe('SYNC');
    expect(ibmiName('$JRN#1', 'Journal')).toBe('$JRN#1');
    for (const bad of ['SYNC) DLTLIB(QGPL', "A'B", 'TOOLONGNAME1', '1ABC', 'A B', ''])
      expect(() => ibmiName(bad, 'Library')).toThrow('is not an IBM i name');
    expect(clString("O'Brien")).toBe("'O''Brien'");
  });
});

describe('LOB columns in a record image', () => {
  // IBM's example ("Display layout of LOB columns"): CHAR(10), CLOB(40K), BLOB(10M) — the CLOB takes 22
  // bytes of zeros and 16 of *POINTER, the BLOB 16 and 16, each pointer on a 16-byte boundary.
  const fields: FieldDef[] = [
    { name: 'ONE', type: { kind: 'char', length: 10, ccsid: 37 } },
    { name: 'TWO', type: { kind: 'lob', lob: 'CLOB', length: 40 * 1024, ccsid: 37 } },
    {
      name: 'THREE',
      type: { kind: 'lob', lob: 'BLOB', length: 10 * 1024 * 1024, ccsid: 65535 },
      nullable: true,
    },
  ];

  it('spans IBM’s placeholder layout, and the fields after a LOB decode at their offsets', () => {
    const image = new Uint8Array(80);
    image.set(Buffer.from('C1C2C3C4C5C6C7C8C9C1', 'hex'), 0);
    const pointer = Buffer.from('5CD7D6C9D5E3C5D9' + '40'.repeat(8), 'hex'); // *POINTER in CCSID 37
    image.set(pointer, 32);
    image.set(pointer, 64);
    expect(recordLength(fields)).toBe(80);
    expect(decodeRecord(fields, image, '000')).toEqual({ ONE: 'ABCDEFGHIA', TWO: null, THREE: null });
    const after: FieldDef[] = [...fields, { name: 'FOUR', type: { kind: 'binary', bytes: 4 } }];
    const longer = new Uint8Array(84);
    longer.set(image);
    longer.set([0, 0, 0, 42], 80);
    expect(decodeRecord(after, longer, '0000').FOUR).toBe(42n);
  });

  it('the simulated IBM i writes the same placeholder', () => {
    const { image } = encodeRecord(fields, { ONE: 'ABCDEFGHIA', TWO: new Uint8Array(0), THREE: null });
    expect(Buffer.from(image.subarray(10, 32)).equals(Buffer.alloc(22))).toBe(true);
    expect(Buffer.from(image.subarray(32, 48)).toString('hex')).toBe('5cd7d6c9d5e3c5d9' + '40'.repeat(8));
    expect(Buffer.from(image.subarray(48, 64)).equals(Buffer.alloc(16))).toBe(true);
  });
});
