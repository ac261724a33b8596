// A new DBA's whole job in a real browser at 1280×800, with no API call outside the app: first launch,
// the sandbox's servers read off its panel, an agent added against each, tables picked, checks run and
// fixed, the pipeline started, the workload moving it, the password edited, a verify, the readiness
// report. The change-tracking flow by mouse; the journal flow by keyboard alone.
import { readFileSync } from 'node:fs';
import { sandboxIbmiAt } from '../../simulators/ibmi';
import { SEED_ADMIN } from '../../simulators/ibmi/seed';
import type { Download, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  openSection,
  scanAccessibility,
  screenshot,
  startPipeline,
  startWebApp,
  type WebApp,
} from './browser';
import { keysIn, watchForKeys } from './keyScan';

let web: WebApp;
beforeAll(async () => {
  web = await startWebApp();
});
afterAll(() => web?.close());

const VIEWPORT = { width: 1280, height: 800 };

/** What each page's screens showed of configuration keys and method names (none is expected). */
const keysSeen = new WeakMap<Page, () => Promise<string[]>>();

/** A new page watching for console errors and for keys on any screen (neither is expected). */
async function newPage(errors: string[]): Promise<Page> {
  const page = await web.browser.newPage({ viewport: VIEWPORT, bypassCSP: true, acceptDownloads: true });
  page.setDefaultTimeout(15_000);
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  keysSeen.set(page, await watchForKeys(page));
  return page;
}

/** The words of a saved page, its markup left out. */
const textOfHtml = (html: string) => html.replace(/<style[\s\S]*?<\/style>/g, '').replace(/<[^>]+>/g, ' ');

/** What the readiness report saved holds, read from the download. */
async function reportOf(download: Download): Promise<string> {
  const path = await download.path();
  return readFileSync(path, 'utf8');
}

/** Whether an element lies wholly within the window without scrolling. */
const onScreen = async (page: Page, locator: ReturnType<Page['locator']>) => {
  const box = await locator.boundingBox();
  return box !== null && box.y >= 0 && box.y + box.height <= VIEWPORT.height;
};

