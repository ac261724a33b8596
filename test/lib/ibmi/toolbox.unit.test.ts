// IBM i text as IBM's own Java client reads it: every code of every table IBM's Toolbox for Java
// (JTOpen) holds, and sample texts the Toolbox encoded, from the fixtures
// scripts/toolbox/DumpCcsidTables.java wrote (test/fixtures/toolbox/). Never bytes our encoder made.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ccsidKind, decodeText, encodeText, firstUnmapped, TEXT_CCSIDS } from '../../../lib/ibmi/ccsid';
import { MIXED } from '../../../lib/ibmi/ccsidTables';
import { logicalToVisual, visualToLogical } from '../../../lib/ibmi/bidi';

interface ToolboxSample {
  ccsid: number;
  text: string;
  hex: string;
  /** What the Toolbox's client reads. */
  read: string;
  /** The characters in the order the bytes hold them (differs from `read` for 420 and 424 only). */
  stored: string;
}
const samples = JSON.parse(readFileSync('test/fixtures/toolbox/samples.json', 'utf8')) as ToolboxSample[];
const bytes = (h: string) => new Uint8Array(Buffer.from(h, 'hex'));
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex').toUpperCase();
const BIDI = new Set([420, 424]);

interface Dump {
  mixed: Map<number, { single: number; double: number }>;
  tables: Map<string, Map<number, string>>;
}
function readDump(): Dump {
  const dump: Dump = { mixed: new Map(), tables: new Map() };
  let table = new Map<number, string>();
  for (const line of readFileSync('test/fixtures/toolbox/tables.txt', 'utf8').split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const [head, ...rest] = line.split(' ');
    if (head === 'mixed') {
      const [ccsid, single, double] = rest.map(Number) as [number, number, number];
      dump.mixed.set(ccsid, { single, double });
    } else if (head === 'single' || head === 'double') {
      table = new Map();
      dump.tables.set(`${head} ${rest[0]}`, table);
    } else {
      const [first, run] = (head as string).split('+');
      const code = parseInt(first as string, 16);
      for (let k = 0; k < Number(run ?? 1); k++)
        table.set(code + k, String.fromCodePoint(...rest.map((cp) => parseInt(cp, 16) + k)));
    }
  }
  return dump;
}
const dump = readDump();

describe('the tables of IBM’s Toolbox for Java', () => {
  it('are the ones the agent decodes with, every CCSID the Toolbox has', () => {
    expect([...dump.tables.keys()].length).toBeGreaterThan(40);
    for (const key of dump.tables.keys()) {
      const ccsid = Number(key.split(' ')[1]);
      expect(ccsidKind(ccsid), key).toBe(key.split(' ')[0]);
    }
    // Mixed CCSIDs switch between the halves the Toolbox pairs them with (930 reads 16684, not 300).
    for (const [ccsid, halves] of dump.mixed) expect(MIXED[ccsid], String(ccsid)).toEqual(halves);
    expect(dump.mixed.get(930)?.double).toBe(16684);
  });

  it('decode every code as the Toolbox does, and name the codes it has no character for', () => {
    let checked = 0;
    for (const [key, table] of dump.tables) {
      const [kind, ccsidText] = key.split(' ') as [string, string];
      const ccsid = Number(ccsidText);
      const width = kind === 'single' ? 1 : 2;
      const codes = kind === 'single' ? 256 : 0xff00;
      for (let code = kind === 'single' ? 0 : 0x4040; code < codes; code++) {
        if (width === 2 && ((code & 0xff) < 0x40 || (code & 0xff) === 0xff)) continue;
        const data = width === 1 ? new Uint8Array([code]) : new Uint8Array([code >> 8, code & 0xff]);
        const expected = table.get(code);
        // The Toolbox reads a byte it has no character for as SUB; SUB itself is 0x3F.
        const mapped = expected !== undefined && !(expected === '\u001a' && width === 1 && code !== 0x3f);
        if (mapped) expect(decodeText(data, ccsid), `${key} ${code.toString(16)}`).toBe(expected);
        else if (code !== 0xfefe)
          expect(firstUnmapped(data, ccsid), `${key} ${code.toString(16)}`).not.toBeNull();
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(7 * 36000);
  });

  it('hold what ICU’s older tables lack: the Cyrillic of 930, the Hangul of 933, the euro of 424', () => {
    expect(decodeText(bytes('0E41C00F'), 930)).toBe('А'); // U+0410, in 16684 only
    expect(decodeText(bytes('9C'), 424)).toBe('€');
    expect(decodeText(bytes('9A'), 1026)).toBe('ª'); // ICU 72: ₺
    const hangul = samples.find((s) => s.ccsid === 933 && s.text.startsWith('똠'));
    expect(hangul && decodeText(bytes(hangul.hex), 933)).toBe('똠방각하 쀍 뷁');
  });
});

describe('text the Toolbox encoded', () => {
  it('covers every text CCSID the Toolbox has a table for', () => {
    const sampled = new Set(samples.map((s) => s.ccsid));
    const standalone = TEXT_CCSIDS.filter((c) => ccsidKind(c) !== 'utf16' && ccsidKind(c) !== 'utf8');
    const halvesOnly = [5123, 833, 836, 28709, 8482, 1390];
    expect(standalone.filter((c) => !sampled.has(c) && !halvesOnly.includes(c))).toEqual([]);
  });

  for (const s of samples)
    it(`CCSID ${s.ccsid}: ${s.text}`, () => {
      // 420 and 424 come in stored (visual) order; the Toolbox's client reads them in logical order,
      // Arabic unshaped, and so does the agent (bidi.ts; test/lib/ibmi/bidi.unit.test.ts).
      if (BIDI.has(s.ccsid)) expect(s.read).not.toBe(s.stored);
      expect(decodeText(bytes(s.hex), s.ccsid)).toBe(BIDI.has(s.ccsid) ? s.stored : s.read);
      expect(visualToLogical(decodeText(bytes(s.hex), s.ccsid), s.ccsid)).toBe(s.read);
      expect(firstUnmapped(bytes(s.hex), s.ccsid)).toBeNull();
      // Encoded back exactly: the simulated IBM i writes the bytes the Toolbox writes.
      expect(hex(encodeText(s.stored, s.ccsid))).toBe(s.hex);
      expect(hex(encodeText(logicalToVisual(s.text, s.ccsid), s.ccsid))).toBe(s.hex);
    });
});
