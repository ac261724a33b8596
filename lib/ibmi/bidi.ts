// Arabic (420) and Hebrew (424) text is stored in visual order, left to right, as a 5250 screen shows
// it; IBM's Toolbox for Java reads it in logical order (its default: host string type 4, visual LTR,
// Java string type 5, implicit LTR) and undoes 420's shaping. The reordering is the Unicode
// bidirectional algorithm's implicit levels for a left-to-right paragraph, without the bracket-pair
// rule (N0) the Toolbox's engine predates, and with mirroring at odd levels; one pass reads visual
// into logical and another writes logical as visual. test/lib/ibmi/bidi.unit.test.ts holds it to
// texts the Toolbox itself read and wrote (test/fixtures/toolbox/bidi.json).
import { nominalDigits, readAs420, shapeArabic, unshapeArabic } from './arabicShaping';

/** The CCSIDs whose text is stored in visual order. */
export const VISUAL_CCSIDS: ReadonlySet<number> = new Set([420, 424]);

type BidiClass = 'L' | 'R' | 'AL' | 'EN' | 'ES' | 'ET' | 'AN' | 'CS' | 'NSM' | 'B' | 'S' | 'WS' | 'ON';

const ET = new Set('#$%\u00a2\u00a3\u00a4\u00a5\u00b0\u00b1\u20aa\u20ac');
// The Toolbox's engine predates some of today's classes: it reads the Arabic comma as an Arabic letter,
// the micro sign, the soft hyphen, controls and the explicit embedding codes as neutrals (it follows
// no embedding).
const CS = new Set(',.:\u00a0');

