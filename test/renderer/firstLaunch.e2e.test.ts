// The first launch as a new DBA sees it: Home with no pipeline offers the sandbox and a new agent
// (buttons, not a hint), axe clean; the sandbox lands on the Pipelines screen with its pipeline open.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { scanAccessibility, screenshot, startWebApp, type WebApp } from './browser';

let web: WebApp;
let page: Page;

beforeAll(async () => {
  web = await startWebApp();
  // bypassCSP: axe is injected as a script, which the app's CSP rightly refuses.
  page = await web.browser.newPage({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
  page.setDefaultTimeout(15_000);
});
afterAll(() => web?.close());

it('offers the sandbox and a new agent, and the sandbox opens its pipeline', async () => {
  await page.goto(web.server.openUrl);
  const start = page.getByRole('region', { name: 'Get started' });
  await start.waitFor();
  expect(await start.getByRole('button').allTextContents()).toEqual(['Try the sandbox', 'Add an agent']);
  expect(await scanAccessibility(page)).toEqual([]);
  await screenshot(page, 'first-launch');

  await start.getByRole('button', { name: 'Add an agent' }).click();
  await page.getByRole('heading', { name: 'Source agents' }).waitFor();
  await page.getByRole('button', { name: 'Home' }).click();

  await page
    .getByRole('region', { name: 'Get started' })
    .getByRole('button', { name: 'Try the sandbox' })
    .click();
  await page.getByRole('heading', { name: 'Pipelines' }).waitFor();
  await expect.poll(() => page.getByLabel('Pipeline', { exact: true }).inputValue()).not.toBe('');
  await page
    .getByRole('status')
    .getByText(/The sandbox SQL Server runs on 127\.0\.0\.1:\d+/)
    .waitFor();
  expect(await page.getByLabel('Engine').inputValue()).toBe('local');
});

it('opens a launch link once: the same link again (from the history) opens nothing, a reload keeps its tab', async () => {
  const link = web.server.openUrl;
  const first = await web.browser.newPage({ viewport: { width: 1280, height: 800 } });
  try {
    await first.goto(link);
    // The app's version line comes from the engine: the tab has its token.
    await first.getByText(/· web mode/).waitFor();
    await expect.poll(() => first.url()).not.toContain('code=');
    // A reload in the same tab keeps its token (kept for the tab, not in the address).
    await first.reload();
    await first.getByText(/· web mode/).waitFor();
  } finally {
    await first.close();
  }
  const again = await web.browser.newPage({ viewport: { width: 1280, height: 800 } });
  try {
    await again.goto(link);
    await again
      .getByRole('alert')
      .getByText(/This launch link was used already/)
      .waitFor();
    // Nothing of the app shows: no screen, no version line from the engine.
    expect(await again.getByRole('region', { name: 'Get started' }).count()).toBe(0);
    expect(await again.getByText(/· web mode/).count()).toBe(0);
  } finally {
    await again.close();
  }
});
