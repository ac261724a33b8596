// The compiled record-image decoder against the general one (decodeRecord, then formValue): the same
// row, or the same error, for random values of every type, for every date and time format, and for
// images with a byte changed at random (bad digits, bad signs, dates out of range, odd separators).
import { describe, expect, it } from 'vitest';
import { compileImageDecoder } from '../../../../main/agents/journal/imageDecoder';
import { formValue, type ValueForm } from '../../../../main/agents/journal/values';
import { encodeRecord } from '../../../../lib/ibmi/recordEncode';
import { decodeRecord, type FieldDef, type FieldValue } from '../../../../lib/ibmi/recordImage';
import { DATE_FORMATS, TIME_FORMATS } from '../../../../lib/ibmi/dateTime';
import { encodeText } from '../../../../lib/ibmi/ccsid';
import type { Row } from '../../../../main/agents/source';

const iso: ValueForm = { dateFormat: 'iso', timeFormat: 'iso', utcOffsetMinutes: null };

function reference(fields: FieldDef[], image: Uint8Array, nulls: string, form: ValueForm): Row {
  const decoded = decodeRecord(fields, image, nulls);
  const row: Row = {};
  for (const f of fields) row[f.name] = formValue(f, decoded[f.name] ?? null, form);
  return row;
}

/** The row, or the error's message: what a caller would see. */
function outcome(read: () => Row): Row | string {
  try {
    return read();
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

/** A small seeded generator: the same cases every run. */
function random(seed: number) {
  let s = seed;
  const next = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const int = (n: number) => Math.floor(next() * n);
  const digits = (n: number) => Array.from({ length: n }, () => int(10)).join('');
  return { next, int, digits };
}

const FIELDS: FieldDef[] = [
  { name: 'SMALL', type: { kind: 'binary', bytes: 2 } },
  { name: 'INT', type: { kind: 'binary', bytes: 4 } },
  { name: 'BIG', type: { kind: 'binary', bytes: 8 } },
  { name: 'SCALED', type: { kind: 'binary', bytes: 4, scale: 2 } },
  { name: 'REAL', type: { kind: 'float', bytes: 4 } },
  { name: 'DOUBLE', type: { kind: 'float', bytes: 8 } },
  { name: 'P0', type: { kind: 'packed', precision: 1, scale: 0 } },
  { name: 'P92', type: { kind: 'packed', precision: 9, scale: 2 } },
  { name: 'P1515', type: { kind: 'packed', precision: 15, scale: 15 } },
  { name: 'P3110', type: { kind: 'packed', precision: 31, scale: 10 } },
  { name: 'Z70', type: { kind: 'zoned', precision: 7, scale: 0 } },
  { name: 'Z155', type: { kind: 'zoned', precision: 15, scale: 5 } },
  { name: 'Z204', type: { kind: 'zoned', precision: 20, scale: 4 } },
  { name: 'TEXT37', type: { kind: 'char', length: 12, ccsid: 37 } },
  { name: 'TEXT273', type: { kind: 'varchar', length: 30, ccsid: 273 }, nullable: true },
  { name: 'CYRILLIC', type: { kind: 'varchar', length: 10, ccsid: 1025 } },
  { name: 'MIXED', type: { kind: 'varchar', length: 20, ccsid: 930 } },
  { name: 'UNICODE', type: { kind: 'char', length: 8, ccsid: 1208 } },
  { name: 'STAMP', type: { kind: 'timestamp', ccsid: 37 } },
  { name: 'STAMP9', type: { kind: 'timestamp', ccsid: 37, precision: 9 } },
  { name: 'FLAG', type: { kind: 'boolean' } },
  { name: 'BYTES', type: { kind: 'varhex', length: 6 } },
  ...DATE_FORMATS.map((format): FieldDef => ({
    name: `D_${format}`,
    type: { kind: 'date', format, separator: format === 'dmy' ? '-' : '/', ccsid: 37 },
  })),
  ...TIME_FORMATS.map((format): FieldDef => ({
    name: `T_${format}`,
    type: { kind: 'time', format, separator: format === 'hms' ? ',' : ':', ccsid: 273 },
  })),
];

function values(r: ReturnType<typeof random>): Record<string, FieldValue> {
  const sign = () => (r.int(2) ? '-' : '');
  const date = () => {
    const y = 1940 + r.int(100);
    const m = 1 + r.int(12);
    const d = 1 + r.int(m === 2 ? 28 : 30);
    return `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
  };
  const two = (n: number) => String(r.int(n)).padStart(2, '0');
  const time = () => `${two(24)}:${two(60)}:${two(60)}`;
  const dates = Object.fromEntries(DATE_FORMATS.map((f) => [`D_${f}`, date()]));
  const times = Object.fromEntries(TIME_FORMATS.map((f) => [`T_${f}`, time()]));
  return {
    SMALL: BigInt(r.int(65536) - 32768),
    INT: BigInt(r.int(2 ** 31) * (r.int(2) ? -1 : 1)),
    BIG: BigInt(`${sign()}${r.digits(18)}`),
    SCALED: `${sign()}${r.digits(5)}.${r.digits(2)}`,
    REAL: Math.fround((r.next() - 0.5) * 1e6),
    DOUBLE: (r.next() - 0.5) * 1e12,
    P0: `${sign()}${r.digits(1)}`,
    P92: `${sign()}${r.digits(r.int(8))}.${r.digits(2)}`,
    P1515: `${sign()}0.${r.digits(15)}`,
    P3110: `${sign()}${r.digits(21)}.${r.digits(10)}`,
    Z70: `${sign()}${r.digits(1 + r.int(7))}`,
    Z155: `${sign()}${r.digits(10)}.${r.digits(5)}`,
    Z204: `${sign()}${r.digits(16)}.${r.digits(4)}`,
    TEXT37: `Ab ${r.digits(3)}`,
    TEXT273: r.int(4) ? `Größe ${r.digits(r.int(20))}` : null,
    CYRILLIC: `Ж${r.digits(3)}`,
    MIXED: `ｱ${r.digits(2)}日本`,
    UNICODE: `é${r.digits(2)}`,
    STAMP: `${date()}-${two(24)}.${two(60)}.${two(60)}.${r.digits(6)}`,
    STAMP9: `${date()}-10.00.00.${r.digits(9)}`,
    FLAG: r.int(2) === 1,
    BYTES: Uint8Array.from({ length: r.int(7) }, () => r.int(256)),
    ...dates,
    ...times,
  };
}

describe('the compiled record-image decoder', () => {
  it('gives the general decoder’s row for 2,000 records of every type and format', () => {
    const r = random(7);
    const decoder = compileImageDecoder(FIELDS, iso);
    for (let i = 0; i < 2000; i++) {
      const { image, nullIndicators } = encodeRecord(FIELDS, values(r));
      const row = decoder.decode(image, nullIndicators);
      expect(row).toEqual(reference(FIELDS, image, nullIndicators, iso));
    }
  });

  it('gives the same value or the same error when a byte of an image is changed at random', () => {
    const r = random(11);
    const decoder = compileImageDecoder(FIELDS, iso);
    let errors = 0;
    for (let i = 0; i < 3000; i++) {
      const { image, nullIndicators } = encodeRecord(FIELDS, values(r));
      image[r.int(image.length)] = r.int(256);
      const fast = outcome(() => decoder.decode(image, nullIndicators));
      expect(fast).toEqual(outcome(() => reference(FIELDS, image, nullIndicators, iso)));
      if (typeof fast === 'string') errors++;
    }
    // Many changed bytes make errors (a digit, a sign, a date), many do not: both kinds were compared.
    expect(errors).toBeGreaterThan(300);
    expect(errors).toBeLessThan(2700);
  });

  it('refuses the dates and times Db2 never holds exactly as the general decoder does', () => {
    const cases: [FieldDef['type'], string[]][] = [
      [
        { kind: 'date', format: 'iso', ccsid: 37 },
        ['2023-02-29', '2024-02-29', '2026-04-31', '2026-13-01', '0000-01-01', '0001-01-01', '2026-1a-01'],
      ],
      [
        { kind: 'date', format: 'mdy', separator: '/', ccsid: 37 },
        ['02/29/23', '02/29/24', '00/10/26', '12/32/39'],
      ],
      [{ kind: 'date', format: 'eur', ccsid: 37 }, ['31.06.2026', '30.06.2026', '29.02.1900', '29.02.2000']],
      [{ kind: 'date', format: 'ymd', separator: '-', ccsid: 37 }, ['39-12-31', '40-01-01', '26-11-00']],
      [
        { kind: 'time', format: 'iso', ccsid: 37 },
        ['24.00.00', '25.00.00', '12.60.00', '12.00.60', '1a.00.00'],
      ],
      [{ kind: 'time', format: 'hms', separator: ',', ccsid: 37 }, ['23,59,59', '23,59,5 ']],
    ];
    for (const [type, texts] of cases) {
      const fields: FieldDef[] = [{ name: 'F', type }];
      const decoder = compileImageDecoder(fields, iso);
      for (const text of texts) {
        const image = encodeText(text, 37);
        expect(
          outcome(() => decoder.decode(image, '0')),
          text,
        ).toEqual(outcome(() => reference(fields, image, '0', iso)));
      }
    }
  });

  it('reads digits of packed and zoned fields at their widest exactly, and signs of zero away', () => {
    const fields: FieldDef[] = [
      { name: 'P', type: { kind: 'packed', precision: 15, scale: 2 } },
      { name: 'Z', type: { kind: 'zoned', precision: 15, scale: 0 } },
    ];
    const decoder = compileImageDecoder(fields, iso);
    const read = (P: string, Z: string) => {
      const { image, nullIndicators } = encodeRecord(fields, { P, Z });
      return decoder.decode(image, nullIndicators);
    };
    expect(read('9999999999999.99', '-999999999999999')).toEqual({
      P: '9999999999999.99',
      Z: '-999999999999999',
    });
    expect(read('-0.00', '-0')).toEqual({ P: '0.00', Z: '0' });
    expect(read('-0.01', '7')).toEqual({ P: '-0.01', Z: '7' });
  });

  it('marks fields null by the indicators, whatever their bytes, and keeps a timestamp’s UTC form', () => {
    const fields: FieldDef[] = [
      { name: 'NOTE', type: { kind: 'char', length: 4, ccsid: 37 }, nullable: true },
      { name: 'AT', type: { kind: 'timestamp', ccsid: 37 } },
    ];
    const { image } = encodeRecord(fields, { NOTE: 'abcd', AT: '2026-11-22-10.00.00.123456' });
    const utc: ValueForm = { ...iso, utcOffsetMinutes: 60 };
    expect(compileImageDecoder(fields, utc).decode(image, '10')).toEqual({
      NOTE: null,
      AT: '2026-11-22 09:00:00.123456',
    });
    expect(compileImageDecoder(fields, iso).decode(image, '00')).toEqual({
      NOTE: 'abcd',
      AT: '2026-11-22 10:00:00.123456',
    });
  });
});
