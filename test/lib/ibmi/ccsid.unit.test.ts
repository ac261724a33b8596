// IBM i text in every CCSID the journal agent reads, decoded from bytes ICU's IBM converters produced
// (test/fixtures/ccsid-samples.json, written by scripts/gen-ccsid.py through uconv), never from bytes
// our own encoder made.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { asciiRoundTrips, ccsidKind, decodeText, encodeText, TEXT_CCSIDS } from '../../../lib/ibmi/ccsid';

interface Sample {
  kind: 'single' | 'mixed' | 'double' | 'unicode';
  text: string;
  hex: string;
}
const samples = JSON.parse(readFileSync('test/fixtures/ccsid-samples.json', 'utf8')) as Record<
  string,
  Sample
>;
const bytes = (h: string) => new Uint8Array(Buffer.from(h.replace(/ /g, ''), 'hex'));
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex').toUpperCase();

// The CCSIDs issue 19 names: each must decode.
const REQUIRED = [
  37,
  273,
  277,
  278,
  280,
  284,
  285,
  290,
  297,
  420,
  424,
  500,
  838,
  870,
  871,
  875,
  1025,
  1026,
  1027,
  1047,
  ...Array.from({ length: 10 }, (_, i) => 1140 + i),
  930,
  939,
  5026,
  5035,
  1399,
  935,
  937,
  933,
  300,
  4396,
  16684,
  834,
  835,
  837,
  1200,
  13488,
  1208,
];

describe('CCSIDs', () => {
  it('every CCSID customers’ files use is one the agent decodes, with a sample from ICU', () => {
    expect(REQUIRED.filter((c) => !TEXT_CCSIDS.includes(c))).toEqual([]);
    expect(REQUIRED.filter((c) => !samples[String(c)])).toEqual([]);
  });

  for (const [ccsid, s] of Object.entries(samples)) {
    it(`CCSID ${ccsid} (${s.kind}): ICU's bytes decode to the text`, () => {
      expect(decodeText(bytes(s.hex), Number(ccsid))).toBe(s.text);
    });
  }

  it('CCSID 1141 (Germany with euro) and 273 differ exactly at the euro sign', () => {
    const euro = samples['1141'] as Sample;
    expect(decodeText(bytes('9F'), 1141)).toBe('€');
    expect(decodeText(bytes('9F'), 273)).toBe('¤');
    expect(euro.text.endsWith('€')).toBe(true);
  });

  it('mixed data: shift-out and shift-in at the field’s edges, between words and padded with blanks', () => {
    // "大阪市 abc 123" as ICU writes it in 5035: SO, three pairs, SI, then single bytes.
    const osaka = bytes((samples['5035'] as Sample).hex);
    expect([osaka[0], osaka[7]]).toEqual([0x0e, 0x0f]);
    const city = osaka.subarray(0, 8);
    expect(decodeText(city, 5035)).toBe('大阪市');
    // Padded to 12 bytes with single-byte blanks, as a CHAR(12) field holds it.
    expect(decodeText(new Uint8Array([...city, 0x81, 0x82, 0x40, 0x40]), 5035)).toBe('大阪市ab  ');
    // The same double-byte half (4396 and 300 hold the same kanji) in 939 and 930.
    expect(decodeText(city, 939)).toBe('大阪市');
    expect(decodeText(city, 930)).toBe('大阪市');
    // Half a pair before SI is not text: it decodes to U+FFFD, never to a shifted neighbour.
    expect(decodeText(new Uint8Array([0x0e, 0x45, 0x0f, 0x81]), 939)).toBe('\ufffda');
  });

  it('a GRAPHIC field in UTF-16 (1200) keeps characters beyond the BMP; 13488 and UTF-8 as written', () => {
    expect(decodeText(bytes((samples['1200'] as Sample).hex), 1200)).toContain('😀');
    expect(ccsidKind(13488)).toBe('utf16');
    expect(decodeText(bytes('0047 0072 00FC'), 13488)).toBe('Grü');
    expect(decodeText(bytes('C3BC F09F9880'), 1208)).toBe('ü😀');
  });

  it('the double-byte space and the substitution characters', () => {
    expect(decodeText(bytes('4040'), 300)).toBe('\u3000');
    expect(decodeText(bytes('3F'), 37)).toBe('\u001a');
    // A character 37 lacks is stored as SUB, as IBM i substitutes it.
    expect(hex(encodeText('東', 37))).toBe('3F');
    expect(hex(encodeText('€', 1141))).toBe('9F');
  });

  it('long fields (a 32,000-byte VARCHAR) decode whole', () => {
    const long = bytes((samples['37'] as Sample).hex.repeat(200));
    expect(decodeText(long, 37)).toBe((samples['37'] as Sample).text.repeat(200));
  });

  it('the simulated IBM i writes what ICU writes, for every sample (its encoder agrees with ICU)', () => {
    for (const [ccsid, s] of Object.entries(samples)) {
      if (s.kind === 'unicode') continue;
      expect(hex(encodeText(s.text, Number(ccsid))), `CCSID ${ccsid}`).toBe(s.hex);
    }
  });
});

describe('ASCII text a CCSID holds byte for byte (the simulated IBM i stores it without converting)', () => {
  it('is exactly the text that encodes to one byte a character and decodes back unchanged, in every CCSID', () => {
    const printable = Array.from({ length: 95 }, (_, i) => String.fromCharCode(0x20 + i)).join('');
    const samples = ['', 'QSYS', 'JRN0001', 'abc xyz', '[]{}@#$!|~^`\\', printable, 'Größe', 'ｱｲ'];
    for (const ccsid of TEXT_CCSIDS)
      for (const text of samples) {
        const bytes = encodeText(text, ccsid);
        const exact = bytes.length === text.length && decodeText(bytes, ccsid) === text;
        // Claimed only when exact; refused for non-ASCII, and for ASCII the CCSID cannot hold.
        if (asciiRoundTrips(text, ccsid)) expect(exact, `${ccsid}: ${text}`).toBe(true);
        else if (/^[\x20-\x7e]*$/.test(text)) expect(exact, `${ccsid}: ${text}`).toBe(false);
      }
    expect(asciiRoundTrips('QSYS', 37)).toBe(true);
    expect(asciiRoundTrips('Größe', 37)).toBe(false);
    expect(asciiRoundTrips('ab', 1200)).toBe(false);
  });
});

describe('the CCSID tables', () => {
  it('are what scripts/gen-ccsid.py makes of the Toolbox’s dump, and so is the list of where ICU disagrees', () => {
    const run = spawnSync('python3', ['scripts/gen-ccsid.py', '--check'], { encoding: 'utf8' });
    if (run.error) throw new Error('python3 is needed to check the generated CCSID tables.');
    expect(run.stderr).not.toMatch(/No such file|uconv/);
    expect(run.status, `${run.stdout}${run.stderr} (uconv comes with Debian's icu-devtools)`).toBe(0);
  });
});
