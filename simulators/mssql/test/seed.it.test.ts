// Sandbox mode's sample database, as a new user meets it through mssql.
import sql from 'mssql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxSqlServer, type SandboxSqlServer } from '..';
import { SEED_LOGINS } from '../seed';

let sandbox: SandboxSqlServer;
const pools: sql.ConnectionPool[] = [];
async function connect(name: string): Promise<sql.ConnectionPool> {
  const login = SEED_LOGINS.find((l) => l.name === name);
  const p = await new sql.ConnectionPool({
    server: '127.0.0.1',
    port: sandbox.port,
    user: name,
    password: login?.password ?? '',
    database: 'Sales',
    options: { encrypt: false },
  }).connect();
  pools.push(p);
  return p;
}

beforeAll(async () => {
  sandbox = await startSandboxSqlServer({ seed: true });
});
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
  await sandbox?.close();
});

describe('the sample Sales database', () => {
  it('has realistic tables and rows', async () => {
    const p = await connect('cdc_agent');
    const counts = await p.request().query(`
      SELECT (SELECT COUNT(*) FROM dbo.Customers) AS customers, (SELECT COUNT(*) FROM dbo.Orders) AS orders,
        (SELECT COUNT(*) FROM dbo.OrderLines) AS lines, (SELECT COUNT(*) FROM dbo.Products) AS products`);
    expect(counts.recordset[0]).toEqual({ customers: 4, orders: 2, lines: 3, products: 3 });
    const names = await p
      .request()
      .query("SELECT Name FROM dbo.Customers WHERE Country = 'FR' ORDER BY CustomerId");
    expect(names.recordset.map((r) => r.Name)).toEqual(['Marie Curie', 'Émilie du Châtelet']);
  });

  it('tracks changes on Customers, Orders and OrderLines, not on Products, and has a table without a primary key', async () => {
    const p = await connect('cdc_agent');
    const tracked = await p
      .request()
      .query(
        'SELECT t.name FROM sys.change_tracking_tables ct JOIN sys.tables t ON t.object_id = ct.object_id ORDER BY t.name',
      );
    expect(tracked.recordset.map((r) => r.name)).toEqual(['Customers', 'OrderLines', 'Orders']);
    const noKey = await p
      .request()
      .query(
        "SELECT t.name FROM sys.tables t WHERE NOT EXISTS (SELECT 1 FROM sys.key_constraints k WHERE k.parent_object_id = t.object_id AND k.type = 'PK')",
      );
    expect(noKey.recordset.map((r) => r.name)).toEqual(['AuditLog']);
    const snapshot = await p
      .request()
      .query("SELECT snapshot_isolation_state_desc AS s FROM sys.databases WHERE name = 'Sales'");
    expect(snapshot.recordset[0].s).toBe('ON');
    const changes = await p
      .request()
      .query('SELECT COUNT(*) AS n FROM CHANGETABLE(CHANGES dbo.Orders, NULL) AS CT');
    expect(changes.recordset[0].n).toBe(2);
  });

  it('gives the limited login the failures the checker explains', async () => {
    const p = await connect('cdc_limited');
    const e = (await p
      .request()
      .query('SELECT name FROM SYS.SCHEMAS')
      .catch((x: unknown) => x)) as sql.RequestError;
    expect(e.message).toBe("Invalid object name 'SYS.SCHEMAS'.");
  });
});
