// A shop's own table for IBM i's user-defined characters (gaiji): the double-byte codes of the
// user-defined area, which IBM's Toolbox reads as private-use characters (U+E000…), and the Unicode
// character each stands for at that shop. The journal agent's userCharacters setting holds it as text.

/** `6941=U+20BB7, 6942=U+5F45`: a code of four hex digits, a Unicode code point. */
const ENTRY_SOURCE = '([0-9A-Fa-f]{4})=U\\+([0-9A-Fa-f]{4,6})';
const ENTRY = new RegExp(ENTRY_SOURCE, 'g');
export const USER_CHARACTERS_PATTERN = new RegExp(`^\\s*${ENTRY_SOURCE}(?:[\\s,]+${ENTRY_SOURCE})*[\\s,]*$`);
export const USER_CHARACTERS_RULE =
  'entries CODE=U+XXXX separated by commas or blanks: CODE the four hex digits of a double-byte code ' +
  '(each byte 41 to FE), U+XXXX the Unicode character it stands for (not a surrogate); no code twice';

/** The table the text holds, or null where an entry breaks the rule (USER_CHARACTERS_RULE). */
export function parseUserCharacters(text: string): ReadonlyMap<number, string> | null {
  const table = new Map<number, string>();
  for (const [, code, point] of text.matchAll(ENTRY)) {
    const c = parseInt(code as string, 16);
    const p = parseInt(point as string, 16);
    const doubleByte = c >> 8 >= 0x41 && c >> 8 <= 0xfe && (c & 0xff) >= 0x41 && (c & 0xff) <= 0xfe;
    if (!doubleByte || p > 0x10ffff || (p >= 0xd800 && p <= 0xdfff) || table.has(c)) return null;
    table.set(c, String.fromCodePoint(p));
  }
  return table;
}
