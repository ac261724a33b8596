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

type BidiClass = 'L' | 'R' | 'AL' | 'EN' | 'ES' | 'ET' | 'AN' | 'CS' | 'NSM' | 'BN' | 'B' | 'S' | 'WS' | 'ON';

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

const MIRROR: Readonly<Record<string, string>> = {
  '(': ')',
  ')': '(',
  '<': '>',
  '>': '<',
  '[': ']',
  ']': '[',
  '{': '}',
  '}': '{',
  '«': '»',
  '»': '«',
};

const isStrongOrNumber = (t: BidiClass) => t === 'L' || t === 'R' || t === 'EN' || t === 'AN';
/** N1's reading of a strong type: numbers count as right to left. */
const direction = (t: BidiClass): 'L' | 'R' => (t === 'L' ? 'L' : 'R');

/** Each character's level in a left-to-right paragraph (rules W1–W7, N1–N2, I1, L1). */
function levelsOf(units: string, visual: boolean): number[] {
  const n = units.length;
  const types: BidiClass[] = [];
  for (let i = 0; i < n; i++) {
    const type = classOf(units.charCodeAt(i));
    // Stored visual text holds a mark as a glyph of its own, one of the letters of the run.
    types.push(visual && type === 'NSM' ? 'AL' : type);
  }
  // BN is removed (X9): each takes its neighbour's type afterwards, level included.
  const kept = types.map((t, i) => i).filter((i) => types[i] !== 'BN');
  const t = kept.map((i) => types[i] as BidiClass);
  const m = t.length;
  // W1: a mark takes the type before it (sos is L).
  for (let i = 0; i < m; i++) if (t[i] === 'NSM') t[i] = i === 0 ? 'L' : (t[i - 1] as BidiClass);
  // W2, W3: European digits after Arabic letters are Arabic numbers; AL is R.
  let strong: BidiClass = 'L';
  for (let i = 0; i < m; i++) {
    const x = t[i] as BidiClass;
    if (x === 'L' || x === 'R' || x === 'AL') strong = x;
    else if (x === 'EN' && strong === 'AL') t[i] = 'AN';
  }
  for (let i = 0; i < m; i++) if (t[i] === 'AL') t[i] = 'R';
  // W4: one separator between two numbers of a type.
  for (let i = 1; i < m - 1; i++) {
    const [a, x, b] = [t[i - 1], t[i], t[i + 1]];
    if (x === 'ES' && a === 'EN' && b === 'EN') t[i] = 'EN';
    else if (x === 'CS' && a === b && (a === 'EN' || a === 'AN')) t[i] = a;
  }
  // W5: terminators next to European digits.
  for (let i = 0; i < m; i++) {
    if (t[i] !== 'ET') continue;
    let j = i;
    while (j < m && t[j] === 'ET') j++;
    if ((i > 0 && t[i - 1] === 'EN') || (j < m && t[j] === 'EN')) t.fill('EN', i, j);
    i = j - 1;
  }
  // W6, W7.
  strong = 'L';
  for (let i = 0; i < m; i++) {
    const x = t[i] as BidiClass;
    if (x === 'ES' || x === 'ET' || x === 'CS') t[i] = 'ON';
    else if (x === 'L' || x === 'R') strong = x;
    else if (x === 'EN' && strong === 'L') t[i] = 'L';
  }
  // N1, N2: neutrals between two of one direction take it; others the paragraph's (L). sos, eos: L.
  for (let i = 0; i < m; i++) {
    if (isStrongOrNumber(t[i] as BidiClass)) continue;
    let j = i;
    while (j < m && !isStrongOrNumber(t[j] as BidiClass)) j++;
    const before = i === 0 ? 'L' : direction(t[i - 1] as BidiClass);
    const after = j === m ? 'L' : direction(t[j] as BidiClass);
    t.fill(before === after ? before : 'L', i, j);
    i = j - 1;
  }
  // I1, then L1: separators, and the white space before them and at the end, at the paragraph level.
  const level = t.map((x) => (x === 'R' ? 1 : x === 'AN' || x === 'EN' ? 2 : 0));
  let trailing = true;
  for (let i = m - 1; i >= 0; i--) {
    const original = types[kept[i] as number] as BidiClass;
    if (original === 'S' || original === 'B') {
      level[i] = 0;
      trailing = true;
    } else if (original === 'WS' && trailing) level[i] = 0;
    else trailing = false;
  }
  const all = new Array<number>(n).fill(0);
  kept.forEach((k, i) => (all[k] = level[i] as number));
  for (let i = 0; i < n; i++) if (types[i] === 'BN') all[i] = i > 0 ? (all[i - 1] as number) : 0;
  return all;
}

/** The characters in display order (L2) with mirrored glyphs at odd levels (L4). */
function reorder(text: string, visual: boolean): string {
  const levels = levelsOf(text, visual);
  const chars = text.split('').map((c, i) => ((levels[i] as number) % 2 === 1 ? (MIRROR[c] ?? c) : c));
  const top = Math.max(0, ...levels);
  for (let level = top; level >= 1; level--) {
    for (let i = 0; i < chars.length; i++) {
      if ((levels[i] as number) < level) continue;
      let j = i;
      while (j < chars.length && (levels[j] as number) >= level) j++;
      reverseRange(chars, i, j);
      reverseRange(levels, i, j);
      i = j;
    }
  }
  return chars.join('');
}

function reverseRange<T>(a: T[], from: number, to: number): void {
  for (let i = from, j = to - 1; i < j; i++, j--) [a[i], a[j]] = [a[j] as T, a[i] as T];
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
