// A rewind from the app, in a real browser, on the sandbox pipeline: Rewind… says what a rewind of
// this source applies again and takes the point in the source's own terms; a point the rule refuses
// is named with the rule, a version is taken and the timeline tells the outcome. Axe finds nothing
// serious in the question.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  openSection,
  scanAccessibility,
  screenshot,
  startPipeline,
  startWebApp,
  type WebApp,
} from './browser';

let web: WebApp;
let page: Page;

beforeAll(async () => {
  web = await startWebApp();
  // Only to let the test inject axe: the app's own CSP stays as it ships.
  page = await web.browser.newPage({ bypassCSP: true });
  page.setDefaultTimeout(15_000);
});
afterAll(async () => {
  await web?.close();
});

describe('Rewind… on a running pipeline', () => {
  it('takes the point in the source’s terms, refuses one its rule does not, and the timeline says it was rewound', async () => {
    await page.goto(web.server.openUrl);
    await page.getByRole('button', { name: 'Pipelines' }).click();
    await page.getByRole('button', { name: 'Try the sandbox' }).click();
    await page
      .getByRole('status')
      .getByText(/The sandbox SQL Server runs on/)
      .waitFor();
    const status = await openSection(page, 'Status');
    // Only a running pipeline is rewound.
    expect(await status.getByRole('button', { name: 'Rewind…' }).isDisabled()).toBe(true);
    await startPipeline(page);
    await expect.poll(() => page.getByLabel('Pipeline state').textContent()).toBe('running');
    await openSection(page, 'Timeline');
    await page.getByLabel('Pipeline events').getByText('Snapshot of dbo.Customers done: 4 rows').waitFor();

    await openSection(page, 'Status');
    await page.getByRole('button', { name: 'Rewind…' }).click();
    const question = page.getByRole('group', { name: 'Rewind' });
    expect(await question.textContent()).toContain('Change Tracking keeps no history');
    expect(await question.textContent()).toContain('a change-tracking version (digits) or a time');
    expect(await scanAccessibility(page)).toEqual([]);
    await screenshot(page, 'rewind-question');

    await question.getByLabel('Rewind to').fill('yesterday');
    await question.getByRole('button', { name: 'Yes, rewind it' }).click();
    const refusal = page.getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain('a change-tracking version (digits) or a time');
    // Still asked, with what was typed, to be corrected.
    expect(await question.getByLabel('Rewind to').inputValue()).toBe('yesterday');

    await question.getByLabel('Rewind to').fill('0');
    await question.getByRole('button', { name: 'Yes, rewind it' }).click();
    await page.getByRole('status').getByText('Rewind to 0 asked for').waitFor();
    expect(await question.count()).toBe(0);
    await openSection(page, 'Timeline');
    const events = page.getByLabel('Pipeline events');
    await events
      .getByText(/Rewound 3 tables to 0: the changes since are read and applied again by key/)
      .waitFor();
    await events.getByText('Rewind to 0 asked for').waitFor();
  });
});
