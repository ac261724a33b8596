// CCSID 420 holds Arabic letters in their shaped forms (initial, medial, final, isolated: Unicode's
// presentation forms B), one byte each, and lam-alef as one ligature byte. The Toolbox reads them as the
// letters themselves and writes letters as the forms 420 has; this is that mapping, both ways.

/** Arabic letters and where their forms start in U+FE80–U+FEFC: isolated, final, initial, medial. */
const FORMS: readonly (readonly [letter: number, first: number, count: 1 | 2 | 4])[] = [
  [0x621, 0xfe80, 1],
  [0x622, 0xfe81, 2],
  [0x623, 0xfe83, 2],
  [0x624, 0xfe85, 2],
  [0x625, 0xfe87, 2],
  [0x626, 0xfe89, 4],
  [0x627, 0xfe8d, 2],
  [0x628, 0xfe8f, 4],
  [0x629, 0xfe93, 2],
  [0x62a, 0xfe95, 4],
  [0x62b, 0xfe99, 4],
  [0x62c, 0xfe9d, 4],
  [0x62d, 0xfea1, 4],
  [0x62e, 0xfea5, 4],
  [0x62f, 0xfea9, 2],
  [0x630, 0xfeab, 2],
  [0x631, 0xfead, 2],
  [0x632, 0xfeaf, 2],
  [0x633, 0xfeb1, 4],
  [0x634, 0xfeb5, 4],
  [0x635, 0xfeb9, 4],
  [0x636, 0xfebd, 4],
  [0x637, 0xfec1, 4],
  [0x638, 0xfec5, 4],
  [0x639, 0xfec9, 4],
  [0x63a, 0xfecd, 4],
  [0x641, 0xfed1, 4],
  [0x642, 0xfed5, 4],
  [0x643, 0xfed9, 4],
  [0x644, 0xfedd, 4],
  [0x645, 0xfee1, 4],
  [0x646, 0xfee5, 4],
  [0x647, 0xfee9, 4],
  [0x648, 0xfeed, 2],
  [0x649, 0xfeef, 2],
  [0x64a, 0xfef1, 4],
];
const LETTER_OF_FORM = new Map<number, number>();
const FORMS_OF_LETTER = new Map<number, { first: number; count: number }>();
for (const [letter, first, count] of FORMS) {
  FORMS_OF_LETTER.set(letter, { first, count });
  for (let k = 0; k < count; k++) LETTER_OF_FORM.set(first + k, letter);
}

/** Lam-alef ligatures (isolated, then final) and the alef each holds. */
const LIGATURES: readonly (readonly [alef: number, isolated: number])[] = [
  [0x622, 0xfef5],
  [0x623, 0xfef7],
  [0x625, 0xfef9],
  [0x627, 0xfefb],
];
const ALEF_OF_LIGATURE = new Map<number, number>();
for (const [alef, isolated] of LIGATURES) {
  ALEF_OF_LIGATURE.set(isolated, alef);
  ALEF_OF_LIGATURE.set(isolated + 1, alef);
}
const LAM = 0x644;
/** 420 has no alef with hamza below: the Toolbox writes the alef. */
const SUBSTITUTE = new Map([[0x625, 0x627]]);
/** Seen, sheen, sad, dad: letters whose final and isolated forms 420 writes as the letter and a tail. */
const TAILED = new Set([0x633, 0x634, 0x635, 0x636]);
const YEH_HAMZA = 0x626;
const HAMZA = 0x621;
/**
 * 420's yeh with hamza is a joining form only: at a word's end the Toolbox writes alef maksura, and the
 * hamza in the blank to its left. These private-use stand-ins (Arabic letters to the reordering) mark
 * such a maksura, isolated and final, until the blanks are known.
 */
