// The simulated IBM i's journal, driven through the IbmiConnection interface only: the entries
// each change makes under *AFTER and *BOTH, commitment control, RGZPFM, receivers and sequences.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IbmiConnection } from '../../../lib/ibmi/connection';
import { decodeText } from '../../../lib/ibmi/ccsid';
import { decodeRecord } from '../../../lib/ibmi/recordImage';
import { SEED_AGENT } from '../seed';
import type { SandboxIbmi } from '..';
import { dspjrn, failure, kinds, seededIbmi } from '../../../test/helpers/ibmi';

let sandbox: SandboxIbmi;
let c: IbmiConnection;

beforeEach(async () => {
  ({ sandbox, admin: c } = await seededIbmi());
  await c.query('CREATE SCHEMA TEST');
  await c.query('CREATE TABLE TEST.T (K INTEGER NOT NULL PRIMARY KEY, V VARCHAR(10), D DECIMAL(7,2))');
});
afterEach(() => sandbox.close());

/** Entries after the ones already in the journal when called. */
async function after(journal: string, fn: () => Promise<unknown>) {
  const before = await dspjrn(c, journal, 'RCVRNG(*CURCHAIN)');
  const last = before.at(-1)?.seq ?? 0;
  await fn();
  return dspjrn(c, journal, `RCVRNG(*CURCHAIN) FROMENTLRG(${last + 1})`);
}

describe('journal entries per change', () => {
  it('under *AFTER: PT, UP without UB, DL; CREATE TABLE in a schema journals to QSQJRN', async () => {
    const rows = await after('TEST/QSQJRN', async () => {
      await c.query("INSERT INTO TEST.T VALUES (1, 'one', 1.5), (2, 'two', 2.5)");
      await c.query("UPDATE TEST.T SET V = 'uno' WHERE K = 1");
      await c.query('DELETE FROM TEST.T WHERE K = 2');
    });
    expect(kinds(rows)).toEqual(['R PT', 'R PT', 'R UP', 'R DL']);
    expect(rows.map((r) => r.rrn)).toEqual([1, 2, 1, 2]);
    expect(rows.every((r) => r.cycle === 0 && r.object === 'T' && r.member === 'T')).toBe(true);
  });

  it('under *BOTH: UB before UP, with the record images in the file layout', async () => {
    await c.command('CHGJRNOBJ OBJ((TEST/T *FILE)) ATR(*IMAGES) IMAGES(*BOTH)');
    await c.query("INSERT INTO TEST.T VALUES (7, 'seven', 7.25)");
    const rows = await after('TEST/QSQJRN', () => c.query('UPDATE TEST.T SET V = NULL, D = -3 WHERE K = 7'));
    expect(kinds(rows)).toEqual(['R UB', 'R UP']);
    const layout = [
      { name: 'K', type: { kind: 'binary', bytes: 4 } as const },
      { name: 'V', type: { kind: 'varchar', length: 10, ccsid: 37 } as const, nullable: true },
      { name: 'D', type: { kind: 'packed', precision: 7, scale: 2 } as const, nullable: true },
    ];
    const [ub, up] = rows;
    expect(decodeRecord(layout, ub?.esd ?? new Uint8Array(), ub?.nvi)).toEqual({
      K: 7n,
      V: 'seven',
      D: '7.25',
    });
    expect(decodeRecord(layout, up?.esd ?? new Uint8Array(), up?.nvi)).toEqual({
      K: 7n,
      V: null,
      D: '-3.00',
    });
    expect(up?.nvi.startsWith('010')).toBe(true);
  });

  it('a REUSEDLT(*YES) table fills a deleted slot with PX; CHGPF REUSEDLT(*NO) appends at the end again', async () => {
    await c.query("INSERT INTO TEST.T VALUES (1, 'a', 0), (2, 'b', 0), (3, 'c', 0)");
    await c.query('DELETE FROM TEST.T WHERE K = 2');
    const reused = await after('TEST/QSQJRN', () => c.query("INSERT INTO TEST.T VALUES (4, 'd', 0)"));
    expect(reused.map((r) => `${r.type}@${r.rrn}`)).toEqual(['PX@2']);
    await c.query('DELETE FROM TEST.T WHERE K = 1');
    await c.command('CHGPF FILE(TEST/T) REUSEDLT(*NO)');
    const appended = await after('TEST/QSQJRN', () => c.query("INSERT INTO TEST.T VALUES (5, 'e', 0)"));
    expect(appended.map((r) => `${r.type}@${r.rrn}`)).toEqual(['PT@4']);
  });

  it('a DDS file with several members journals each member by name (written through an alias)', async () => {
    await c.query('CREATE ALIAS QGPL.NOTESARC FOR LEGACY.NOTES(ARCHIVE)');
    const rows = await after('LEGACY/JRN', () =>
      c.query("INSERT INTO QGPL.NOTESARC VALUES ('old', '2020-01-01-00.00.00')"),
    );
    expect(rows.map((r) => `${r.type} ${r.object}(${r.member})@${r.rrn}`)).toEqual(['PT NOTES(ARCHIVE)@1']);
    expect(await c.query('SELECT COUNT(*) AS N FROM LEGACY.NOTES')).toEqual([{ N: 5 }]);
  });
});

