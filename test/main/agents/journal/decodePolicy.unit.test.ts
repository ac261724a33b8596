// A record image the fast decoder refuses — blanks in a packed field, 00/00/00 in a *MDY date, as a
// program or CPYF FMTOPT(*NOCHK) writes them — read field by field under the agent's decode policy:
// kept aside (the field named, with its error) by default, or null, zero, the earliest date instead,
// each replacement counted. The other fields are read as ever.
import { describe, expect, it } from 'vitest';
import { compileImageDecoder } from '../../../../main/agents/journal/imageDecoder';
import { invalidValuesProblem, type ValueForm } from '../../../../main/agents/journal/values';
import { encodeRecord } from '../../../../lib/ibmi/recordEncode';
import { fieldSpan, type FieldDef } from '../../../../lib/ibmi/recordImage';
import { encodeText } from '../../../../lib/ibmi/ccsid';

const FIELDS: FieldDef[] = [
  { name: 'ID', type: { kind: 'binary', bytes: 4 } },
  { name: 'AMOUNT', type: { kind: 'packed', precision: 9, scale: 2 } },
  { name: 'SHIPPED', type: { kind: 'date', format: 'mdy', separator: '/', ccsid: 37 } },
  { name: 'NOTE', type: { kind: 'char', length: 6, ccsid: 37 } },
];

/** A good record, then `bytes` put over the field named, as a program would write them. */
function written(overwrite: Record<string, Uint8Array>): Uint8Array {
  const { image } = encodeRecord(FIELDS, { ID: 7, AMOUNT: '12.50', SHIPPED: '2024-03-01', NOTE: 'hello' });
  let at = 0;
  for (const f of FIELDS) {
    const bytes = overwrite[f.name];
    if (bytes) image.set(bytes, at);
    at += fieldSpan(f.type, at);
  }
  return image;
}

const BLANK_PACKED = new Uint8Array(5).fill(0x40);
const ZERO_DATE = encodeText('00/00/00', 37);
const form = (invalid?: ValueForm['invalid']): ValueForm => ({
  dateFormat: 'iso',
  timeFormat: 'iso',
  utcOffsetMinutes: null,
  ...(invalid && { invalid }),
});

describe('an image with data no SQL reader maps', () => {
  it('is refused by the fast decoder, and read field by field with the bad fields named', () => {
    const decoder = compileImageDecoder(FIELDS, form());
    const image = written({ AMOUNT: BLANK_PACKED, SHIPPED: ZERO_DATE });
    expect(() => decoder.decode(image, '0000')).toThrow(RangeError);
    const read = decoder.decodeLenient(image, '0000');
    expect(read.row).toEqual({ ID: 7, AMOUNT: null, SHIPPED: null, NOTE: 'hello ' });
    expect(read.replaced).toBe(0);
    expect(read.unread.map((u) => u.field)).toEqual(['AMOUNT', 'SHIPPED']);
    expect(read.unread[0]?.error).toMatch(/Packed decimal has a bad sign nibble 0/);
  });

  it('takes the policy’s values instead, each counted', () => {
    const image = written({ AMOUNT: BLANK_PACKED, SHIPPED: ZERO_DATE });
    const zero = compileImageDecoder(FIELDS, form({ decimals: 'zero', dates: 'earliest' }));
    expect(zero.decodeLenient(image, '0000')).toEqual({
      row: { ID: 7, AMOUNT: '0.00', SHIPPED: '0001-01-01', NOTE: 'hello ' },
      unread: [],
      replaced: 2,
    });
    const nulls = compileImageDecoder(FIELDS, form({ decimals: 'null', dates: 'keep-row-aside' }));
    const read = nulls.decodeLenient(image, '0000');
    expect(read.row.AMOUNT).toBeNull();
    expect(read.replaced).toBe(1);
    expect(read.unread.map((u) => u.field)).toEqual(['SHIPPED']);
  });

  it('takes a column’s own policy over the pipeline’s, a chosen date among them', () => {
    const image = written({ AMOUNT: BLANK_PACKED, SHIPPED: ZERO_DATE });
    const own = compileImageDecoder(
      FIELDS,
      form({ decimals: 'keep-row-aside', dates: 'keep-row-aside', columns: { SHIPPED: '1900-01-01' } }),
    );
    const read = own.decodeLenient(image, '0000');
    expect(read.row.SHIPPED).toBe('1900-01-01');
    expect(read.replaced).toBe(1);
    expect(read.unread.map((u) => u.field)).toEqual(['AMOUNT']);
  });

  it('refuses a column policy that does not fit, naming the column, the value and what it takes', () => {
    expect(
      invalidValuesProblem('SHOP.ORDERS', FIELDS, { AMOUNT: 'zero', SHIPPED: 'earliest' }),
    ).toBeUndefined();
    expect(invalidValuesProblem('SHOP.ORDERS', FIELDS, { AMOUNT: '1900-01-01' })).toBe(
      'SHOP.ORDERS invalidValues.AMOUNT = "1900-01-01": AMOUNT is DECIMAL(9,2), which takes keep-row-aside, null, zero.',
    );
    expect(invalidValuesProblem('SHOP.ORDERS', FIELDS, { SHIPPED: 'zero' })).toMatch(
      /SHIPPED is DATE, which takes keep-row-aside, null, earliest, a date YYYY-MM-DD\.$/,
    );
    expect(invalidValuesProblem('SHOP.ORDERS', FIELDS, { PRICE: 'null' })).toBe(
      'SHOP.ORDERS invalidValues.PRICE = "null": the file has no column PRICE (ID, AMOUNT, SHIPPED, NOTE).',
    );
  });

  it('leaves a good image to the fast decoder', () => {
    const decoder = compileImageDecoder(FIELDS, form({ decimals: 'zero', dates: 'earliest' }));
    expect(decoder.decode(written({}), '0000')).toEqual({
      ID: 7,
      AMOUNT: '12.50',
      SHIPPED: '2024-03-01',
      NOTE: 'hello ',
    });
  });
});
