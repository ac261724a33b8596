// An event's JSON read without losing an int64, by JSON.parse where no literal can pass 2^53 and by the
// agent's own reader where one may.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseBigJson } from '../../../../main/agents/nats/jsonBig';

const INT64 = { min: -(2n ** 63n), max: 2n ** 63n - 1n };
const asRead = (n: bigint) =>
  n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;

/** What an integer literal past 2^53 reads as: JSON.stringify wrote a double's digits, or an exponent. */
const unsafeIntegersAsBigint = (_key: string, v: unknown) =>
  typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v) && !/e/i.test(String(v))
    ? BigInt(String(v))
    : v;

describe('parseBigJson', () => {
  it('reads an int64 past 2^53 as a bigint, exact, and a safe one as a number', () => {
    expect(parseBigJson('{"id":9223372036854775807,"n":[-9223372036854775808,9007199254740993]}')).toEqual({
      id: 9223372036854775807n,
      n: [-9223372036854775808n, 9007199254740993n],
    });
    expect(parseBigJson('{"id":9007199254740991,"x":1234567890123456.5}')).toEqual({
      id: 9007199254740991,
      x: 1234567890123456.5,
    });
  });

  it('leaves digits inside a string as they are, even where they look like a value', () => {
    expect(
      parseBigJson('{"s":"a:12345678901234567890,b","t":"[12345678901234567890]","n":9223372036854775807}'),
    ).toEqual({
      s: 'a:12345678901234567890,b',
      t: '[12345678901234567890]',
      n: 9223372036854775807n,
    });
    expect(parseBigJson('{"s":"\\u0001123","n":12345678901234567890}')).toEqual({
      s: '\u0001123',
      n: 12345678901234567890n,
    });
    expect(parseBigJson('{"code":"12345678901234567890","n":1}')).toEqual({
      code: '12345678901234567890',
      n: 1,
    });
  });

  it('keeps a "__proto__" key as a key, never as the prototype, on either path', () => {
    for (const text of ['{"__proto__":{"x":1}}', '{"__proto__":{"x":1},"id":9223372036854775807}']) {
      const read = parseBigJson(text) as Record<string, unknown>;
      expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
      expect(Object.keys(read)[0]).toBe('__proto__');
      expect(Object.getOwnPropertyDescriptor(read, '__proto__')?.value).toEqual({ x: 1 });
    }
  });

  it('names the offset of a fault, on either path', () => {
    expect(() => parseBigJson('{"a":1,}')).toThrow('A key was expected at offset 7');
    expect(() => parseBigJson('{"a":12345678901234567890,}')).toThrow('A key was expected at offset 26');
  });

  it('answers the values written, whatever the mix of int64s, strings and other JSON', () => {
    fc.assert(
      fc.property(
        fc.bigInt(INT64),
        fc.string(),
        fc.jsonValue(),
        fc.array(fc.bigInt(INT64), { maxLength: 4 }),
        (big, text, other, list) => {
          const json = `{"big":${big},"text":${JSON.stringify(text)},"other":${JSON.stringify(other)},"list":[${list.join(',')}]}`;
          expect(parseBigJson(json)).toEqual({
            big: asRead(big),
            text,
            other: JSON.parse(JSON.stringify(other), unsafeIntegersAsBigint) as unknown,
            list: list.map(asRead),
          });
        },
      ),
      { numRuns: 500 },
    );
  });
});