describe('commitment control', () => {
  it('commit: C SC, the changes with the cycle id, C CM', async () => {
    const rows = await after('TEST/QSQJRN', () =>
      c.transaction(async (t) => {
        await t.query("INSERT INTO TEST.T VALUES (1, 'a', 1)");
        await t.query("UPDATE TEST.T SET V = 'b' WHERE K = 1");
      }),
    );
    expect(kinds(rows)).toEqual(['C SC', 'R PT', 'R UP', 'C CM']);
    const cycle = rows[0]?.seq;
    expect(rows.every((r) => r.cycle === cycle)).toBe(true);
  });

  it('rollback: each change undone newest first (UR, DR) with C RB, and the table as it was', async () => {
    await c.command('CHGJRNOBJ OBJ((TEST/T *FILE)) ATR(*IMAGES) IMAGES(*BOTH)');
    await c.query("INSERT INTO TEST.T VALUES (1, 'keep', 1)");
    const rows = await after('TEST/QSQJRN', async () => {
      const refused = await failure(
        c.transaction(async (t) => {
          await t.query("INSERT INTO TEST.T VALUES (2, 'new', 2)");
          await t.query("UPDATE TEST.T SET V = 'changed' WHERE K = 1");
          await t.query('DELETE FROM TEST.T WHERE K = 1');
          await t.query("INSERT INTO TEST.T VALUES (2, 'dup', 2)");
        }),
      );
      expect(refused.messageId).toBe('SQL0803');
    });
    expect(kinds(rows)).toEqual([
      'C SC',
      'R PT',
      'R UB',
      'R UP',
      'R DL',
      'R UR',
      'R BR',
      'R UR',
      'R DR',
      'C RB',
    ]);
    expect(await c.query('SELECT K, V FROM TEST.T ORDER BY K')).toEqual([{ K: 1, V: 'keep' }]);
  });

  it('a file that is not journaled cannot take part (SQL7008 reason code 3)', async () => {
    await c.command('CRTPF FILE(QGPL/FLAT) RCDLEN(10)');
    const e = await failure(c.transaction((t) => t.query("INSERT INTO QGPL.FLAT VALUES ('x')")));
    expect(e.messageId).toBe('SQL7008');
    expect(e.message).toContain('Reason code 3');
  });

  it('closing a connection with work uncommitted rolls it back', async () => {
    const other = await sandbox.connect({ user: 'QSECOFR', password: 'QSECOFR' });
    const open = other.transaction(async (t) => {
      await t.query("INSERT INTO TEST.T VALUES (9, 'x', 0)");
      await other.close();
    });
    await expect(open).rejects.toThrow(/closed/);
    expect(await c.query('SELECT COUNT(*) AS N FROM TEST.T')).toEqual([{ N: 0 }]);
  });
});

