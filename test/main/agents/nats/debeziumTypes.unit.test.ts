// Every source type as Debezium's documented semantic types write it, exactly: decimals from their
// digits, dates and times from their text, int64 beyond 2^53 as digits; and the subject rule, which
// must map every name one-to-one and never onto the target's own subjects.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  columnCodec,
  decimalParts,
  epochDays,
  jsonText,
  unscaledBytes,
  ValueNotSendable,
} from '../../../../main/agents/nats/debeziumTypes';
import { escapeToken, unescapeToken } from '../../../../main/agents/nats/subjects';
import type { RowValue } from '../../../../main/agents/source';
import { tableRefOfText, tableText } from '../../../../shared/names';
import { decimalText } from '../../../helpers/debeziumConsumer';

const col = (sourceType: string, nullable = true) => ({ name: 'c', sourceType, nullable });
const send = (sourceType: string, v: RowValue, decimals: 'precise' | 'string' | 'double' = 'precise') => {
  const codec = columnCodec(col(sourceType), decimals);
  return { schema: codec.schema, value: jsonText(codec.encode(v)) };
};

/** A column of `type` holding `value` is sent as a `kind` field named `name`, written `json`. */
function sendsAs(type: string, value: RowValue, kind: string, name: string | undefined, json: string) {
  const { schema, value: sent } = send(type, value);
  expect(schema.type).toBe(kind);
  expect(schema.name).toBe(name);
  expect(sent).toBe(json);
}

describe('Debezium types from SQL Server columns', () => {
  it.each([
    ['bit', true, 'boolean', undefined, 'true'],
    ['tinyint', 255, 'int16', undefined, '255'],
    ['smallint', -32768, 'int16', undefined, '-32768'],
    ['int', 2147483647, 'int32', undefined, '2147483647'],
    ['bigint', 9223372036854775807n, 'int64', undefined, '9223372036854775807'],
    ['real', 1.5, 'float32', undefined, '1.5'],
    ['float', 0.1, 'float64', undefined, '0.1'],
    ['nvarchar(50)', 'beta £ ✓', 'string', undefined, '"beta £ ✓"'],
    [
      'uniqueidentifier',
      '6f9619ff-8b86-d011-b42d-00c04fc964ff',
      'string',
      undefined,
      '"6F9619FF-8B86-D011-B42D-00C04FC964FF"',
    ],
    ['xml', '<a/>', 'string', 'io.debezium.data.Xml', '"<a/>"'],
    ['date', '0001-01-01', 'int32', 'io.debezium.time.Date', '-719162'],
    ['time(3)', '23:59:59.999', 'int32', 'io.debezium.time.Time', '86399999'],
    ['time(6)', '00:00:01.000001', 'int64', 'io.debezium.time.MicroTime', '1000001'],
    ['time(7)', '12:00:00.1234567', 'int64', 'io.debezium.time.NanoTime', '43200123456700'],
    ['datetime', '2026-03-01 12:00:00.123', 'int64', 'io.debezium.time.Timestamp', '1772366400123'],
    [
      'datetime2(6)',
      '2026-03-01 12:00:00.123456',
      'int64',
      'io.debezium.time.MicroTimestamp',
      '1772366400123456',
    ],
    [
      'datetime2(7)',
      '2026-03-01 12:00:00.1234567',
      'int64',
      'io.debezium.time.NanoTimestamp',
      '1772366400123456700',
    ],
    [
      'datetimeoffset(7)',
      '2026-03-01T12:00:00.1234567+02:00',
      'string',
      'io.debezium.time.ZonedTimestamp',
      '"2026-03-01T12:00:00.1234567+02:00"',
    ],
    ['varbinary(10)', Uint8Array.from([0, 255, 16]), 'bytes', undefined, '"AP8Q"'],
  ] as const)('%s', sendsAs);

  it('sends a decimal as its unscaled bytes at the column scale, as text, or as a double', () => {
    expect(send('decimal(12,2)', '12.5').schema).toEqual({
      type: 'bytes',
      name: 'org.apache.kafka.connect.data.Decimal',
      version: 1,
      parameters: { scale: '2', 'connect.decimal.precision': '12' },
    });
    expect(JSON.parse(send('decimal(12,2)', '12.5').value)).toBe('BOI=');
    expect(decimalText('BOI=', 2)).toBe('12.50');
    expect(send('money', '-922337203685477.5808').schema.parameters).toEqual({
      scale: '4',
      'connect.decimal.precision': '19',
    });
    expect(decimalText(JSON.parse(send('money', '-922337203685477.5808').value) as string, 4)).toBe(
      '-922337203685477.5808',
    );
    expect(send('decimal(38,0)', '99999999999999999999999999999999999999', 'string').value).toBe(
      '"99999999999999999999999999999999999999"',
    );
    expect(send('decimal(5,2)', '1.25', 'double')).toEqual({ schema: { type: 'float64' }, value: '1.25' });
  });

  it('keeps every digit of any decimal through the bytes (precise mode)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 38n) + 1n, max: 10n ** 38n - 1n }),
        fc.integer({ min: 0, max: 10 }),
        (n, scale) => {
          const digits = (n < 0n ? -n : n).toString().padStart(scale + 1, '0');
          const text = `${n < 0n ? '-' : ''}${scale ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits}`;
          const sent = JSON.parse(send(`decimal(38,${scale})`, text).value) as string;
          expect(decimalText(sent, scale)).toBe(text);
        },
      ),
    );
  });

  it('refuses a value it cannot carry exactly, naming it', () => {
    expect(() => columnCodec(col('decimal(5,1)'), 'precise').encode('1.25')).toThrow(ValueNotSendable);
    expect(() => columnCodec(col('DECFLOAT(34)'), 'precise').encode('NaN')).toThrow(
      /choose "string" for Decimals/,
    );
  });
});

