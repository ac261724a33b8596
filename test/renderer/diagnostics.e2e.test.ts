// Diagnostics in a real browser: save a bundle as a download, open it again, read it offline.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebServer } from '../../main/web/server';
import { screenshot, startWebApp, type WebApp } from './browser';
import { startTestEngine } from '../helpers/engine';

let web: WebApp;
let server: WebServer;
let page: Page;

beforeAll(async () => {
  web = await startWebApp();
  server = web.server;
  page = await web.browser.newPage({ acceptDownloads: true });
  page.setDefaultTimeout(5000);
});
afterAll(() => web?.close());

describe('Diagnostics screen', () => {
  it('saves a bundle, opens it again and shows what it holds', async () => {
    await page.goto(server.openUrl);
    await page.getByRole('button', { name: 'Diagnostics' }).click();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Save diagnostics bundle' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^cdc-admin-diagnostics-.*\.zip$/);
    // Saved under the name the app suggested, as a user would.
    const path = join(mkdtempSync(join(tmpdir(), 'cdc-dl-')), download.suggestedFilename());
    await download.saveAs(path);
    expect(readFileSync(path).subarray(0, 2).toString()).toBe('PK');
    await page.getByText(/^Saved cdc-admin-diagnostics-/).waitFor();

    await page.getByLabel('Open a bundle…').setInputFiles(path);
    const bundle = page.getByRole('article', { name: /^Bundle cdc-admin-diagnostics-/ });
    await bundle.waitFor();
    expect(await bundle.getByText('made').first().textContent()).toContain('by the app');
    expect(await bundle.getByRole('heading', { name: 'Versions' }).count()).toBe(1);
    expect(await bundle.locator('dt', { hasText: 'app' }).count()).toBe(1);
    await screenshot(page, 'diagnostics-open');
  });

  it("saves a remote engine's own bundle, chosen like any screen's engine", async () => {
    const remote = await startTestEngine();
    const page = await web.browser.newPage({ acceptDownloads: true });
    page.setDefaultTimeout(5000);
    try {
      await web.app.deps.profiles.save({
        id: 'remote',
        name: 'Remote',
        baseUrl: remote.url,
        token: remote.token,
      });
      await page.goto(server.openUrl);
      await page.getByRole('button', { name: 'Diagnostics', exact: true }).click();
      await page.getByLabel('Engine', { exact: true }).selectOption('remote');
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Save diagnostics bundle' }).click(),
      ]);
      expect(download.suggestedFilename()).toMatch(/^cdc-engine-remote-diagnostics-.*\.zip$/);
      const path = join(mkdtempSync(join(tmpdir(), 'cdc-dl-')), download.suggestedFilename());
      await download.saveAs(path);
      await page.getByLabel('Open a bundle…').setInputFiles(path);
      const bundle = page.getByRole('article', { name: /^Bundle cdc-engine-remote-diagnostics-/ });
      await bundle.waitFor();
      expect(await bundle.getByText('made').first().textContent()).toContain('by the engine');
    } finally {
      await page.close();
      await remote.stop();
    }
  });

  it('says plainly when a file is not a bundle', async () => {
    await page
      .getByLabel('Open a bundle…')
      .setInputFiles({ name: 'notes.zip', mimeType: 'application/zip', buffer: Buffer.from('not a zip') });
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe('The file is not a zip archive: not a diagnostics bundle.');
  });
});