describe("a new DBA's whole flow", () => {
  it('change tracking, by mouse: sandbox → agent → tables → checks → fix → start → workload → password → verify → report', async () => {
    const errors: string[] = [];
    const page = await newPage(errors);
    await page.goto(web.server.openUrl);
    // First launch: Home offers the way in.
    const start = page.getByRole('region', { name: 'Get started' });
    await start.getByRole('button', { name: 'Try the sandbox' }).click();
    // The sandbox panel says how to reach its SQL Server, as the DBA would connect with their own tools.
    const sqlPanel = page.getByRole('region', { name: 'SQL Server' });
    const address = (await sqlPanel.locator('code').first().textContent()) ?? '';
    const [, host, port] = /^(.+):(\d+)$/.exec(address) ?? [];
    const agentRow = sqlPanel
      .getByRole('table', { name: 'SQL Server logins' })
      .getByRole('row', { name: /cdc_agent/ });
    const password = (await agentRow.locator('td').first().textContent()) ?? '';
    expect([host, port, password.length > 6]).toEqual(['127.0.0.1', expect.stringMatching(/^\d+$/), true]);

    // The agent, in the wizard.
    await page.getByRole('button', { name: 'Agents', exact: true }).click();
    await page.getByRole('button', { name: /Change tracking/ }).click();
    for (const [label, text] of [
      ['Connection name', 'my sales'],
      ['Host', host],
      ['Port', port],
      ['Database', 'Sales'],
      ['Login', 'cdc_agent'],
      ['Password', password],
    ])
      await page.getByLabel(label as string, { exact: true }).fill(text as string);
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => page.getByLabel('Connection test').textContent()).toMatch(/^Connected\./);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('button', { name: 'Check settings' }).click();
    // The review reads as settings, not as JSON.
    const review = page.getByRole('status').filter({ hasText: 'Settings accepted' });
    await review.waitFor();
    await screenshot(page, 'flow-ct-review');
    expect(await review.getByText('set (hidden)').count()).toBe(1);
    await page.getByLabel('Pipeline id').fill('my-sales');
    await page.getByLabel('Agent id').fill('ct');
    await page.getByRole('button', { name: 'Apply' }).click();

    // Tables, the next step by itself.
    await page.getByRole('row').filter({ hasText: 'dbo.OrderLines' }).waitFor();
    // A table Change Tracking cannot track is never chosen, and says why.
    expect(await page.getByLabel('Replicate dbo.AuditLog').isDisabled()).toBe(true);
    expect(await page.getByRole('row').filter({ hasText: 'dbo.AuditLog' }).textContent()).toContain(
      'No primary key: Change Tracking tracks only tables with one.',
    );
    expect(await scanAccessibility(page)).toEqual([]);
    for (const t of ['dbo.Customers', 'dbo.Orders', 'dbo.OrderLines'])
      await page.getByLabel(`Replicate ${t}`).check();
    await page.getByRole('button', { name: 'Save 3 tables' }).click();
    await expect
      .poll(() => page.getByLabel('Save result').textContent())
      .toBe('Saved: the pipeline replicates 3 tables.');
    await page.getByRole('button', { name: "Open the pipeline's checks" }).click();
    await expect.poll(() => page.url()).toMatch(/#\/pipelines\/local\/my-sales\/ct\/checks$/);

    // Checks: the retention fix, applied once confirmed; the SYNC schema said to come at Start.
    await page.getByRole('button', { name: 'Run checks' }).click();
    const retention = page.getByLabel('Check change-retention');
    await expect.poll(() => retention.locator('.status').textContent()).toBe('failed');
    expect(await page.getByLabel('Check sync-schema').textContent()).toContain(
      'At Start the agent runs CREATE SCHEMA [SYNC];',
    );
    // Start asked first: its confirmation names the failed check and leads to it.
    await openSection(page, 'Status');
    await page.getByRole('button', { name: 'Start…' }).click();
    const confirm = page.getByRole('group', { name: 'Confirm start' });
    await expect.poll(() => confirm.textContent()).toContain('1 check failed (Change retention)');
    await confirm.getByRole('button', { name: 'Open Checks' }).click();
    await retention.getByRole('button', { name: 'Apply…' }).click();
    await retention.getByRole('button', { name: 'Yes, apply it' }).click();
    await expect.poll(() => retention.locator('.status').textContent()).toBe('passed');
    const applied = page.getByRole('status').filter({ hasText: /^Applied: / });
    await applied.waitFor();

    // Back at Start: the confirmation follows the fix, and the fix's banner stayed in Checks.
    await openSection(page, 'Status');
    expect(await applied.count()).toBe(0);
    expect(await confirm.textContent()).toContain('CREATE SCHEMA [SYNC];');
    expect(await confirm.textContent()).not.toContain('failed');
    await confirm.getByRole('button', { name: 'Yes, start it' }).click();
    const state = page.getByLabel('Pipeline state');
    await expect.poll(() => state.textContent()).toBe('running');

    // The workload moves it: throughput above zero, changes of the order lines applied.
    await page.getByLabel('Workload').first().selectOption('50');
    const figures = page.getByLabel('Figures');
    await expect
      .poll(async () => Number(/([\d.]+) changes\/s/.exec((await figures.textContent()) ?? '')?.[1] ?? 0), {
        timeout: 30_000,
      })
      .toBeGreaterThan(0);
    // At 1280×800 the gauge, the state and the latest problem show without scrolling.
    await page.evaluate(() => window.scrollTo(0, 0));
    expect(await onScreen(page, page.getByRole('meter', { name: 'Rows waiting' }))).toBe(true);
    expect(await onScreen(page, state)).toBe(true);
    expect(await onScreen(page, page.getByRole('region', { name: 'Latest problem' }))).toBe(true);
    expect(await scanAccessibility(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await scanAccessibility(page)).toEqual([]);
    await screenshot(page, 'flow-ct-status-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await openSection(page, 'Timeline');
    await page
      .getByLabel('Pipeline events')
      .getByText(/to dbo\.OrderLines/)
      .first()
      .waitFor();
    await page.getByLabel('Workload').first().selectOption('0');

    // The password edited: paused first (the engine takes no new settings while it runs), then resumed.
    await openSection(page, 'Status');
    await page.getByRole('button', { name: 'Pause' }).click();
    await expect.poll(() => state.textContent()).toBe('paused');
    await openSection(page, 'Settings');
    await page.getByRole('button', { name: 'Edit agent…' }).click();
    expect(await page.getByLabel('Password', { exact: true }).inputValue()).toBe('');
    // Left blank, the password is the stored one: the engine holding the agent signs on with it.
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => page.getByLabel('Connection test').textContent()).toMatch(/^Connected\. /);
    // A wrong password stored while paused: Status and Home say it waits, never "no problem";
    // Resume starts the pipeline with it, and its refusal shows.
    const applyPassword = async (typed: string, signsOn = true) => {
      await page.getByLabel('Password', { exact: true }).fill(typed);
      await page.getByRole('button', { name: 'Next' }).click();
      await page.getByRole('button', { name: 'Check settings' }).click();
      await page.getByRole('button', { name: 'Apply changes' }).click();
      if (!signsOn) {
        // Apply signs on first and asks: nothing is stored until the DBA says so.
        const asked = page.getByRole('alertdialog', { name: 'Sign-on failed' });
        await expect.poll(() => asked.textContent()).toContain('18456');
        expect(await asked.textContent()).toContain('Nothing has been stored.');
        expect(await asked.evaluate((el) => el === document.activeElement)).toBe(true);
        // The question is clean for axe in both schemes.
        expect(await scanAccessibility(page)).toEqual([]);
        await page.emulateMedia({ colorScheme: 'dark' });
        expect(await scanAccessibility(page)).toEqual([]);
        await page.emulateMedia({ colorScheme: 'light' });
        await asked.getByRole('button', { name: 'Apply anyway' }).click();
      }
      await page.getByRole('status').getByText('Applied: the engine holds the new settings.').waitFor();
      await page.goBack();
      await page.getByRole('region', { name: 'Settings section' }).waitFor();
    };
    await applyPassword('Not-The-Password-1', false);
    await openSection(page, 'Status');
    const problemRegion = page.getByRole('region', { name: 'Latest problem' });
    await expect
      .poll(() => page.getByLabel('Pending settings').textContent())
      .toContain('New settings pending, in effect at Resume');
    expect(await page.getByLabel('Pending settings').textContent()).toMatch(
      /did not sign on when stored:.*18456/,
    );
    for (const scheme of ['dark', 'light'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await scanAccessibility(page)).toEqual([]);
    }
    expect(await problemRegion.getByText('No problem reported.').count()).toBe(0);
    await page.getByRole('button', { name: 'Home', exact: true }).click();
    await expect
      .poll(() => page.getByRole('row').filter({ hasText: 'my-sales' }).textContent())
      .toContain('new settings pending, in effect at Resume: they did not sign on');
    await page.goBack();
    await openSection(page, 'Status');
    await page.getByRole('button', { name: 'Resume' }).click();
    await expect.poll(() => state.textContent(), { timeout: 15_000 }).toBe('failed');
    await expect.poll(() => problemRegion.textContent()).toContain('18456');
    await expect.poll(() => page.getByLabel('Pending settings').count()).toBe(0);

    // The right one again, and Start.
    await openSection(page, 'Settings');
    await page.getByRole('button', { name: 'Edit agent…' }).click();
    await applyPassword(password);
    await startPipeline(page);
    await expect.poll(() => state.textContent(), { timeout: 15_000 }).toBe('running');

    // A verify, clean.
    await openSection(page, 'Verify');
    const verify = page.getByRole('region', { name: 'Verify the replica' });
    await verify.getByRole('button', { name: 'Verify', exact: true }).click();
    await verify
      .getByText(/^Verify: the replica equals the source \(\d+ rows compared\)$/)
      .waitFor({ timeout: 30_000 });

    // A table's story: its columns on both sides, its copy, its last changes and the verify just run.
    await openSection(page, 'Tables');
    await page.getByRole('button', { name: 'Story of dbo.OrderLines' }).click();
    const story = page.getByRole('region', { name: 'Story of dbo.OrderLines' });
    const quantity = story
      .getByRole('table', { name: 'Columns of dbo.OrderLines' })
      .getByRole('row', { name: /Quantity/ });
    await quantity.waitFor();
    expect(await quantity.getByRole('cell').allTextContents()).toEqual([
      'int',
      'Quantity',
      'INTEGER',
      'as it is',
      'not null',
      '',
    ]);
    expect(await story.textContent()).toContain('Snapshot of dbo.OrderLines done');
    expect(await story.textContent()).toMatch(/\d+ inserted, \d+ updated, \d+ deleted/);
    expect(await story.textContent()).toMatch(/Verify: \d+ rows compared, 0 missing, 0 extra, 0 different/);
    await screenshot(page, 'flow-ct-table-story');

    // The readiness report, saved where the DBA asked for it.
    await openSection(page, 'Checks');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Readiness report' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^readiness-my-sales-ct-.*\.html$/);
    const html = await reportOf(download);
    expect(html).toContain('Readiness report: my-sales / ct');
    expect(keysIn(textOfHtml(html))).toEqual([]);
    for (const t of ['dbo.Customers', 'dbo.Orders', 'dbo.OrderLines'])
      expect(html).toContain(`<th scope="row">${t}</th>`);
    expect(html).not.toContain(password);
    await page
      .getByLabel('Readiness report')
      .getByText(/^Saved readiness-my-sales-ct-/)
      .waitFor();
    await openSection(page, 'Status');
    await page.getByRole('button', { name: 'Stop…' }).click();
    await page.getByRole('button', { name: 'Yes, stop it' }).click();
    // The runner stops once the step in flight is done: with the workload writing, on a loaded
    // machine, that takes longer than a poll's default second.
    await expect
      .poll(() => state.textContent(), { timeout: 15_000 })
      .toBe('stopped')
      .catch(async (e: unknown) => {
        await screenshot(page, 'flow-ct-stop-debug');
        throw e;
      });
    expect(errors).toEqual([]);
    // Every screen of the flow in words: no configuration key, no method name.
    expect(await keysSeen.get(page)?.()).toEqual([]);
    await page.close();
  });

  it('journal, by keyboard alone: sandbox → agent → tables → checks → start → workload → password → verify → report', async () => {
    const errors: string[] = [];
    const page = await newPage(errors);
    /** What has the focus, by the name a DBA sees: its label, its own label, its id, or its text. */
    const focused = () =>
      page.evaluate(() => {
        const e = document.activeElement as HTMLElement | null;
        if (!e) return '';
        const labelled = (e as HTMLInputElement).labels?.[0]?.textContent;
        return e.getAttribute('aria-label') ?? (e.id || labelled || (e.textContent ?? '')).trim();
      });
    /** Tab (at least once) until the focus is on `name`; fails past 120 presses. */
    const tabTo = async (name: string | RegExp) => {
      for (let i = 0; i < 120; i++) {
        await page.keyboard.press('Tab');
        const now = await focused();
        if (typeof name === 'string' ? now === name : name.test(now)) return;
      }
      throw new Error(`Tab never reached ${String(name)}; the focus is on "${await focused()}".`);
    };
    const press = async (name: string | RegExp, key = 'Enter') => {
      await tabTo(name);
      await page.keyboard.press(key);
    };
    const type = async (id: string, text: string) => {
      await tabTo(id);
      await page.keyboard.press('Control+A');
      await page.keyboard.type(text);
    };

    await page.goto(web.server.openUrl);
    await page.getByRole('heading', { name: 'Home' }).waitFor();
    // The sandbox runs already (the first flow started it): its panel is on the Pipelines screen.
    await press('Pipelines');
    const ibmiPanel = page.getByRole('region', { name: 'IBM i' });
    const host = (await ibmiPanel.locator('code').first().textContent()) ?? '';
    const agentRow = ibmiPanel
      .getByRole('table', { name: 'IBM i user profiles' })
      .getByRole('row', { name: /CDCAGENT/ });
    const password = (await agentRow.locator('td').first().textContent()) ?? '';
    expect(host).toMatch(/^sandbox-ibmi-\d+$/);
    // At the source, by hand (a DBA's own session): SHOP.ORDERS journaled with after images only.
    const ibmi = sandboxIbmiAt(host);
    if (!ibmi) throw new Error(`No simulated IBM i at ${host}.`);
    const admin = await ibmi.connect({ ...SEED_ADMIN });
    await admin.command('CHGJRNOBJ OBJ((SHOP/ORDERS *FILE)) ATR(*IMAGES) IMAGES(*AFTER)');
    await admin.close();

    await press('Agents');
    await press(/^Journal/);
    for (const [id, text] of [
      ['hostCredentials-connectionName', 'my shop'],
      ['hostCredentials-host', host],
      ['hostCredentials-databaseName', '*SYSBAS'],
      ['hostCredentials-username', 'CDCAGENT'],
      ['hostCredentials-password', password],
    ] as const)
      await type(id, text);
    // The sandbox's own pipeline keeps its checkpoints in SYNC: this agent needs a sync library of its own.
    await press('Advanced');
    await type('hostCredentials-syncLibrary', 'KBSYNC');
    await press('Test connection');
    await expect.poll(() => page.getByLabel('Connection test').textContent()).toMatch(/^Connected\./);
    await press('Next');
    await page.getByRole('form', { name: 'Agent settings' }).waitFor();
    await press('Check settings');
    await type('apply-pipeline', 'my-shop');
    await type('apply-agent', 'ibmi');
    await press('Apply');

    // Tables: the picker takes focus on its title; a file chosen with Space, then saved.
    await page.getByRole('row').filter({ hasText: 'SHOP.CUSTOMER' }).waitFor();
    await press('Replicate SHOP.CUSTOMER', 'Space');
    await press('Replicate SHOP.ORDERS', 'Space');
    await press('Save 2 tables');
    await expect
      .poll(() => page.getByLabel('Save result').textContent())
      .toBe('Saved: the pipeline replicates 2 tables.');
    await press("Open the pipeline's checks");
    await expect.poll(() => page.url()).toMatch(/#\/pipelines\/local\/my-shop\/ibmi\/checks$/);
    await press('Run checks');
    const journaling = page.getByLabel('Check journaling');
    await expect.poll(() => journaling.locator('.status').textContent()).toBe('failed');
    expect(await page.getByLabel('Fix for journaling').textContent()).toContain('IMAGES(*BOTH)');
    // Failures first: the fix is the first thing past the results. The agent's profile may not run
    // it, and the app says so where the DBA acted, in IBM i's words.
    await press('Apply…');
    await press('Yes, apply it');
    await page
      .getByRole('alert')
      .getByText(/CPF9802.*A security officer can run it instead/)
      .waitFor();
    // The security officer runs the statement the app gave, in a session of their own; then checks again.
    const fix = (await page.getByLabel('Fix for journaling').textContent()) ?? '';
    const officer = await ibmi.connect({ ...SEED_ADMIN });
    await officer.command(fix);
    await officer.close();
    await press('Check again: journaling');
    await expect.poll(() => journaling.locator('.status').textContent()).toBe('passed');
    expect(await page.getByLabel('Check sync-library').textContent()).toContain(
      'At Start the agent runs CREATE SCHEMA KBSYNC',
    );
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(
      'Check results',
    );

    await press('Status');
    await press('Start…');
    // The question takes focus; its answer is the next stop.
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
      .toBe('Confirm start');
    await press('Yes, start it');
    const state = page.getByLabel('Pipeline state');
    await expect.poll(() => state.textContent()).toBe('running');

    // The workload, by arrow keys on its list.
    await tabTo('sandbox-workload');
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => page.locator('#sandbox-workload').inputValue()).toBe('1');
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => page.locator('#sandbox-workload').inputValue()).toBe('10');
    await press('Timeline');
    await page
      .getByLabel('Pipeline events')
      .getByText(/to SHOP\.CUSTOMER/)
      .first()
      .waitFor({ timeout: 30_000 });
    await tabTo('sandbox-workload');
    await page.keyboard.press('Home');
    await expect.poll(() => page.locator('#sandbox-workload').inputValue()).toBe('0');

    // The password edited, with the pipeline paused.
    await press('Status');
    await press('Pause');
    await expect.poll(() => state.textContent()).toBe('paused');
    await press('Settings');
    await press('Edit agent…');
    await type('hostCredentials-password', password);
    await press('Next');
    await page.getByRole('form', { name: 'Agent settings' }).waitFor();
    await press('Check settings');
    // The checks' step shows Apply once they answered: a key press does not wait as a click does.
    const applyChanges = page.getByRole('button', { name: 'Apply changes' });
    await applyChanges.waitFor({ timeout: 30_000 });
    // Apply stays disabled until the engine's push says the pipeline is paused (a disabled button
    // takes no focus): on a loaded machine that push can come after the checks.
    await expect.poll(() => applyChanges.isEnabled(), { timeout: 30_000 }).toBe(true);
    await press('Apply changes');
    await page.getByRole('status').getByText('Applied: the engine holds the new settings.').waitFor();
    await press('Pipelines');
    await press('Status');
    await press('Resume');
    await expect.poll(() => state.textContent()).toBe('running');

    await press('Verify');
    await tabTo('Verify');
    await page.keyboard.press('Enter');
    const verify = page.getByRole('region', { name: 'Verify the replica' });
    await verify
      .getByText(/^Verify: the replica equals the source \(\d+ rows compared\)$/)
      .waitFor({ timeout: 30_000 });

    await press('Checks');
    const [download] = await Promise.all([page.waitForEvent('download'), press('Readiness report')]);
    const html = await reportOf(download);
    expect(html).toContain('Readiness report: my-shop / ibmi');
    expect(keysIn(textOfHtml(html))).toEqual([]);
    expect(html).toContain('<th scope="row">SHOP.CUSTOMER</th>');
    expect(html).toContain('QSQJRN');
    expect(html).not.toContain(password);

    await press('Status');
    await press('Stop…');
    await press('Yes, stop it');
    await expect.poll(() => state.textContent(), { timeout: 15_000 }).toBe('stopped');
    expect(errors).toEqual([]);
    // Every screen of the flow in words: no configuration key, no method name.
    expect(await keysSeen.get(page)?.()).toEqual([]);
    await page.close();
  });
});
