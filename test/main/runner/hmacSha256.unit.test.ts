// The hash mask's own HMAC-SHA-256 (main/runner/shaping/hmacSha256.ts) against Node's createHmac:
// texts of every length around the block boundaries, any Unicode (lone surrogates too), bytes, and
// keys short, empty and longer than a block. A mask that hashed otherwise would change every value.
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hmacSha256 } from '../../../main/runner/shaping/hmacSha256';

const reference = (key: string, value: string | Uint8Array) =>
  createHmac('sha256', key)
    .update(typeof value === 'string' ? Buffer.from(value, 'utf8') : value)
    .digest('hex');

describe('HMAC-SHA-256 for the hash mask', () => {
  it('matches createHmac on texts of every length about the block boundaries', () => {
    const hmac = hmacSha256('salt-of-the-shaping-suite-7f3a');
    for (let n = 0; n <= 200; n++) {
      const value = 'é'.repeat(n % 7) + 'x'.repeat(n);
      expect(hmac.text(value), `length ${n}`).toBe(reference('salt-of-the-shaping-suite-7f3a', value));
    }
    // RFC 4231, test case 2: key "Jefe".
    expect(hmacSha256('Jefe').text('what do ya want for nothing?')).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });

  it('matches createHmac for any key, text and bytes', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 100 }),
        fc.string({ unit: 'binary', maxLength: 300 }),
        fc.uint8Array({ maxLength: 300 }),
        (key, text, bytes) => {
          const hmac = hmacSha256(key);
          expect(hmac.text(text)).toBe(reference(key, text));
          expect(hmac.bytes(bytes)).toBe(reference(key, bytes));
          // The instance's buffer is reused: a shorter value after a longer one is still its own.
          expect(hmac.text('a')).toBe(reference(key, 'a'));
        },
      ),
      { numRuns: 500 },
    );
  });
});
