// The generic parts of the ODBC IbmiConnection (connection string, parameters, pooling with a
// check before reuse, transactions, error mapping) through a real driver manager: unixODBC with
// Debian's SQLite ODBC driver standing in for the IBM i Access ODBC Driver.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { IbmiError } from '../../../../../lib/ibmi/connection';
import {
  ibmiConnectionString,
  openOdbcIbmi,
  type OdbcIbmiOptions,
} from '../../../../../main/agents/drivers/ibmi/odbc';

const base: OdbcIbmiOptions = {
  host: 'pub400.example',
  username: 'CDCAGENT',
  password: 'pa;ss}word',
  dateFormat: 'iso',
  timeFormat: 'hms',
  blockSize: 32,
  useConnectionPool: true,
  maxConnectionsCount: 2,
};

function sqliteDriver(): string | null {
  try {
    return execFileSync('odbcinst', ['-q', '-d'], { encoding: 'utf8' }).includes('[SQLite3]')
      ? 'SQLite3'
      : null;
  } catch {
    return null;
  }
}
const driver = sqliteDriver();
if (!driver)
  console.warn(
    'Skipping the ODBC driver-manager tests: unixODBC with the SQLite3 driver (libsqliteodbc) is not installed.',
  );

describe('the connection string', () => {
  it("maps the spec's formats to the driver's numbers, block size 0 to no block fetch, and braces awkward values", () => {
    const s = ibmiConnectionString({
      ...base,
      dateFormat: 'mdy',
      timeFormat: 'usa',
      blockSize: 0,
      defaultLibrary: 'SYNC',
    });
    expect(s).toBe(
      'DRIVER={IBM i Access ODBC Driver};SYSTEM=pub400.example;UID=CDCAGENT;PWD={pa;ss}}word};NAM=0;DFT=1;TFT=1;BLOCKFETCH=0;CMT=0;TRUEAUTOCOMMIT=0;DBQ=SYNC',
    );
    expect(ibmiConnectionString({ ...base, dateFormat: 'julian', timeFormat: 'iso' })).toContain(
      'DFT=0;TFT=2;BLOCKFETCH=1;CMT=0;TRUEAUTOCOMMIT=0;BLOCKSIZE=32',
    );
  });
});

describe.skipIf(!driver)('through unixODBC', () => {
  const open = (extra: Partial<OdbcIbmiOptions> = {}) => {
    const db = join(mkdtempSync(join(tmpdir(), 'cdc-odbc-')), 'x.db');
    return openOdbcIbmi({
      ...base,
      connectionString: `Driver=${driver};Database=${db}`,
      probeSql: 'SELECT 1',
      ...extra,
    });
  };

  it('binds parameters, answers upper-case column names, and commits or rolls back a transaction', async () => {
    const c = await open();
    await c.query('CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)');
    await c.query('INSERT INTO t VALUES (?, ?)', [1, "it's"]);
    await c.transaction((t) => t.query('INSERT INTO t VALUES (?, ?)', [2, 'kept']));
    await expect(
      c.transaction(async (t) => {
        await t.query('INSERT INTO t VALUES (?, ?)', [3, 'gone']);
        throw new Error('stop');
      }),
    ).rejects.toThrow('stop');
    expect(await c.query('SELECT k, v FROM t ORDER BY k')).toEqual([
      { K: 1, V: "it's" },
      { K: 2, V: 'kept' },
    ]);
    await c.close();
  });

  it('a pooled connection dropped while idle is replaced, not handed out', async () => {
    const c = await open();
    await c.query('SELECT 1');
    const idle = c.pool.idleConnections();
    expect(idle.length).toBe(1);
    await idle[0]?.close();
    expect(await c.query('SELECT 2 AS n')).toEqual([{ N: 2 }]);
    await c.close();
  });

  it('never holds more connections than maxConnectionsCount', async () => {
    const c = await open({ maxConnectionsCount: 2 });
    await Promise.all(Array.from({ length: 6 }, (_, i) => c.query('SELECT ? AS n', [i])));
    expect(c.pool.idleConnections().length).toBeLessThanOrEqual(2);
    await c.close();
  });

  it('a driver error becomes an IbmiError without the password', async () => {
    const c = await open({ password: 'TopSecret' });
    const e = await c.query('SELECT * FROM missing_TopSecret').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(IbmiError);
    expect(String((e as Error).message)).not.toContain('TopSecret');
    expect(String((e as Error).message)).toContain('missing_');
    await c.close();
  });

  it('says plainly when the IBM i driver is not installed', async () => {
    const e = await openOdbcIbmi({ ...base, driver: 'IBM i Access ODBC Driver' }).catch((x: unknown) => x);
    expect(e).toMatchObject({ messageId: 'ODBC-SETUP' });
    expect(String((e as Error).message)).toContain('IBM i Access ODBC Driver is not installed');
  });
});
