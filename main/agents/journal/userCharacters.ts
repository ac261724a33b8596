// The source's userCharacters table applied to text: IBM's Toolbox reads a code of the user-defined
// area as a private-use character (the CCSID's tables say which), and the shop's table says what it
// stands for. The table names host codes, so each CCSID's private-use characters are found by decoding
// the codes in that CCSID; a code that is a standard character there is not the shop's to rename.
import { ccsidKind, decodeText } from '../../../lib/ibmi/ccsid';
import { MIXED } from '../../../lib/ibmi/ccsidTables';

/** Text with the shop's characters in place of the private-use ones its table names. */
export type UserCharacters = (text: string, ccsid: number) => string;

const PRIVATE_USE = /[\ue000-\uf8ff]/;
const PRIVATE_USE_ALL = /[\ue000-\uf8ff]/g;
const SO = 0x0e;
const SI = 0x0f;

/** The shop's table as a reader of decoded text; null when it names nothing. */
export function userCharacters(table: ReadonlyMap<number, string> | null): UserCharacters | null {
  if (!table || table.size === 0) return null;
  const perCcsid = new Map<number, ReadonlyMap<string, string>>();
  const of = (ccsid: number) => {
    let m = perCcsid.get(ccsid);
    if (!m) perCcsid.set(ccsid, (m = privateUseOf(table, ccsid)));
    return m;
  };
  return (text, ccsid) => {
    if (!PRIVATE_USE.test(text)) return text;
    const m = of(ccsid);
    return m.size ? text.replace(PRIVATE_USE_ALL, (c) => m.get(c) ?? c) : text;
  };
}

function privateUseOf(table: ReadonlyMap<number, string>, ccsid: number): ReadonlyMap<string, string> {
  const kind = ccsidKind(ccsid);
  const mixed = kind === 'mixed' && MIXED[ccsid] !== undefined;
  if (!mixed && kind !== 'double') return new Map();
  const m = new Map<string, string>();
  for (const [code, character] of table) {
    const pair = [code >> 8, code & 0xff];
    const read = decodeText(new Uint8Array(mixed ? [SO, ...pair, SI] : pair), ccsid);
    if (read.length === 1 && PRIVATE_USE.test(read)) m.set(read, character);
  }
  return m;
}
