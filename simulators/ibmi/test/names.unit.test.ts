// Names with $, # and @ on a system whose CCSID shows those bytes as other characters (IBM, "Variant
// characters"): under CCSID 285 the byte of $ (X'5B') is £, and $ itself is X'4A', which no name may
// hold. The catalog, the outfiles and the commands all speak the system's characters.
import { afterEach, describe, expect, it } from 'vitest';
import type { IbmiConnection } from '../../../lib/ibmi/connection';
import { startSandboxIbmi, type SandboxIbmi } from '..';
import { SEED_ADMIN } from '../seed';
import { dspjrn, failure } from '../../../test/helpers/ibmi';

let sandbox: SandboxIbmi;
let c: IbmiConnection;
const open = async (ccsid: number) => {
  sandbox = await startSandboxIbmi({ seed: true, ccsid });
  c = await sandbox.connect({ ...SEED_ADMIN, defaultLibrary: 'QGPL' });
};
afterEach(async () => {
  await c?.close();
  await sandbox?.close();
});

describe('national characters in names', () => {
  it('under CCSID 285, £ # @ make names, in SQL, in CL, in the catalog and in DSPJRN', async () => {
    await open(285);
    expect(sandbox.system.nameCharacters).toBe('£#@');
    await c.query('CREATE SCHEMA £SHOP#');
    await c.query('CREATE TABLE £SHOP#.ORD£@ (ID INTEGER NOT NULL PRIMARY KEY, £NET DECIMAL(9, 2))');
    await c.query('INSERT INTO £shop#.ord£@ VALUES (1, 12.50)');
    const tables = await c.query(
      "SELECT SYSTEM_TABLE_SCHEMA, SYSTEM_TABLE_NAME FROM QSYS2.SYSTABLES WHERE SYSTEM_TABLE_SCHEMA = '£SHOP#'",
    );
    expect(
      tables.map((r) => [String(r.SYSTEM_TABLE_SCHEMA).trim(), String(r.SYSTEM_TABLE_NAME).trim()]),
    ).toEqual([['£SHOP#', 'ORD£@']]);
    const [row] = await c.query('SELECT £NET FROM £SHOP#.ORD£@');
    expect(Object.keys(row ?? {})).toEqual(['£NET']);
    await c.command('CHKOBJ OBJ(£SHOP#/ORD£@) OBJTYPE(*FILE)');
    await dspjrn(c, '£SHOP#/QSQJRN', 'FILE(£SHOP#/ORD£@)');
    const entries = await c.query("SELECT JOLIB, JOOBJ FROM QGPL.JRNOUT WHERE JOENTT = 'PT'");
    expect(entries.map((e) => [String(e.JOLIB).trim(), String(e.JOOBJ).trim()])).toEqual([
      ['£SHOP#', 'ORD£@'],
    ]);
  });

  it('under CCSID 285, $ is no name character: SQL0104 and CPD0078, as IBM i answers', async () => {
    await open(285);
    expect((await failure(c.query('CREATE SCHEMA $SHOP'))).messageId).toBe('SQL0104');
    expect((await failure(c.command('CRTLIB LIB($SHOP)'))).message).toContain('CPD0078');
  });

  it('under CCSID 37, £ is no name character and $ is one', async () => {
    await open(37);
    expect((await failure(c.query('CREATE SCHEMA £SHOP'))).messageId).toBe('SQL0104');
    await c.query('CREATE SCHEMA $SHOP');
    await c.query('CREATE TABLE $SHOP.ORD#@ (ID INTEGER NOT NULL PRIMARY KEY)');
    await c.command('CHKOBJ OBJ($SHOP/ORD#@) OBJTYPE(*FILE)');
  });

  it('under CCSID 297, à is @ and folding leaves it alone', async () => {
    await open(297);
    await c.query('CREATE SCHEMA PARIS');
    await c.query('CREATE TABLE PARIS.PRIXà (ID INTEGER NOT NULL PRIMARY KEY)');
    await c.command('CHKOBJ OBJ(paris/prixà) OBJTYPE(*FILE)');
    expect((await failure(c.command('CHKOBJ OBJ(PARIS/PRIXÀ) OBJTYPE(*FILE)'))).message).toContain('CPD0078');
  });
});
