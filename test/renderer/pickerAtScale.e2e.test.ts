// The table picker at a real shop's size, in a real browser at 1280×800 and by keyboard: 850 tables on
// the simulated SQL Server, a search matching 300 of them over three pages, all 300 chosen in one go,
// and Save with its answer in view and focused however long the list.
import type sql from 'mssql';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngineClient } from '../../main/client/engineClient';
import type { SandboxSqlServer } from '../../simulators/mssql';
import { readySandbox } from '../helpers/changeTracking';
import { DBA } from '../helpers/sandbox';
import { scanAccessibility, startWebApp, type WebApp } from './browser';

const ORDERS = 300;
const STOCK = 550;
let web: WebApp;
let sandbox: SandboxSqlServer;
let admin: sql.ConnectionPool;
let page: Page;

const table = (prefix: string, n: number) => `${prefix}_${String(n).padStart(3, '0')}`;

beforeAll(async () => {
  const names = [
    ...Array.from({ length: ORDERS }, (_, i) => table('Orders', i + 1)),
    ...Array.from({ length: STOCK }, (_, i) => table('Stock', i + 1)),
  ];
  [web, { sandbox, admin }] = await Promise.all([
    startWebApp(),
    readySandbox(
      names
        .map(
          (name) =>
            `CREATE TABLE dbo.${name} (Id INT PRIMARY KEY, Note NVARCHAR(20)); ALTER TABLE dbo.${name} ENABLE CHANGE_TRACKING;`,
        )
        .join('\n'),
    ),
  ]);
  const local = createEngineClient({
    baseUrl: web.app.deps.localEngine.status().url ?? '',
    token: (await web.app.deps.profiles.token('local')) ?? '',
  });
  const ids = { pipelineId: 'shop', agentId: 'sql' };
  await local.createPipeline({}, { id: ids.pipelineId, name: 'Shop, 850 tables' });
  await local.createAgent(ids, { id: ids.agentId, type: 'change-tracking', role: 'source' });
  await local.putCredentials(ids, {
    hostCredentials: {
      connectionName: 'shop',
      host: '127.0.0.1',
      port: sandbox.port,
      databaseName: 'Sales',
      username: DBA.name,
      password: DBA.password,
    },
  });
  await local.putSpecific(ids, { configuration: {} });
  // bypassCSP: axe is injected as a script, which the app's CSP rightly refuses.
  page = await web.browser.newPage({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
  page.setDefaultTimeout(20_000);
});
afterAll(async () => {
  await web?.close();
  await admin?.close();
  await sandbox?.close();
});

/** Whether the element is inside the 1280×800 view and has the focus. */
const inViewAndFocused = (selector: ReturnType<Page['locator']>) =>
  selector.evaluate((el) => {
    const box = el.getBoundingClientRect();
    return {
      inView:
        box.top >= 0 && box.bottom <= window.innerHeight && box.left >= 0 && box.right <= window.innerWidth,
      focused: el === document.activeElement,
    };
  });

describe('the table picker at 850 tables', () => {
  it('searches, chooses all 300 matching over three pages by keyboard, and saves with its answer in view', async () => {
    await page.goto(`${web.server.openUrl}`);
    await page.getByRole('button', { name: 'Shop, 850 tables', exact: true }).click();
    await page
      .getByRole('navigation', { name: 'Pipeline sections' })
      .getByRole('link', { name: 'Tables' })
      .click();
    await page.getByRole('button', { name: 'Choose tables' }).click();
    const status = page.getByLabel('Picker status');
    await expect.poll(() => status.textContent()).toMatch(/^850 matching, page 1; 0 chosen\./);

    // By keyboard: the search typed and sent with Enter, then Tab to "Choose all 300 matching".
    await page.getByLabel('Name contains').focus();
    await page.keyboard.type('orders');
    await page.keyboard.press('Enter');
    await expect.poll(() => status.textContent()).toMatch(/^300 matching, page 1;/);
    const chooseAll = page.getByRole('button', { name: 'Choose all 300 matching' });
    await chooseAll.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => status.textContent()).toMatch(/300 chosen\. 300 matching tables chosen\.$/);

    // Only the matching ones: no Stock table among those to be saved.
    const save = page.getByRole('button', { name: 'Save 300 tables' });
    expect(await inViewAndFocused(save)).toMatchObject({ inView: true });
    await save.focus();
    await page.keyboard.press('Enter');
    const result = page.getByLabel('Save result');
    await expect
      .poll(() => result.textContent(), { timeout: 30_000 })
      .toBe('Saved: the pipeline replicates 300 tables.');
    expect(await inViewAndFocused(result)).toEqual({ inView: true, focused: true });
    const saved = await callEntities();
    expect(saved.length).toBe(ORDERS);
    expect(saved.every((name) => name.startsWith('Orders_'))).toBe(true);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await scanAccessibility(page)).toEqual([]);
    }
  });
});

async function callEntities(): Promise<string[]> {
  const local = createEngineClient({
    baseUrl: web.app.deps.localEngine.status().url ?? '',
    token: (await web.app.deps.profiles.token('local')) ?? '',
  });
  const { entities } = await local.listEntities({ pipelineId: 'shop' });
  return entities.map((e) => e.source.table);
}
