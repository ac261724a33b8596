// Text whose bytes its CCSID maps to no character is never decoded in silence: the exact decoder names
// the first such sequence (where it starts, its bytes, the CCSID), in single-byte, double-byte, mixed,
// UTF-8 and UTF-16 data, while IBM's own substitution characters stay mappings like any other.
import { describe, expect, it } from 'vitest';
import { decodeText, decodeTextExact, firstUnmapped } from '../../../lib/ibmi/ccsid';
import { decodeField } from '../../../lib/ibmi/recordImage';

const of = (...b: number[]) => Uint8Array.from(b);
const hex = (u: ReturnType<typeof firstUnmapped>) => u && Buffer.from(u.bytes).toString('hex');

describe('text with no character in its CCSID', () => {
  it('names the first byte a single-byte CCSID lacks, and decodes the rest exactly', () => {
    // CCSID 290 (Japanese Katakana) has no character at 0x57 or 0x59.
    expect(decodeTextExact(of(0xc1, 0xc2), 290)).toBe('AB');
    expect(() => decodeTextExact(of(0xc1, 0x57, 0x59), 290)).toThrow(
      new RangeError('byte 0x57 at offset 1 maps to no character in CCSID 290'),
    );
    expect(decodeText(of(0xc1, 0x57), 290)).toBe('A\ufffd');
    // SUB (0x3F) is IBM's own substitution character: a mapping (to U+001A), not a loss in reading.
    expect(decodeTextExact(of(0x3f), 37)).toBe('\u001a');
  });

  it('names a double-byte code with no character, and takes 0xFEFE for the substitution it is', () => {
    expect(() => decodeTextExact(of(0x42, 0xc1, 0x41, 0x59), 300)).toThrow(
      'bytes 0x4159 at offset 2 map to no character in CCSID 300',
    );
    expect(decodeTextExact(of(0xfe, 0xfe), 300)).toBe('\ufffd');
    expect(hex(firstUnmapped(of(0x42, 0xc1, 0x42), 300))).toBe('42');
  });

  it('says when an unmapped code is shift-out data of a mixed CCSID, and finds half a pair', () => {
    expect(() => decodeTextExact(of(0xc1, 0x0e, 0x42, 0xc1, 0x41, 0x59, 0x0f), 930)).toThrow(
      'bytes 0x4159 at offset 4 map to no character in CCSID 930 (shift-out data, double-byte CCSID 16684)',
    );
    expect(firstUnmapped(of(0x0e, 0x42, 0x0f), 939)).toMatchObject({ at: 1, doubleByte: 16684 });
    expect(decodeTextExact(of(0xc1, 0x0e, 0x42, 0xc1, 0x0f), 930)).toBe('A\uff21');
  });

  it('finds an invalid UTF-8 or UTF-16 sequence, and keeps a U+FFFD the text really holds', () => {
    expect(() => decodeTextExact(of(0x41, 0xc3, 0x28), 1208)).toThrow(
      'byte 0xC3 at offset 1 maps to no character in CCSID 1208',
    );
    expect(decodeTextExact(new Uint8Array(Buffer.from('a\ufffdb', 'utf8')), 1208)).toBe('a\ufffdb');
    // A lone high surrogate (0xD800) in UTF-16.
    expect(firstUnmapped(of(0x00, 0x41, 0xd8, 0x00, 0x00, 0x42), 1200)).toMatchObject({ at: 2 });
    expect(decodeTextExact(of(0x00, 0x41, 0xff, 0xfd), 13488)).toBe('A\ufffd');
  });

  it('is what a record image field decodes to, unless asked to replace', () => {
    const char = { kind: 'char', length: 3, ccsid: 424 } as const;
    expect(() => decodeField(char, of(0xc1, 0x70, 0xc2))).toThrow(/byte 0x70 at offset 1 .* CCSID 424/);
    expect(decodeField(char, of(0xc1, 0x70, 0xc2), true)).toBe('A\ufffdB');
  });
});
