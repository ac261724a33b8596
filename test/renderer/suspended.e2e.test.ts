// A pipeline with a suspended table and a row kept aside, as a DBA meets it in a real browser: Home says
// "1 of 2 tables suspended, 1 row kept aside"; the Tables section names the table, its reason and the
// row (key, values, the target's words), exports the rows as CSV, resumes the table from its position and
// retries the row once the causes are fixed; axe clean.
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type sql from 'mssql';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngineClient, type EngineClient } from '../../main/client/engineClient';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../simulators/mssql';
import { configureSeedPipeline } from '../helpers/changeTracking';
import { sandboxPool } from '../helpers/sandbox';
import { until } from '../helpers/until';
import { openSection, scanAccessibility, screenshot, startWebApp, type WebApp } from './browser';

let web: WebApp;
let local: EngineClient;
let sandbox: SandboxSqlServer;
let admin: sql.ConnectionPool;
let page: Page;
const ids = { pipelineId: 'shop', agentId: 'sales' };

const onReplica = (statements: string) => {
  const db = new Database(join(web.app.dataDir, 'replicas', 'shop.sqlite'), { timeout: 5000 });
  db.exec(statements);
  db.close();
};
const replicaCountry = (id: number) => {
  const db = new Database(join(web.app.dataDir, 'replicas', 'shop.sqlite'), { timeout: 5000 });
  const row = db.prepare('SELECT Country FROM customers WHERE CustomerId = ?').get(id) as
    { Country: string } | undefined;
  db.close();
  return row?.Country;
};
const kinds = async () => (await local.listEvents({ pipelineId: ids.pipelineId })).map((e) => e.kind);

beforeAll(async () => {
  [web, sandbox] = await Promise.all([startWebApp(), startSandboxSqlServer({ seed: true })]);
  admin = await sandboxPool(sandbox, { user: 'sa', password: 'Sandbox-Passw0rd', max: 1 });
  const url = web.app.deps.localEngine.status().url ?? '';
  local = createEngineClient({ baseUrl: url, token: (await web.app.deps.profiles.token('local')) ?? '' });
  await configureSeedPipeline(local, sandbox, ids, ['Customers', 'Orders']);
  await local.startAgent(ids);
  await until('both copies', async () => (await kinds()).filter((k) => k === 'snapshot-done').length === 2);
  // The replica refuses one customer's row, and has lost its orders table.
  onReplica(`CREATE TRIGGER refuse_zz BEFORE UPDATE ON customers WHEN NEW.Country = 'ZZ'
    BEGIN SELECT RAISE(ABORT, 'refused: ZZ is not a country'); END;
    ALTER TABLE orders RENAME TO orders_away;`);
  await admin.request().batch(`UPDATE dbo.Customers SET Country = 'ZZ' WHERE CustomerId = 1;
    UPDATE dbo.Orders SET Status = 'shipped' WHERE OrderId = 1000;`);
  await until('the row kept and the table suspended', async () => {
    const k = await kinds();
    return k.includes('rows-refused') && k.includes('table-suspended');
  });
  // Only to let the test inject axe: the app's own CSP stays as it ships.
  page = await web.browser.newPage({ bypassCSP: true, acceptDownloads: true });
  page.setDefaultTimeout(15_000);
});
afterAll(async () => {
  await web?.close();
  await admin?.close();
  await sandbox?.close();
});

describe('a suspended table and a row kept aside', () => {
  it('are on Home, in words', async () => {
    await page.goto(web.server.openUrl);
    const row = page
      .getByRole('table', { name: 'Pipelines of every engine' })
      .getByRole('row', { name: /shop/ });
    await row.getByText('1 of 2 tables suspended, 1 row kept aside').waitFor();
    await page.getByRole('status', { name: 'Summary' }).getByText('1 table suspended').waitFor();
    expect(await scanAccessibility(page)).toEqual([]);
    await row.getByRole('button', { name: 'shop' }).click();
  });

  it('are in the Tables section with the reason, the row and what to do; the rows export as CSV', async () => {
    const tables = await openSection(page, 'Tables');
    await tables.getByText('1 of 2 tables suspended').waitFor();
    const orders = tables
      .getByRole('table', { name: 'Entity tables' })
      .getByRole('row', { name: /dbo\.Orders/ });
    await orders.getByText(/^dbo\.Orders was suspended: .*no such table/).waitFor();
    const kept = tables.getByRole('table', { name: 'Rows kept aside' });
    await kept.getByText('CustomerId = 1', { exact: true }).waitFor();
    expect(await kept.getByRole('row').nth(1).textContent()).toMatch(
      /dbo\.Customers.*update.*Country = ZZ.*refused: ZZ is not a country/s,
    );
    await tables.getByText(/1 row of 1 table/).waitFor();
    expect(await scanAccessibility(page)).toEqual([]);
    await screenshot(page, 'tables-suspended-and-kept');

    const download = page.waitForEvent('download');
    await tables.getByRole('button', { name: 'Export CSV' }).click();
    const csv = readFileSync((await (await download).path()) ?? '', 'utf8').split('\r\n');
    expect(csv[0]).toBe(
      'id,table,operation,key,position,values,error,raw image (hex),kept at,tried at,attempts',
    );
    expect(csv[1]).toMatch(
      /^\d+,dbo\.Customers,update,CustomerId=1,\d+,.*Country=ZZ.*,SQLite file .*: refused: ZZ is not a country,,/,
    );
  });

  it('resumes the table from its position and retries the row once the causes are fixed', async () => {
    const tables = page.getByRole('region', { name: 'Tables section' });
    onReplica('ALTER TABLE orders_away RENAME TO orders; DROP TRIGGER refuse_zz;');
    await tables.getByRole('button', { name: 'Resume dbo.Orders' }).first().click();
    await page.getByText('dbo.Orders resumes from where it was suspended.').waitFor();
    await until('Orders read on', async () => (await kinds()).includes('table-resumed'));
    await tables.getByText('1 of 2 tables suspended').waitFor({ state: 'detached' });

    await tables.getByRole('button', { name: 'Retry all' }).click();
    await page
      .getByText('Retried from the source: 1 applied, 0 refused again (kept with the new error).')
      .waitFor();
    await tables.getByRole('table', { name: 'Rows kept aside' }).waitFor({ state: 'detached' });
    expect(replicaCountry(1)).toBe('ZZ');
    expect(await scanAccessibility(page)).toEqual([]);
  });
});