const HAMZA_AFTER_ISOLATED = 0xe000;
const HAMZA_AFTER_FINAL = 0xe001;
const MAKSURA_OF = new Map([
  [HAMZA_AFTER_ISOLATED, '\u0649'],
  [HAMZA_AFTER_FINAL, '\ufef0'],
]);
const TATWEEL = 0x640;
const SHADDA = 0x651;
/** The shadda's form between joined letters, the one 420 holds. */
const SHADDA_JOINED = 0xfe7d;

/**
 * The presentation forms CCSID 420 has a byte for (test/lib/ibmi/bidi.unit.test.ts reads them from the
 * Toolbox's table); a form it lacks is written as the nearest it has: medial as initial, final and
 * isolated as the letter.
 */
export const FORMS_IN_420: ReadonlySet<number> = new Set([
  0xfe7d, 0xfe82, 0xfe84, 0xfe8e, 0xfe91, 0xfe97, 0xfe9b, 0xfe9f, 0xfea3, 0xfea7, 0xfeb3, 0xfeb7, 0xfebb,
  0xfebf, 0xfeca, 0xfecb, 0xfecc, 0xfece, 0xfecf, 0xfed0, 0xfed3, 0xfed7, 0xfedb, 0xfedf, 0xfee3, 0xfee7,
  0xfeeb, 0xfeec, 0xfef0, 0xfef2, 0xfef3, 0xfef5, 0xfef6, 0xfef7, 0xfef8, 0xfefb, 0xfefc,
]);

const isTransparent = (c: number) => c >= 0x64b && c <= 0x652;
/** Whether a character joins the one after it in logical order (dual-joining letters and tatweel). */
const joinsForward = (c: number) =>
  c === TATWEEL || c === SHADDA_JOINED || FORMS_OF_LETTER.get(c)?.count === 4;
/** Whether a character joins the one before it. */
const joinsBackward = (c: number) =>
  c === TATWEEL || c === SHADDA_JOINED || (FORMS_OF_LETTER.get(c)?.count ?? 1) >= 2;

/**
 * Stored 420 text, still in visual order, with its letters unshaped. A lam-alef ligature is two
 * letters: it takes one of the blanks at the field's visual left end, where the writer put one for it,
 * the logically first ligatures first; with no blank left it stays the ligature, as the Toolbox leaves it.
 */
export function unshapeArabic(visual: string): string {
  if (!PRESENTATION_FORM.test(visual)) return visual;
  let blanks = 0;
  while (visual.charCodeAt(blanks) === 0x20) blanks++;
  let ligatures = 0;
  for (let i = 0; i < visual.length; i++) if (ALEF_OF_LIGATURE.has(visual.charCodeAt(i))) ligatures++;
  const used = Math.min(blanks, ligatures);
  // The visual right is the logical start: the rightmost `used` ligatures take the first `used` blanks.
  let keep = ligatures - used;
  let out = '';
  for (let i = used; i < visual.length; i++) {
    const c = visual.charCodeAt(i);
    const alef = ALEF_OF_LIGATURE.get(c);
    if (alef !== undefined && keep-- <= 0) {
      // Visual order: the alef left of the lam.
      out += String.fromCharCode(alef, LAM);
      continue;
    }
    out += String.fromCharCode(LETTER_OF_FORM.get(c) ?? c);
  }
  return out;
}

const PRESENTATION_FORM = /[\ufe70-\ufeff]/;

/** The form of a letter that joins on the given sides, or the nearest one 420 holds. */
function formOf(letter: number, before: boolean, after: boolean): number {
  // 420's yeh with hamza is the joining form only; at a word's end the Toolbox writes alef maksura.
  if (letter === YEH_HAMZA) return after ? letter : before ? HAMZA_AFTER_FINAL : HAMZA_AFTER_ISOLATED;
  const forms = FORMS_OF_LETTER.get(letter);
  if (!forms) return letter;
  const { first, count } = forms;
  const wanted =
    count === 4 && before && after
      ? [first + 3, first + 2]
      : count === 4 && after
        ? [first + 2]
        : before
          ? [first + 1]
          : [first];
  return wanted.find((f) => FORMS_IN_420.has(f)) ?? letter;
}

