// A shop's gaiji table: the codes of the user-defined area read as the characters the shop says, in
// every double-byte CCSID whose tables read them as private-use characters; nothing else touched.
import { describe, expect, it } from 'vitest';
import { decodeText } from '../../../../lib/ibmi/ccsid';
import { userCharacters } from '../../../../main/agents/journal/userCharacters';
import { journalConfiguration } from '../../../../shared/agents/journal';
import { parseUserCharacters } from '../../../../shared/config/userCharacters';
import { parseSection } from '../../../../shared/config/parse';

const read = userCharacters(parseUserCharacters('6941=U+20BB7, 6942=U+5F45 4562=U+4E00'));

describe('user-defined characters', () => {
  it('reads the codes the table names as its characters, in mixed and graphic Japanese CCSIDs', () => {
    // IBM's Toolbox reads 6941 and 6942 as U+E000 and U+E001, 6943 as U+E002.
    const graphic = decodeText(new Uint8Array([0x69, 0x41, 0x69, 0x42, 0x69, 0x43]), 300);
    expect(graphic).toBe('\ue000\ue001\ue002');
    expect(read?.(graphic, 300)).toBe('𠮷彅\ue002');
    const mixed = decodeText(new Uint8Array([0xc1, 0x0e, 0x69, 0x41, 0x0f, 0xc2]), 939);
    expect(read?.(mixed, 939)).toBe('A𠮷B');
    expect(read?.(mixed, 5035)).toBe('A𠮷B');
  });

  it('renames no standard character, and leaves single-byte text alone', () => {
    // 4562 is a standard character in 300 (not private use): the shop's table does not apply to it.
    const standard = decodeText(new Uint8Array([0x45, 0x62]), 300);
    expect(standard).not.toMatch(/[\ue000-\uf8ff]/);
    expect(read?.(standard, 300)).toBe(standard);
    expect(read?.('\ue000', 37)).toBe('\ue000');
  });

  it('is no reader at all without a table', () => {
    expect(userCharacters(parseUserCharacters(''))).toBeNull();
    expect(userCharacters(null)).toBeNull();
  });

  it.each([
    ['6941=U+20BB7, 6941=U+5F45', 'a code twice'],
    ['6941=U+D800', 'a surrogate'],
    ['0041=U+0041', 'a single-byte code'],
    ['6941=20BB7', 'no U+'],
    ['6941=U+20BB7;6942=U+5F45', 'a semicolon'],
  ])('refuses %j (%s), naming the field and the rule', (bad) => {
    const parsed = parseSection(journalConfiguration, { userCharacters: bad });
    const problem = parsed.ok
      ? undefined
      : parsed.problems.find((p) => p.pointer.endsWith('/userCharacters'));
    expect(problem?.pointer).toMatch(/\/userCharacters$/);
    expect(problem?.message).toContain(JSON.stringify(bad));
    expect(problem?.rule).toMatch(
      /^entries CODE=U\+XXXX separated by commas or blanks: .*no code twice, or left out$/,
    );
  });
});