describe('RGZPFM', () => {
  it('renumbers the records from 1 and journals F RG', async () => {
    await c.query("INSERT INTO TEST.T VALUES (1, 'a', 0), (2, 'b', 0), (3, 'c', 0), (4, 'd', 0)");
    await c.query('DELETE FROM TEST.T WHERE K IN (1, 3)');
    expect(await c.query('SELECT K, RRN(T) AS R FROM TEST.T ORDER BY K')).toEqual([
      { K: 2, R: 2 },
      { K: 4, R: 4 },
    ]);
    const rows = await after('TEST/QSQJRN', () => c.command('RGZPFM FILE(TEST/T)'));
    expect(kinds(rows)).toEqual(['F RG']);
    expect(await c.query('SELECT K, RRN(T) AS R FROM TEST.T ORDER BY K')).toEqual([
      { K: 2, R: 1 },
      { K: 4, R: 2 },
    ]);
  });
});

describe('receivers and sequence numbers', () => {
  it('CHGJRN *GEN attaches the next receiver (J NR, J PR); a detached one can be deleted, the attached one not', async () => {
    await c.query("INSERT INTO LEGACY.NOTES VALUES ('a', '2026-01-01-00.00.00')");
    await c.command('CHGJRN JRN(LEGACY/JRN) JRNRCV(*GEN)');
    await c.query("INSERT INTO LEGACY.NOTES VALUES ('b', '2026-01-01-00.00.00')");
    const info = await c.query(
      "SELECT JOURNAL_RECEIVER_NAME AS N, STATUS, FIRST_SEQUENCE_NUMBER AS F, LAST_SEQUENCE_NUMBER AS L FROM QSYS2.JOURNAL_RECEIVER_INFO WHERE JOURNAL_LIBRARY = 'LEGACY' ORDER BY ATTACH_TIMESTAMP",
    );
    expect(info.map((r) => `${r.N} ${r.STATUS}`)).toEqual(['JRN0001 ONLINE', 'JRN0002 ATTACHED']);
    expect(Number(info[1]?.F)).toBe(Number(info[0]?.L) + 1);
    const all = await dspjrn(c, 'LEGACY/JRN', 'RCVRNG(*CURCHAIN) JRNCDE((J) (R))');
    expect(kinds(all).slice(-4)).toEqual(['R PT', 'J NR', 'J PR', 'R PT']);

    expect((await failure(c.command('DLTJRNRCV JRNRCV(LEGACY/JRN0002)'))).messageId).toBe('CPF7040');
    await c.command('DLTJRNRCV JRNRCV(LEGACY/JRN0001)');
    const gone = await failure(
      c.command(
        'DSPJRN JRN(LEGACY/JRN) RCVRNG(LEGACY/JRN0001 *CURRENT) OUTPUT(*OUTFILE) OUTFILFMT(*TYPE5) OUTFILE(QGPL/X)',
      ),
    );
    expect(gone.messageId).toBe('CPF9801');
    expect(gone.message).toContain('JRN0001');
  });

  it('SEQOPT(*RESET) starts the new receiver at 1; DSPJRN over both still reads in order', async () => {
    await c.query("INSERT INTO LEGACY.NOTES VALUES ('a', '2026-01-01-00.00.00')");
    await c.command('CHGJRN JRN(LEGACY/JRN) JRNRCV(*GEN) SEQOPT(*RESET)');
    await c.query("INSERT INTO LEGACY.NOTES VALUES ('b', '2026-01-01-00.00.00')");
    const rows = await dspjrn(c, 'LEGACY/JRN', 'RCVRNG(*CURCHAIN) JRNCDE((R))');
    const last = rows.slice(-2);
    expect(last.map((r) => r.receiver)).toEqual(['JRN0001', 'JRN0002']);
    expect(last[1]?.seq).toBe(2); // J PR took 1
    expect(last[0]?.seq).toBeGreaterThan(2);
  });

  it('a reset is refused while a commit cycle is open on the journal', async () => {
    const t = await sandbox.connect({ user: 'QSECOFR', password: 'QSECOFR' });
    let refused: string | undefined;
    await t.transaction(async (tx) => {
      await tx.query("INSERT INTO TEST.T VALUES (1, 'a', 0)");
      refused = (await failure(c.command('CHGJRN JRN(TEST/QSQJRN) JRNRCV(*GEN) SEQOPT(*RESET)'))).messageId;
    });
    expect(refused).toBe('CPF70D9');
  });

  it('a system-managed journal changes receivers by itself at its threshold', async () => {
    const j = sandbox.system.journal('TEST', 'QSQJRN');
    j.threshold = 5;
    for (let k = 1; k <= 12; k++) await c.query('INSERT INTO TEST.T VALUES (?, ?, ?)', [k, 'x', 0]);
    const names = await c.query(
      "SELECT JOURNAL_RECEIVER_NAME AS N FROM QSYS2.JOURNAL_RECEIVER_INFO WHERE JOURNAL_LIBRARY = 'TEST'",
    );
    expect(names.length).toBeGreaterThan(2);
    const rows = await dspjrn(c, 'TEST/QSQJRN', 'RCVRNG(*CURCHAIN) JRNCDE((R))');
    expect(rows.map((r) => r.rrn)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });
});

describe('user entries (SNDJRNE)', () => {
  it('writes a U entry with its type and data, read past a FILE selection only with *IGNFILSLT', async () => {
    await c.query("INSERT INTO TEST.T VALUES (1, 'a', 0)");
    const rows = await after('TEST/QSQJRN', async () => {
      await c.command("SNDJRNE JRN(TEST/QSQJRN) TYPE(HB) ENTDTA('pipe/src')");
      await c.query("INSERT INTO TEST.T VALUES (2, 'b', 0)");
    });
    expect(kinds(rows)).toEqual(['U HB', 'R PT']);
    const [user] = rows;
    expect(user?.object).toBe('');
    expect(user?.cycle).toBe(0);
    // JOESD is as long as the longest entry read: the data, then padding.
    expect(decodeText(user?.esd ?? new Uint8Array(), 37).replace(/\0+$/, '')).toBe('pipe/src');
    // A FILE selection leaves the entry out, unless its code ignores the selection.
    const byFile = await dspjrn(c, 'TEST/QSQJRN', 'FILE(TEST/T) JRNCDE((R) (U))');
    expect(kinds(byFile)).toEqual(['R PT', 'R PT']);
    const ignoring = await dspjrn(c, 'TEST/QSQJRN', 'FILE(TEST/T) JRNCDE((R) (U *IGNFILSLT))');
    expect(kinds(ignoring)).toEqual(['R PT', 'U HB', 'R PT']);
  });

  it('needs *OBJOPR and *ADD on the journal: CPF9802 without *ADD', async () => {
    await c.command('GRTOBJAUT OBJ(TEST) OBJTYPE(*LIB) USER(CDCAGENT) AUT(*USE)');
    await c.command('RVKOBJAUT OBJ(TEST/QSQJRN) OBJTYPE(*JRN) USER(*PUBLIC) AUT(*ALL)');
    await c.command('GRTOBJAUT OBJ(TEST/QSQJRN) OBJTYPE(*JRN) USER(CDCAGENT) AUT(*USE)');
    const agent = await sandbox.connect({ ...SEED_AGENT });
    try {
      const refused = await failure(agent.command("SNDJRNE JRN(TEST/QSQJRN) TYPE(HB) ENTDTA('x')"));
      expect(refused.messageId).toBe('CPF9802');
      expect(refused.message).toContain('QSQJRN');
      await c.command('GRTOBJAUT OBJ(TEST/QSQJRN) OBJTYPE(*JRN) USER(CDCAGENT) AUT(*OBJOPR *ADD)');
      await agent.command("SNDJRNE JRN(TEST/QSQJRN) TYPE(HB) ENTDTA('x')");
      expect(kinds(await dspjrn(c, 'TEST/QSQJRN', 'JRNCDE((U))'))).toEqual(['U HB']);
    } finally {
      await agent.close();
    }
  });
});
