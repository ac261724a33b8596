// The simulated IBM i's fault drills through the IbmiConnection interface: a fetch that fails half
// way (SQL0913) or loses its job (CWBCO1047), and faults that wait for the statement they are meant for.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IbmiConnection } from '../../../lib/ibmi/connection';
import type { SandboxIbmi } from '..';
import { SEED_ADMIN } from '../seed';
import { failure, seededIbmi } from '../../../test/helpers/ibmi';

let sandbox: SandboxIbmi;
let c: IbmiConnection;
beforeEach(async () => ({ sandbox, admin: c } = await seededIbmi()));
afterEach(() => sandbox.close());

const ALL = 'SELECT ID FROM SHOP.CUSTOMER ORDER BY ID';

describe('a fault while rows are fetched', () => {
  it('fail-mid-result: SQL0913 names the file; the job and its transaction go on', async () => {
    await c.transaction(async (tx) => {
      await tx.query('UPDATE SHOP.CUSTOMER SET CITY = ? WHERE ID = 1', ['Chur']);
      sandbox.system.injectFaults('fail-mid-result', 1);
      // A statement with fewer than two rows is not struck: the fault waits.
      expect(await tx.query('SELECT CITY FROM SHOP.CUSTOMER WHERE ID = 1')).toEqual([
        { CITY: 'Chur'.padEnd(20) },
      ]);
      expect(await failure(tx.query(ALL))).toMatchObject({
        messageId: 'SQL0913',
        message: 'SQL0913: Row or object CUSTOMER type *FILE in SHOP in use.',
      });
      expect(sandbox.system.pendingFaults()).toBe(0);
    });
    const other = await sandbox.connect({ ...SEED_ADMIN });
    expect(await other.query('SELECT CITY FROM SHOP.CUSTOMER WHERE ID = 1')).toEqual([
      { CITY: 'Chur'.padEnd(20) },
    ]);
    await other.close();
  });

  it('drop-mid-result: CWBCO1047, the job ended and its uncommitted work rolled back', async () => {
    const before = await c.query('SELECT CITY FROM SHOP.CUSTOMER WHERE ID = 1');
    const error = await failure(
      c.transaction(async (tx) => {
        await tx.query('UPDATE SHOP.CUSTOMER SET CITY = ? WHERE ID = 1', ['Chur']);
        sandbox.system.injectFaults('drop-mid-result', 1, 0, /FROM SHOP\.CUSTOMER ORDER BY/);
        await tx.query('SELECT ID FROM SHOP.CUSTOMER WHERE ID > 0'); // not matching: answered whole
        await tx.query(ALL);
      }),
    );
    expect(error).toMatchObject({ messageId: 'CWBCO1047' });
    await expect(c.query('VALUES 1')).rejects.toThrow(/closed/);
    const other = await sandbox.connect({ ...SEED_ADMIN });
    expect(await other.query('SELECT CITY FROM SHOP.CUSTOMER WHERE ID = 1')).toEqual(before);
    await other.close();
  });
});