/** The bidirectional class of a character of the 420 and 424 tables (UCD's Bidi_Class). */
function classOf(c: number): BidiClass {
  if ((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x200e) return 'L';
  if ((c >= 0x30 && c <= 0x39) || c === 0xb2 || c === 0xb3 || c === 0xb9) return 'EN';
  // 420's tail byte (X'45', U+200B in the table) reads as a blank, and sorts as one.
  if (c === 0x20 || c === 0x0c || c === 0x2007 || c === 0x200b) return 'WS';
  const ch = String.fromCharCode(c);
  if (CS.has(ch)) return 'CS';
  if (ET.has(ch)) return 'ET';
  // The solidus is a separator of European numbers only, as Unicode classed it before 6.3.
  if (c === 0x2b || c === 0x2d || c === 0x2f) return 'ES';
  if ((c >= 0x5d0 && c <= 0x5ea) || c === 0x200f) return 'R';
  if (c >= 0x660 && c <= 0x669) return 'AN';
  if (c >= 0x64b && c <= 0x65f) return 'NSM';
  if ((c >= 0x600 && c <= 0x6ff) || (c >= 0xfe70 && c <= 0xfeff)) return 'AL';
  // arabicShaping.ts's stand-ins for a maksura written for yeh with hamza.
  if (c === 0xe000 || c === 0xe001) return 'AL';
  if (c === 0x0a || c === 0x0d || (c >= 0x1c && c <= 0x1e) || c === 0x85) return 'B';
  if (c === 0x09 || c === 0x0b || c === 0x1f) return 'S';
  return 'ON';
}

// Classes as small numbers, read from a table made once: reading a row's text must not allocate per character.
const L = 0,
  R = 1,
  AL = 2,
  EN = 3,
  ES = 4,
  ET_ = 5,
  AN = 6,
  CS_ = 7,
  NSM = 8,
  B = 9,
  S = 10,
  WS = 11,
  ON = 12;
const CODE: Readonly<Record<BidiClass, number>> = {
  L,
  R,
  AL,
  EN,
  ES,
  ET: ET_,
  AN,
  CS: CS_,
  NSM,
  B,
  S,
  WS,
  ON,
};
// Made on the first reordering, not at start-up: most systems hold no 420 or 424 text.
let classes: Uint8Array | null = null;
function classTable(): Uint8Array {
  if (classes) return classes;
  classes = new Uint8Array(0x10000);
  for (let c = 0; c < 0x10000; c++) classes[c] = CODE[classOf(c)];
  return classes;
}

const MIRROR = new Map<number, number>(
  ['()', ')(', '<>', '><', '[]', '][', '{}', '}{', '«»', '»«'].map((p) => [p.charCodeAt(0), p.charCodeAt(1)]),
);

const isStrongOrNumber = (t: number) => t === L || t === R || t === EN || t === AN;
/** N1's reading of a strong type: numbers count as right to left. */
const direction = (t: number) => (t === L ? L : R);

/**
 * Each character's level in a left-to-right paragraph (rules W1–W7, N1–N2, I1, L1), or null when
 * every one is 0 (no right-to-left letter or Arabic number: nothing moves).
 */
// Scratch space kept between calls, grown to the longest text seen: a row's text allocates nothing.
let types = new Uint8Array(256);
let originals = new Uint8Array(256);
let units16 = new Uint16Array(256);
function scratch(n: number): void {
  if (types.length >= n) return;
  const size = Math.max(n, types.length * 2);
  types = new Uint8Array(size);
  originals = new Uint8Array(size);
  units16 = new Uint16Array(size);
}

function levelsOf(units: string, visual: boolean): Uint8Array | null {
  const m = units.length;
  scratch(m);
  const t = types;
  const table = classTable();
  let anyRight = false;
  for (let i = 0; i < m; i++) {
    let x = table[units.charCodeAt(i)] as number;
    // Stored visual text holds a mark as a glyph of its own, one of the letters of the run.
    if (visual && x === NSM) x = AL;
    if (x === R || x === AL || x === AN) anyRight = true;
    t[i] = x;
  }
  if (!anyRight) return null;
  const original = originals;
  original.set(t.subarray(0, m));
  // W1: a mark takes the type before it (sos is L).
  for (let i = 0; i < m; i++) if (t[i] === NSM) t[i] = i === 0 ? L : (t[i - 1] as number);
  // W2, W3: European digits after Arabic letters are Arabic numbers; AL is R.
  let strong = L;
  for (let i = 0; i < m; i++) {
    const x = t[i] as number;
    if (x === L || x === R || x === AL) strong = x;
    else if (x === EN && strong === AL) t[i] = AN;
  }
  for (let i = 0; i < m; i++) if (t[i] === AL) t[i] = R;
  // W4: one separator between two numbers of a type.
  for (let i = 1; i < m - 1; i++) {
    const a = t[i - 1] as number;
    const x = t[i] as number;
    const b = t[i + 1] as number;
    if (x === ES && a === EN && b === EN) t[i] = EN;
    else if (x === CS_ && a === b && (a === EN || a === AN)) t[i] = a;
  }
  // W5: terminators next to European digits.
  for (let i = 0; i < m; i++) {
    if (t[i] !== ET_) continue;
    let j = i;
    while (j < m && t[j] === ET_) j++;
    if ((i > 0 && t[i - 1] === EN) || (j < m && t[j] === EN)) t.fill(EN, i, j);
    i = j - 1;
  }
  // W6, W7.
  strong = L;
  for (let i = 0; i < m; i++) {
    const x = t[i] as number;
    if (x === ES || x === ET_ || x === CS_) t[i] = ON;
    else if (x === L || x === R) strong = x;
    else if (x === EN && strong === L) t[i] = L;
  }
  // N1, N2: neutrals between two of one direction take it; others the paragraph's (L). sos, eos: L.
  for (let i = 0; i < m; i++) {
    if (isStrongOrNumber(t[i] as number)) continue;
    let j = i;
    while (j < m && !isStrongOrNumber(t[j] as number)) j++;
    const before = i === 0 ? L : direction(t[i - 1] as number);
    const after = j === m ? L : direction(t[j] as number);
    t.fill(before === after ? before : L, i, j);
    i = j - 1;
  }
  // I1, then L1: separators, and the white space before them and at the end, at the paragraph level.
  const level = t;
  for (let i = 0; i < m; i++) level[i] = t[i] === R ? 1 : t[i] === AN || t[i] === EN ? 2 : 0;
  let trailing = true;
  for (let i = m - 1; i >= 0; i--) {
    const o = original[i] as number;
    if (o === S || o === B) {
      level[i] = 0;
      trailing = true;
    } else if (o === WS && trailing) level[i] = 0;
    else trailing = false;
  }
  return level;
}

/** The characters in display order (L2) with mirrored glyphs at odd levels (L4). */
function reorder(text: string, visual: boolean): string {
  const levels = levelsOf(text, visual);
  if (!levels) return text;
  const n = text.length;
  const chars = units16;
  let top = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    const level = levels[i] as number;
    chars[i] = level % 2 === 1 ? (MIRROR.get(c) ?? c) : c;
    if (level > top) top = level;
  }
  for (let level = top; level >= 1; level--) {
    for (let i = 0; i < n; i++) {
      if ((levels[i] as number) < level) continue;
      let j = i;
      while (j < n && (levels[j] as number) >= level) j++;
      for (let a = i, b = j - 1; a < b; a++, b--) {
        const c = chars[a] as number;
        chars[a] = chars[b] as number;
        chars[b] = c;
        const l = levels[a] as number;
        levels[a] = levels[b] as number;
        levels[b] = l;
      }
      i = j;
    }
  }
  let out = '';
  for (let i = 0; i < n; i += 4096)
    out += String.fromCharCode.apply(null, chars.subarray(i, Math.min(n, i + 4096)) as unknown as number[]);
  return out;
}

/** Text as the Toolbox's client reads a 420 or 424 field: logical order, 420 unshaped. */
export function visualToLogical(stored: string, ccsid: number): string {
  if (ccsid === 420) return readAs420(reorder(unshapeArabic(stored), true));
  return ccsid === 424 ? reorder(stored, true) : stored;
}

/** Text as a Toolbox client writes it into a 420 or 424 field: visual order, 420 shaped. */
export function logicalToVisual(text: string, ccsid: number): string {
  if (ccsid === 420) return nominalDigits(shapeArabic(text, (t) => reorder(t, false)));
  return ccsid === 424 ? reorder(text, false) : text;
}
