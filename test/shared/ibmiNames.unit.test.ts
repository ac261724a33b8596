// IBM i system names with $, # and @ as each CCSID shows them: the characters the agent accepts are
// exactly those the CCSID tables put at X'5B', X'7B' and X'7C', and folding leaves them alone.
import { describe, expect, it } from 'vitest';
import { ccsidKind, singleByteUnits, TEXT_CCSIDS } from '../../lib/ibmi/ccsid';
import { ibmiName } from '../../lib/ibmi/connection';
import { journalHostCredentials } from '../../shared/agents/journal';
import { IBMI_NAME } from '../../shared/config/fields';
import { IBMI_NATIONAL_CHARACTERS, ibmiFold } from '../../shared/names';

const variantsOf = (ccsid: number) => {
  const units = singleByteUnits(ccsid);
  return [0x5b, 0x7b, 0x7c].map((b) => String.fromCharCode(units[b] ?? 0));
};
const singleByte = TEXT_CCSIDS.filter((c) => ccsidKind(c) === 'single');

describe('national characters in IBM i names', () => {
  it('are the characters every single-byte EBCDIC CCSID shows at $, # and @, and no others', () => {
    const derived = new Set(singleByte.flatMap(variantsOf));
    expect([...IBMI_NATIONAL_CHARACTERS].sort()).toEqual([...derived].sort());
    // The ones IBM's "Variant characters" tables name.
    expect(variantsOf(285)).toEqual(['£', '#', '@']);
    expect(variantsOf(277)).toEqual(['Å', 'Æ', 'Ø']);
    expect(variantsOf(273)).toEqual(['$', '#', '§']);
    expect(variantsOf(297)).toEqual(['$', '£', 'à']);
  });

  it('are names as each such system shows them, and nothing else with them is', () => {
    for (const ccsid of singleByte) {
      const [dollar, hash, at] = variantsOf(ccsid);
      expect(IBMI_NAME.test(`${dollar}LIB${hash}${at}`), `CCSID ${ccsid}`).toBe(true);
    }
    for (const notAName of ['¢LIB', 'LIB/X', 'A B', "O'HARE", 'ÉCOLE', 'Ç1', 'ø'])
      expect(IBMI_NAME.test(notAName), notAName).toBe(false);
  });

  it('fold a–z only: à (@ under CCSID 297) stays à, as the system keeps it', () => {
    expect(ibmiFold('prixà')).toBe('PRIXà');
    expect(ibmiName('ordà#', 'File')).toBe('ORDà#');
    expect(ibmiFold('£shop')).toBe('£SHOP');
  });

  it('are taken by the sync library setting and kept as typed', () => {
    const parsed = journalHostCredentials.schema.parse({
      connectionName: 'uk',
      host: 'ibmi.example',
      databaseName: '*LOCAL',
      username: 'cdc',
      password: 'x',
      syncLibrary: '£sync',
    });
    expect(parsed.syncLibrary).toBe('£SYNC');
    const bad = journalHostCredentials.schema.safeParse({
      connectionName: 'uk',
      host: 'ibmi.example',
      databaseName: '*LOCAL',
      username: 'cdc',
      password: 'x',
      syncLibrary: '¢SYNC',
    });
    expect(bad.success).toBe(false);
  });
});
