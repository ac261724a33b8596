// DSPJRN's outfile in the simulated IBM i keeps its records as made until something other than a plain
// read reaches its table (Member.pending). Whatever reads it must see what it would have seen had they
// been written at once: the plain read answers every field exactly as the table does, and every other
// way in (a WHERE, COUNT, RRN, OUTMBR(*ADD), the record count) finds the records in the table.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IbmiConnection } from '../../../lib/ibmi/connection';
import type { SandboxIbmi } from '..';
import { seededIbmi } from '../../../test/helpers/ibmi';

let sandbox: SandboxIbmi;
let c: IbmiConnection;

const outfileMember = () => sandbox.system.file('QGPL', 'JRNOUT')?.members[0];
const display = (options = '') =>
  c.command(
    `DSPJRN JRN(TEST/QSQJRN) RCVRNG(*CURCHAIN) OUTPUT(*OUTFILE) OUTFILFMT(*TYPE5) OUTFILE(QGPL/JRNOUT) ${options}`,
  );

beforeEach(async () => {
  ({ sandbox, admin: c } = await seededIbmi());
  await c.query('CREATE SCHEMA TEST');
  await c.query(
    'CREATE TABLE TEST.T (K INTEGER NOT NULL PRIMARY KEY, V VARCHAR(40), D DECIMAL(11,3), AT TIMESTAMP, G GRAPHIC(4) CCSID 13488)',
  );
  await c.command('CHGJRNOBJ OBJ((TEST/T *FILE)) ATR(*IMAGES) IMAGES(*BOTH)');
  await c.query(
    "INSERT INTO TEST.T VALUES (1, 'one', 1.5, '2026-01-01-10.00.00.123456', 'ab'), (2, NULL, -2.25, NULL, NULL)",
  );
  await c.transaction(async (t) => {
    await t.query("UPDATE TEST.T SET V = 'a longer value than the others, 40 ch' WHERE K = 1");
    await t.query('DELETE FROM TEST.T WHERE K = 2');
  });
  await c.query('ALTER TABLE TEST.T ADD COLUMN E INTEGER');
  await c.query('INSERT INTO TEST.T (K, E) VALUES (3, 42)');
});
afterEach(() => sandbox.close());

describe("DSPJRN's outfile kept as made until its table is needed", () => {
  it('answers the plain read of every field exactly as its table does', async () => {
    for (const options of ['ENTDTALEN(*CALC)', 'ENTDTALEN(12) NULLINDLEN(3)']) {
      await display(options);
      expect(outfileMember()?.pending?.count).toBeGreaterThan(8);
      // Every field of the outfile, by name (the catalog does not reach the records).
      const fields = await c.query(
        "SELECT COLUMN_NAME FROM QSYS2.SYSCOLUMNS WHERE TABLE_SCHEMA = 'QGPL' AND TABLE_NAME = 'JRNOUT' ORDER BY ORDINAL_POSITION",
      );
      expect(fields.length).toBe(38);
      expect(outfileMember()?.pending).toBeDefined();
      const plain = `SELECT ${fields.map((f) => String(f.COLUMN_NAME).trim()).join(', ')} FROM QGPL.JRNOUT ORDER BY RRN(JRNOUT)`;
      const kept = await c.query(plain);
      expect(outfileMember()?.pending).toBeDefined();
      // A WHERE is not the plain read: the records go into the table, and the same read answers from it.
      const counted = await c.query('SELECT COUNT(*) AS N FROM QGPL.JRNOUT WHERE JOSEQN > 0');
      expect(outfileMember()?.pending).toBeUndefined();
      expect(Number(counted[0]?.N)).toBe(kept.length);
      expect(await c.query(plain)).toEqual(kept);
    }
  });

  it('numbers the records from 1, and OUTMBR(*ADD) appends after them', async () => {
    // The same layout both times (OUTMBR(*ADD) needs it): JOESD and JONVI of fixed lengths.
    await display('JRNCDE((R)) ENTDTALEN(100) NULLINDLEN(10)');
    const first = outfileMember()?.pending?.count ?? 0;
    expect(first).toBeGreaterThan(0);
    await display('JRNCDE((C)) ENTDTALEN(100) NULLINDLEN(10) OUTMBR(*FIRST *ADD)');
    expect(outfileMember()?.pending).toBeUndefined();
    const rows = await c.query('SELECT RRN(JRNOUT) AS R, JOCODE FROM QGPL.JRNOUT ORDER BY RRN(JRNOUT)');
    expect(rows.map((r) => Number(r.R))).toEqual(rows.map((_, i) => i + 1));
    expect(rows.slice(0, first).every((r) => r.JOCODE === 'R')).toBe(true);
    expect(rows.slice(first).every((r) => r.JOCODE === 'C')).toBe(true);
    expect(rows.length).toBeGreaterThan(first);
  });

  it('is counted by the catalog, replaced by the next DSPJRN, and cleared or dropped unwritten', async () => {
    await display();
    const count = outfileMember()?.pending?.count ?? 0;
    const [stat] = await c.query(
      "SELECT NUMBER_ROWS FROM QSYS2.SYSPARTITIONSTAT WHERE TABLE_SCHEMA = 'QGPL' AND TABLE_NAME = 'JRNOUT'",
    );
    expect(Number(stat?.NUMBER_ROWS)).toBe(count);
    expect(outfileMember()?.pending?.count).toBe(count);
    await display('JRNCDE((R))');
    const replaced = outfileMember()?.pending?.count ?? 0;
    expect(replaced).toBeLessThan(count);
    expect((await c.query('SELECT JOCODE FROM QGPL.JRNOUT')).length).toBe(replaced);
    await c.command('CLRPFM FILE(QGPL/JRNOUT)');
    expect(outfileMember()?.pending).toBeUndefined();
    expect(await c.query('SELECT JOCODE FROM QGPL.JRNOUT')).toEqual([]);
    await display();
    await c.command('DLTF FILE(QGPL/JRNOUT)');
    expect(sandbox.system.file('QGPL', 'JRNOUT')).toBeUndefined();
  });
});
