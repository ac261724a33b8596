// EBCDIC text in the CCSIDs IBM i files commonly use, from tables generated out of the Unicode
// mappings (scripts/gen-ebcdic.py). A character a CCSID cannot hold becomes SUB (0x3F), as IBM i
// substitutes it.
import { EBCDIC_TABLES } from './ebcdicTables';

export const EBCDIC_CCSIDS = Object.keys(EBCDIC_TABLES).map(Number);
const SUB = 0x3f;
const encoders = new Map<number, Map<string, number>>();

function table(ccsid: number): string {
  const t = EBCDIC_TABLES[ccsid];
  if (!t) throw new RangeError(`CCSID ${ccsid} is not one of ${EBCDIC_CCSIDS.join(', ')}.`);
  return t;
}

export function decodeEbcdic(bytes: Uint8Array, ccsid: number): string {
  const t = table(ccsid);
  let out = '';
  for (const b of bytes) out += t[b];
  return out;
}

export function encodeEbcdic(text: string, ccsid: number): Uint8Array {
  let map = encoders.get(ccsid);
  if (!map) {
    const t = table(ccsid);
    map = new Map([...t].map((ch, b) => [ch, b]));
    encoders.set(ccsid, map);
  }
  const out = new Uint8Array([...text].length);
  let i = 0;
  for (const ch of text) out[i++] = map.get(ch) ?? SUB;
  return out;
}
