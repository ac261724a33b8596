// Keyboard only, in a real browser: Tab and Enter reach every step of the journal wizard (Advanced
// included) and the Pipelines screen's sandbox; no mouse.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebApp, type WebApp } from './browser';

let web: WebApp;
let page: Page;
beforeAll(async () => {
  web = await startWebApp();
  page = await web.browser.newPage();
  page.setDefaultTimeout(10_000);
});
afterAll(() => web?.close());

/** What has the focus: its id, or its text. */
const focused = () =>
  page.evaluate(() => {
    const e = document.activeElement;
    return e ? e.id || (e.textContent ?? '').trim() : '';
  });

/** Presses Tab until the focus is on `target` (an id or a text); fails past 60 presses. */
async function tabTo(target: string | RegExp): Promise<void> {
  for (let i = 0; i < 60; i++) {
    const now = await focused();
    if (typeof target === 'string' ? now === target : target.test(now)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${String(target)}; the focus is on "${await focused()}".`);
}

describe('keyboard only', () => {
  it('fills the journal wizard, opens Advanced, and gets both steps accepted', async () => {
    await page.goto(web.server.openUrl);
    await tabTo('Agents');
    await page.keyboard.press('Enter');
    await tabTo(/^Journal/);
    await page.keyboard.press('Enter');
    for (const [id, text] of [
      ['hostCredentials-connectionName', 'as400'],
      ['hostCredentials-host', 'ibmi01'],
      ['hostCredentials-databaseName', '*SYSBAS'],
      ['hostCredentials-username', 'CDCAGENT'],
      ['hostCredentials-password', 'pw-secret'],
    ] as const) {
      await tabTo(id);
      await page.keyboard.type(text);
    }
    await tabTo('Advanced');
    await page.keyboard.press('Enter');
    await tabTo('hostCredentials-syncLibrary');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('KEYBOARD');
    await tabTo('Next');
    await page.keyboard.press('Enter');
    await page.getByRole('form', { name: 'Agent settings' }).waitFor();
    await tabTo('Check settings');
    await page.keyboard.press('Enter');
    const summary = page.getByRole('status');
    await summary.getByText('Settings accepted').waitFor();
    expect(await summary.textContent()).toContain('"syncLibrary": "KEYBOARD"');
  });

  it('reaches the Pipelines screen and starts the sandbox', async () => {
    await tabTo('Pipelines');
    await page.keyboard.press('Enter');
    await tabTo('Try the sandbox');
    await page.keyboard.press('Enter');
    await page
      .getByRole('status')
      .getByText(/The sandbox SQL Server runs on/)
      .waitFor();
    // The pipeline's sections are links: Enter on Checks opens it, then its button.
    await tabTo('Checks');
    await page.keyboard.press('Enter');
    await tabTo('Run checks');
    await page.keyboard.press('Enter');
    await page.getByLabel('Check primary-keys').waitFor();
    // The results took focus: the first Tab from them lands inside them, not back at the page's top.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(
      'Check results',
    );
  });
});
