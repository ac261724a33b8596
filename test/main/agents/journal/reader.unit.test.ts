// The DSPJRN command the journal agent sends, seen through a stand-in connection: the receiver range
// from the checkpoint, the entry codes, and FILE(*ALLFILE) past DSPJRN's limit of 300 files; which file
// a DSPJRN refused for want of authority names.
import { describe, expect, it } from 'vitest';
import { IbmiError, type IbmiConnection } from '../../../../lib/ibmi/connection';
import {
  entriesPerRead,
  notAuthorizedReason,
  readJournal,
  refusedFile,
} from '../../../../main/agents/journal/reader';

function recording(): IbmiConnection & { commands: string[] } {
  const commands: string[] = [];
  return {
    commands,
    query: async () => [],
    command: async (cl) => {
      commands.push(cl);
      if (cl.startsWith('DSPJRN')) throw new IbmiError('CPF7062', 'No entries converted or copied.');
    },
    transaction: (work) => work(recording()),
    close: async () => undefined,
  };
}

const journal = { library: 'SHOP', name: 'QSQJRN' };
const from = { library: 'SHOP', receiver: 'QSQJRN0002', sequence: 41 };

describe('readJournal', () => {
  it('names the files, the receiver range from the checkpoint and the entry codes', async () => {
    const c = recording();
    expect(
      await readJournal(c, 'SYNC', journal, [{ library: 'SHOP', file: 'ORDERS' }], from, 500, 12),
    ).toEqual([]);
    expect(c.commands).toEqual([
      'DSPJRN JRN(SHOP/QSQJRN) FILE((SHOP/ORDERS)) RCVRNG(SHOP/QSQJRN0002 *CURRENT) FROMENTLRG(41) ' +
        'JRNCDE((C *IGNFILSLT) (R) (F) (D)) NBRENT(500) OUTPUT(*OUTFILE) OUTFILFMT(*TYPE5) OUTFILE(SYNC/JRNOUT) ENTDTALEN(*CALC) NULLINDLEN(12)',
    ]);
  });

  it('reads the whole journal past 300 files, and from *FIRST when the position is before any entry; NULLINDLEN to 8,000', async () => {
    const c = recording();
    const files = Array.from({ length: 301 }, (_, i) => ({ library: 'SHOP', file: `F${i}` }));
    await readJournal(c, 'SYNC', journal, files, { ...from, sequence: 0 }, 500, 8001);
    expect(c.commands[0]).toContain('FILE(*ALLFILE) RCVRNG(SHOP/QSQJRN0002 *CURRENT) FROMENTLRG(*FIRST)');
    // NULLINDLEN takes at most 8,000, the most fields a file can have.
    expect(c.commands[0]).toMatch(/NULLINDLEN\(8000\)$/);
  });
});

describe('entries per DSPJRN read', () => {
  it('keeps a read near 64 MB: 20,000 narrow entries, fewer of a wide record, never under 500', () => {
    expect(entriesPerRead(120)).toBe(20_000);
    expect(entriesPerRead(32_766)).toBe(2_016);
    expect(entriesPerRead(1_000_000)).toBe(500);
    // The budget holds: entries times their padded record and header.
    for (const width of [120, 4_000, 32_766])
      expect(entriesPerRead(width) * (width + 512)).toBeLessThanOrEqual(64 * 2 ** 20);
  });
});

describe('a DSPJRN refused for want of authority', () => {
  const files = [
    { library: 'SHOP', file: 'ORDERS' },
    { library: 'SHOP', file: 'CUSTOMER' },
    { library: 'LEGACY', file: 'ITEMS' },
  ];
  it('names the file refused (CPF9802), or the first file of a library refused (CPF9820)', () => {
    expect(
      refusedFile(new IbmiError('CPF9802', 'Not authorized to object CUSTOMER in SHOP.'), files),
    ).toEqual({
      file: files[1],
      byLibrary: false,
    });
    expect(refusedFile(new IbmiError('CPF9820', 'Not authorized to use library LEGACY.'), files)).toEqual({
      file: files[2],
      byLibrary: true,
    });
    expect(
      refusedFile(new IbmiError('CPF9812', 'File ITEMS in library LEGACY not found.'), files),
    ).toBeUndefined();
    expect(refusedFile(new Error('Not authorized to object CUSTOMER in SHOP.'), files)).toBeUndefined();
  });

  it('says which grant gives it back', () => {
    expect(notAuthorizedReason({ library: 'LEGACY', file: 'ITEMS' }, 'CDCAGENT', 'DSPJRN', true)).toBe(
      'the user profile CDCAGENT is no longer authorized to library LEGACY (CPF9820 on DSPJRN): grant it again (GRTOBJAUT OBJ(LEGACY) OBJTYPE(*LIB) USER(CDCAGENT) AUT(*USE)), then resume the table',
    );
  });
});
