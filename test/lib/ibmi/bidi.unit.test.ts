// Arabic (420) and Hebrew (424) as IBM's Toolbox for Java reads and writes them: logical order, 420
// unshaped, against what the Toolbox itself answered (test/fixtures/toolbox/bidi.json, written by
// scripts/gen-bidi-samples.py through the Toolbox's CharConverter). Never texts our encoder made.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FORMS_IN_420 } from '../../../lib/ibmi/arabicShaping';
import { logicalToVisual, visualToLogical } from '../../../lib/ibmi/bidi';
import { decodeText, encodeText } from '../../../lib/ibmi/ccsid';

interface BidiSample {
  ccsid: 420 | 424;
  /** `read`: the Toolbox decoded `hex` into `text`; `write`: it encoded `text` into `hex`. */
  way: 'read' | 'write';
  hex: string;
  text: string;
}
const samples = JSON.parse(readFileSync('test/fixtures/toolbox/bidi.json', 'utf8')) as BidiSample[];
const bytes = (h: string) => new Uint8Array(Buffer.from(h, 'hex'));
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex').toUpperCase();
// The Toolbox reads a byte with no character as SUB; ours is U+FFFD, and the agent keeps such text aside.
const asToolbox = (text: string) => text.replace(/\ufffd/g, '\u001a');

describe('bidi text as the Toolbox reads it', () => {
  for (const ccsid of [424, 420] as const) {
    const reads = samples.filter((s) => s.ccsid === ccsid && s.way === 'read');
    it(`reads every ${ccsid} sample in the Toolbox's order and letters (${reads.length} byte strings)`, () => {
      expect(reads.length).toBeGreaterThan(250);
      const wrong = reads.filter(
        (s) => asToolbox(visualToLogical(decodeText(bytes(s.hex), ccsid), ccsid)) !== s.text,
      );
      expect(wrong.map((s) => s.hex)).toEqual([]);
    });

    const writes = samples.filter((s) => s.ccsid === ccsid && s.way === 'write');
    it(`writes every ${ccsid} sample as the Toolbox's bytes (${writes.length} texts)`, () => {
      expect(writes.length).toBeGreaterThan(250);
      const wrong = writes.filter((s) => hex(encodeText(logicalToVisual(s.text, ccsid), ccsid)) !== s.hex);
      expect(wrong.map((s) => s.text)).toEqual([]);
    });
  }

  it('reads the texts a DBA knows in logical order', () => {
    const read = (h: string, ccsid: number) => visualToLogical(decodeText(bytes(h), ccsid), ccsid);
    // Stored as a 5250 screen shows them: the words reversed, the numbers not.
    expect(decodeText(bytes('5554466240F1F24055465469'), 424)).toBe('םלוע 12 םולש');
    expect(read('5554466240F1F24055465469', 424)).toBe('שלום 12 עולם');
    // 420: shaped forms read as letters, lam-alef as two letters taking the blank left for it.
    expect(read('40BBB978', 420)).toBe('سلام');
    expect(read('8182834057597075BC40848586', 420)).toBe('abc مرحبا def');
    // Other bytes and other CCSIDs are untouched.
    expect(visualToLogical('abc', 37)).toBe('abc');
    expect(logicalToVisual('שלום', 37)).toBe('שלום');
  });

  it('knows every presentation form the Toolbox’s 420 table holds', () => {
    const forms = new Set<number>();
    for (let b = 0x40; b < 0x100; b++) {
      const c = decodeText(new Uint8Array([b]), 420).charCodeAt(0);
      if (c >= 0xfe70 && c <= 0xfeff) forms.add(c);
    }
    expect([...forms].sort()).toEqual([...FORMS_IN_420].sort());
  });
});