/**
 * Logical text shaped as 420 stores it and put in visual order by `reorder`: each letter in the form its
 * neighbours give it, lam-alef as the ligature with a blank for the letter it saves at the visual left end.
 */
export function shapeArabic(text: string, reorder: (logical: string) => string): string {
  const units = text.split('').map((c) => SUBSTITUTE.get(c.charCodeAt(0)) ?? c.charCodeAt(0));
  // 420 holds no vowel marks and the shadda alone: a mark inside a joined pair is written as a
  // tatweel (the shadda as its joined form), any other as a blank once reordered (markAsBlank).
  for (let i = 0; i < units.length; i++) {
    const c = units[i] as number;
    if (!isTransparent(c)) continue;
    let p = i - 1;
    while (p >= 0 && isTransparent(units[p] as number)) p--;
    let n = i + 1;
    while (n < units.length && isTransparent(units[n] as number)) n++;
    const joined =
      p >= 0 && n < units.length && joinsForward(units[p] as number) && joinsBackward(units[n] as number);
    if (joined) units[i] = c === SHADDA ? SHADDA_JOINED : TATWEEL;
  }
  const joiningBefore = (i: number) => {
    for (let k = i - 1; k >= 0; k--)
      if (!isTransparent(units[k] as number)) return joinsForward(units[k] as number);
    return false;
  };
  const next = (i: number) => {
    for (let k = i + 1; k < units.length; k++) if (!isTransparent(units[k] as number)) return k;
    return -1;
  };
  const out: number[] = [];
  let saved = 0;
  for (let i = 0; i < units.length; i++) {
    const c = units[i] as number;
    const before = joinsBackward(c) && joiningBefore(i);
    const k = next(i);
    const alef = c === LAM && k === i + 1 ? LIGATURES.find(([a]) => a === units[k]) : undefined;
    if (alef) {
      out.push(alef[1] + (before ? 1 : 0));
      saved++;
      i = k;
      continue;
    }
    const after = joinsForward(c) && k !== -1 && joinsBackward(units[k] as number);
    out.push(formOf(c, before, after));
  }
  const visual = (' '.repeat(saved) + reorder(String.fromCharCode(...out))).split('');
  // Seen, sheen, sad and dad end in a tail 420 writes as its own byte (X'45'), in the blank to their left.
  for (let i = 1; i < visual.length; i++)
    if (visual[i - 1] === ' ' && TAILED.has((visual[i] as string).charCodeAt(0))) visual[i - 1] = '\u200b';
  for (let i = 0; i < visual.length; i++) {
    const c = (visual[i] as string).charCodeAt(0);
    if (isTransparent(c) && c !== SHADDA) visual[i] = ' ';
    const maksura = MAKSURA_OF.get(c);
    if (maksura === undefined) continue;
    visual[i] = maksura;
    if (visual[i - 1] === ' ') visual[i - 1] = String.fromCharCode(HAMZA);
  }
  return visual.join('');
}

/** Arabic-Indic digits as the Toolbox reads and writes 420's: the European digits (nominal). */
export const nominalDigits = (text: string): string =>
  text.replace(/[\u0660-\u0669]/g, (d) => String.fromCharCode(d.charCodeAt(0) - 0x660 + 0x30));

/**
 * Reordered 420 text as the Toolbox gives it: European digits, a blank for the zero-width space (the
 * tail byte), and the shadda 420 holds as a form (a letter, in the reordering) as the mark.
 */
export const readAs420 = (logical: string): string =>
  READ_AS_420.test(logical)
    ? nominalDigits(logical)
        .replace(/\u200b/g, ' ')
        .replace(/\ufe7d/g, '\u0651')
    : logical;
const READ_AS_420 = /[\u0660-\u0669\u200b\ufe7d]/;
