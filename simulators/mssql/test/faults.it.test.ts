// The simulated SQL Server's fault drills, seen through the real `mssql` driver: what a client sees
// when a result set breaks off half way, by error 1205 or by the connection going.
import sql from 'mssql';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandboxSqlServer, type SandboxSqlServer } from '..';
import { sandboxPool } from '../../../test/helpers/sandbox';

let sandbox: SandboxSqlServer;
let pool: sql.ConnectionPool;
beforeEach(async () => {
  sandbox = await startSandboxSqlServer({ seed: true });
  pool = await sandboxPool(sandbox, { user: 'sa', password: 'Sandbox-Passw0rd', max: 1 });
});
afterEach(async () => {
  await pool.close();
  await sandbox.close();
});

const ALL_CUSTOMERS = 'SELECT CustomerId FROM dbo.Customers ORDER BY CustomerId';

/** Streams a query, answering the rows seen before it ended and how it ended. */
function streamed(request: sql.Request, statement: string): Promise<{ rows: number; error: unknown }> {
  request.stream = true;
  return new Promise((resolve) => {
    let rows = 0;
    let error: unknown = null;
    request.on('row', () => rows++);
    request.on('error', (e: unknown) => (error ??= e));
    request.on('done', () => resolve({ rows, error }));
    request.query(statement);
  });
}

describe('a fault in the middle of a result set', () => {
  it('fail-mid-result: half the rows arrive, then error 1205 ends the request and rolls back its transaction', async () => {
    const { recordset } = await pool
      .request()
      .query<{ n: number }>('SELECT COUNT(*) AS n FROM dbo.Customers');
    const total = recordset[0]?.n ?? 0;
    expect(total).toBeGreaterThanOrEqual(4);
    const tx = new sql.Transaction(pool);
    await tx.begin();
    await new sql.Request(tx).query("UPDATE dbo.Customers SET Country = 'XX' WHERE CustomerId = 1");
    sandbox.injectFaults('fail-mid-result', 1);
    const { rows, error } = await streamed(new sql.Request(tx), ALL_CUSTOMERS);
    expect(rows).toBe(Math.floor(total / 2));
    expect(error).toMatchObject({ number: 1205, class: 13 });
    expect(String((error as Error).message)).toMatch(
      /chosen as the deadlock victim\. Rerun the transaction\./,
    );
    // The server rolled the transaction back: the update is gone, and the driver knows.
    await expect(tx.commit()).rejects.toThrow(/aborted/i);
    const country = await pool
      .request()
      .query<{ c: string }>('SELECT Country AS c FROM dbo.Customers WHERE CustomerId = 1');
    expect(country.recordset[0]?.c).not.toBe('XX');
  });

  it('fail-mid-result reaches parameterised requests (sp_executesql) too, and waits for a request with rows', async () => {
    sandbox.injectFaults('fail-mid-result', 1);
    // No result set with two rows: the fault stays armed.
    await pool.request().query('SELECT 1 AS one');
    await pool
      .request()
      .input('id', sql.Int, 1)
      .query('UPDATE dbo.Customers SET Country = Country WHERE CustomerId = @id');
    const error = await pool
      .request()
      .input('min', sql.Int, 0)
      .query('SELECT CustomerId FROM dbo.Customers WHERE CustomerId > @min')
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ number: 1205 });
    // Spent: the next request is answered whole, on the same connection.
    const whole = await pool.request().query(ALL_CUSTOMERS);
    expect(whole.recordset.length).toBeGreaterThanOrEqual(4);
  });

  it('drop-mid-result: half the rows arrive, then the connection is lost; the pool opens a new one', async () => {
    const before = sandbox.server.connections();
    sandbox.injectFaults('drop-mid-result', 1);
    const { rows, error } = await streamed(pool.request(), ALL_CUSTOMERS);
    expect(rows).toBeGreaterThan(0);
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toMatch(/connection|socket|closed|lost/i);
    const again = await pool.request().query(ALL_CUSTOMERS);
    expect(again.recordset.length).toBeGreaterThan(rows);
    expect(sandbox.server.connections()).toBe(before);
  });
});