describe('Debezium types from IBM i columns', () => {
  it.each([
    ['INTEGER', 7, 'int32', undefined, '7'],
    ['BIGINT', -9223372036854775808n, 'int64', undefined, '-9223372036854775808'],
    ['DOUBLE', Number.NaN, 'float64', undefined, '"NaN"'],
    ['CHAR(10)', 'ÄÖÜ', 'string', undefined, '"ÄÖÜ"'],
    ['DATE', '9999-12-31', 'int32', 'io.debezium.time.Date', '2932896'],
    ['TIME', '13:14:15', 'int32', 'io.debezium.time.Time', '47655000'],
    [
      'TIMESTAMP(6)',
      '1900-01-01 00:00:00.000001',
      'int64',
      'io.debezium.time.MicroTimestamp',
      '-2208988799999999',
    ],
    [
      'TIMESTAMP(9)',
      '2026-03-01 12:00:00.123456789',
      'int64',
      'io.debezium.time.NanoTimestamp',
      '1772366400123456789',
    ],
    [
      'TIMESTAMP(12)',
      '2026-03-01 12:00:00.123456789012',
      'string',
      undefined,
      '"2026-03-01T12:00:00.123456789012"',
    ],
    ['BOOLEAN', false, 'boolean', undefined, 'false'],
    ['BINARY(2)', Uint8Array.from([0xc1, 0x40]), 'bytes', undefined, '"wUA="'],
  ] as const)('%s', sendsAs);

  it('sends DECFLOAT with its own scale (VariableScaleDecimal), exponent forms included', () => {
    const codec = columnCodec(col('DECFLOAT(34)'), 'precise');
    expect(codec.schema.name).toBe('io.debezium.data.VariableScaleDecimal');
    expect(codec.encode('1.5E+3')).toEqual({
      scale: 0,
      value: Buffer.from(unscaledBytes(1500n)).toString('base64'),
    });
    expect(codec.encode('-0.000123')).toEqual({
      scale: 6,
      value: Buffer.from(unscaledBytes(-123n)).toString('base64'),
    });
    expect(decimalParts('1.5E-3')).toEqual({ unscaled: 15n, scale: 4 });
  });
});

describe('dates', () => {
  it('counts days exactly from year 1 to 9999', () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('0001-01-01T00:00:00Z'),
          max: new Date('9999-12-31T00:00:00Z'),
          noInvalidDate: true,
        }),
        (d) => {
          const expected = Math.floor(d.getTime() / 86_400_000);
          expect(epochDays(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate())).toBe(expected);
        },
      ),
    );
  });
});

describe('subject tokens', () => {
  it('map every name one-to-one, to tokens NATS takes, never to the target’s own', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, unit: 'grapheme' }), (name) => {
        const token = escapeToken(name);
        expect(token).toMatch(/^[A-Za-z0-9_=-]+$/);
        expect(unescapeToken(token)).toBe(name);
        expect(token).not.toMatch(/=(?![0-9A-F]{2})/);
      }),
    );
    expect(escapeToken('ORDER.LINES $#@~')).toBe('ORDER=2ELINES=20=24=23=40=7E');
    expect(escapeToken('=7E')).toBe('=3D7E');
    expect(escapeToken('£')).toBe('=C2=A3');
    expect(() => unescapeToken('=checkpoint')).toThrow(RangeError);
  });

  it('read a schema.table text back to its two names', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (schema, table) => {
        expect(tableRefOfText(tableText(schema, table))).toEqual({ schema, table });
      }),
    );
  });
});
