// Sandbox mode in a real browser: one click starts the simulated SQL Server and the simulated IBM i
// with sample data and a pipeline for each on the local engine; the user checks them, starts them,
// and sees the rows arrive.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSection, screenshot, startPipeline, startWebApp, type WebApp } from './browser';
import { sandboxIbmiAt } from '../../simulators/ibmi';
import { SEED_ADMIN } from '../../simulators/ibmi/seed';

let web: WebApp;
let page: Page;
/** The simulated IBM i the app started, as its checks name it. */
let ibmiHost = '';

beforeAll(async () => {
  web = await startWebApp();
  page = await web.browser.newPage();
  page.setDefaultTimeout(15_000);
});
afterAll(async () => {
  await web?.close();
});

describe('Try the sandbox', () => {
  it('sets up a pipeline from the sample Sales database, which checks and runs', async () => {
    await page.goto(web.server.openUrl);
    await page.getByRole('button', { name: 'Pipelines' }).click();
    await page.getByRole('button', { name: 'Try the sandbox' }).click();
    await page
      .getByRole('status')
      .getByText(/The sandbox SQL Server runs on 127\.0\.0\.1:\d+/)
      .waitFor();
    expect(await page.getByLabel('Pipeline', { exact: true }).inputValue()).toBe('sandbox/sales');
    expect(
      await page.getByRole('status').filter({ hasText: 'The sandbox SQL Server' }).textContent(),
    ).toMatch(/The simulated IBM i runs as sandbox-ibmi-\d+ with the SHOP and LEGACY libraries/);

    await openSection(page, 'Checks');
    await page.getByRole('button', { name: 'Run checks' }).click();
    const keys = page.getByLabel('Check primary-keys');
    await keys.waitFor();
    expect(await keys.locator('.status').textContent()).toBe('passed');
    // The sample database keeps changes 2 days; the agent's default is 5: the checker says so.
    expect(await page.getByLabel('Check change-retention').locator('.status').textContent()).toBe('failed');

    // The check says the SYNC schema will be made at Start; the Start confirmation says it again.
    expect(await page.getByLabel('Check sync-schema').textContent()).toContain(
      'At Start the agent runs CREATE SCHEMA [SYNC];',
    );
    await openSection(page, 'Status');
    await page.getByRole('button', { name: 'Start…' }).click();
    const confirm = page.getByRole('group', { name: 'Confirm start' });
    await confirm.getByText('CREATE SCHEMA [SYNC];').waitFor();
    expect(await confirm.textContent()).toContain('1 check failed (Change retention)');
    await confirm.getByRole('button', { name: 'Yes, start it' }).click();
    await openSection(page, 'Timeline');
    const events = page.getByLabel('Pipeline events');
    await events.getByText('Snapshot of dbo.Customers done: 4 rows').waitFor();
    await events.getByText('Snapshot of dbo.OrderLines done: 3 rows').waitFor();
    await screenshot(page, 'sandbox-running');
    await openSection(page, 'Status');
    await page.getByRole('button', { name: 'Stop…' }).click();
    await page.getByRole('button', { name: 'Yes, stop it' }).click();
    await expect.poll(() => page.getByLabel('Pipeline state').textContent()).toBe('stopped');
  });

  it('sets up a pipeline from the simulated IBM i, whose journal agent checks and runs', async () => {
    await page.getByLabel('Pipeline', { exact: true }).selectOption('sandbox-ibmi/as400');
    await openSection(page, 'Checks');
    await page.getByRole('button', { name: 'Run checks' }).click();
    const journaling = page.getByLabel('Check journaling');
    await journaling.waitFor();
    expect(await journaling.locator('.status').textContent()).toBe('passed');
    expect(await page.getByLabel('Check user-profile').locator('.status').textContent()).toBe('passed');
    await screenshot(page, 'sandbox-ibmi-checks');

    const signedOn = (await page.getByLabel('Check connection').textContent()) ?? '';
    ibmiHost = /to (sandbox-ibmi-\d+)\./.exec(signedOn)?.[1] ?? '';
    // The table view: each file's key and journal, sortable and filterable, read as the section opens.
    await openSection(page, 'Tables');
    const grid = page.getByRole('table', { name: 'Entity tables' });
    const firstCells = () => grid.locator('tbody tr td:first-child').allTextContents();
    await expect.poll(firstCells).toEqual(['LEGACY.ITEMS', 'SHOP.CUSTOMER', 'SHOP.ORDERS']);
    expect(await grid.locator('tbody tr').first().textContent()).toContain('LEGACY/JRN *BOTH');
    await grid.getByRole('button', { name: 'Table' }).click();
    await expect.poll(firstCells).toEqual(['SHOP.ORDERS', 'SHOP.CUSTOMER', 'LEGACY.ITEMS']);
    await page.getByLabel('Filter tables').fill('qsqjrn');
    await expect.poll(firstCells).toEqual(['SHOP.ORDERS', 'SHOP.CUSTOMER']);
    await screenshot(page, 'sandbox-ibmi-tables');

    await startPipeline(page);
    await openSection(page, 'Timeline');
    const events = page.getByLabel('Pipeline events');
    await events.getByText('Snapshot of SHOP.CUSTOMER done: 25 rows').waitFor();
    await events.getByText('Snapshot of LEGACY.ITEMS done: 12 rows').waitFor();
    await screenshot(page, 'sandbox-ibmi-running');
    await openSection(page, 'Status');
    await page.getByRole('button', { name: 'Stop…' }).click();
    await page.getByRole('button', { name: 'Yes, stop it' }).click();
    await expect.poll(() => page.getByLabel('Pipeline state').textContent()).toBe('stopped');
  });

  it('pauses and resumes the IBM i pipeline; the backlog gauge rises while paused and falls as it catches up', async () => {
    const state = () => page.getByLabel('Pipeline state').textContent();
    const backlog = page
      .getByRole('region', { name: 'Status section' })
      .getByLabel('Backlog', { exact: true });
    const gauge = () => backlog.locator('p').textContent();
    const meter = backlog.getByRole('meter', { name: 'Rows waiting' });
    await startPipeline(page);
    await expect.poll(state).toBe('running');
    await page.getByRole('button', { name: 'Pause' }).click();
    await expect.poll(state).toBe('paused');

    const sandbox = sandboxIbmiAt(ibmiHost);
    if (!sandbox) throw new Error(`No simulated IBM i at "${ibmiHost}".`);
    const admin = await sandbox.connect({ ...SEED_ADMIN });
    for (let id = 500; id < 530; id++)
      await admin.query('INSERT INTO SHOP.CUSTOMER (ID, NAME) VALUES (?, ?)', [id, `while paused ${id}`]);
    await admin.close();
    // A paused pipeline's backlog is measured at the source every 10 s, and pushed.
    await expect.poll(gauge, { timeout: 25_000 }).toMatch(/^30 rows waiting \(behind\)/);
    // The gauge: its value, and its level in words as well as in colour.
    expect(await meter.getAttribute('aria-valuenow')).toBe('30');
    expect(await meter.getAttribute('aria-valuetext')).toBe('30 rows waiting: behind');
    expect(await backlog.locator('figcaption').textContent()).toBe(
      'Rows waiting, log scale: 0, 1k at the top, 1M',
    );
    // Paused with rows waiting: the lag is the age of the oldest of them, never "0 s behind".
    const lag = page.getByLabel('Figures').locator('div').filter({ hasText: 'Lag' }).locator('dd');
    await expect.poll(() => lag.textContent()).toMatch(/^at least (\d+ min )?[\d.]+ m?s behind the source/);
    await screenshot(page, 'sandbox-ibmi-paused-backlog');

    // Home's overview shows every pipeline Home lists: this one waits, the SQL Server one does not.
    await page.getByRole('button', { name: 'Home' }).click();
    await expect
      .poll(() => page.getByLabel('Backlog of Sandbox: IBM i SHOP and LEGACY to SQLite').textContent(), {
        timeout: 25_000,
      })
      .toContain('30 rows waiting');
    expect(await page.getByLabel('Backlog of Sandbox: Sales to SQLite').textContent()).toContain(
      '0 rows waiting',
    );
    // Back returns to the pipeline's Status, as the address kept it.
    await page.goBack();
    await backlog.waitFor();

    await page.getByRole('button', { name: 'Resume' }).click();
    await expect.poll(state).toBe('running');
    await expect.poll(gauge, { timeout: 15_000 }).toMatch(/^0 rows waiting \(caught up\)/);
    expect(await meter.getAttribute('aria-valuetext')).toBe('0 rows waiting: caught up');
    await page.getByRole('button', { name: 'Stop…' }).click();
    await page.getByRole('button', { name: 'Yes, stop it' }).click();
    await expect.poll(state).toBe('stopped');
  });

  it('verifies the IBM i pipeline clean, finds a row altered at the target, and repairs it', async () => {
    const state = () => page.getByLabel('Pipeline state').textContent();
    await startPipeline(page);
    await expect.poll(state).toBe('running');
    await openSection(page, 'Verify');
    const verify = page.getByRole('region', { name: 'Verify the replica' });
    await verify.getByRole('button', { name: 'Verify', exact: true }).click();
    await verify.getByText(/^Verify: the replica equals the source \(\d+ rows compared\)$/).waitFor();
    // Done, it no longer says it is verifying.
    expect(await page.getByText('Verifying: the pipeline keeps running').count()).toBe(0);

    // A row changed behind the engine's back, in the replica file itself.
    const db = new Database(join(web.app.dataDir, 'replicas', 'sandbox-ibmi.sqlite'), { timeout: 5000 });
    const { name } = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND lower(name) LIKE '%customer%'")
      .get() as { name: string };
    db.prepare(`UPDATE "${name}" SET "NAME" = 'altered by hand' WHERE "ID" = 1`).run();
    db.close();
    await verify.getByRole('button', { name: 'Verify', exact: true }).click();
    await verify.getByText(/^Verify done: 0 missing, 0 extra, 1 different of \d+ rows$/).waitFor();
    const differences = verify.getByRole('table', { name: 'Rows of SHOP.CUSTOMER that differ' });
    expect(await differences.locator('tbody tr').allTextContents()).toEqual(['ID = 1differentNAME']);
    await screenshot(page, 'sandbox-ibmi-verify-differences');

    await verify.getByRole('button', { name: 'Repair the differing rows' }).click();
    await verify
      .getByText(/^Repair \(1 rows copied again\), then verify: the replica equals the source/)
      .waitFor();
    await openSection(page, 'Status');
    await page.getByRole('button', { name: 'Stop…' }).click();
    await page.getByRole('button', { name: 'Yes, stop it' }).click();
    await expect.poll(state).toBe('stopped');
  });
});
