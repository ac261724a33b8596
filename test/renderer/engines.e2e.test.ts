// The Engines screen in a real browser: the local engine's token shown once, a remote profile checked;
// and Home's notification settings, each kept as chosen.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppServices } from '../../main/app/services';
import type { WebServer } from '../../main/web/server';
import { callApp } from '../helpers/app';
import { startTestEngine, type RunningEngine } from '../helpers/engine';
import { screenshot, startWebApp, type WebApp } from './browser';

let web: WebApp;
let app: AppServices;
let server: WebServer;
let remote: RunningEngine;
let page: Page;

beforeAll(async () => {
  [web, remote] = await Promise.all([startWebApp(), startTestEngine()]);
  ({ app, server } = web);
  page = await web.browser.newPage();
  page.setDefaultTimeout(5000);
});
afterAll(async () => {
  await web?.close();
  await remote?.stop();
});

describe('Engines screen', () => {
  it('shows the local engine token once, and it works', async () => {
    await page.goto(server.openUrl);
    await page.getByRole('button', { name: 'Engines' }).click();
    const once = page.getByRole('status').filter({ hasText: 'admin token of the local engine' });
    await once.waitFor();
    const token = (await once.locator('code.token').textContent()) ?? '';
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const url = app.deps.localEngine.status().url;
    expect((await fetch(`${url}/pipelines`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(
      200,
    );
    await screenshot(page, 'engines-token-once');

    await page.getByRole('button', { name: 'I have stored it' }).click();
    expect(await once.count()).toBe(0);
    await page.reload();
    await page.getByRole('button', { name: 'Engines' }).click();
    await page.getByRole('heading', { name: 'Local engine' }).waitFor();
    expect(await page.getByText('admin token of the local engine').count()).toBe(0);
  });

  it('adds a remote engine profile and checks it through the client', async () => {
    await page.getByLabel('Profile id').fill('staging');
    await page.getByLabel('Name').fill('Staging');
    await page.getByLabel('Engine address').fill('http://admin:secret@127.0.0.1:1');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('/baseUrl');

    await page.getByLabel('Engine address').fill(remote.url);
    await page.getByLabel('Token', { exact: true }).fill(remote.token);
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByText('Saved Staging.').waitFor();
    await page.getByRole('button', { name: 'Check Staging' }).click();
    await page.getByText(`Connected to ${remote.url}: 0 pipeline(s).`).waitFor();
    // Watched from the moment it is saved, as the app says beside it.
    await page
      .getByRole('row', { name: /Staging/ })
      .getByText('Watched: live')
      .waitFor();
    await page.getByRole('button', { name: 'Check Local engine' }).click();
    await page
      .getByRole('row', { name: /Local engine/ })
      .getByText(/^Connected to/)
      .waitFor();
    await screenshot(page, 'engines-profiles');
  });
});

describe('Notifications on Home', () => {
  it('keeps each setting as chosen, the schema-change one among them, and refuses a bad threshold beside it', async () => {
    await page.getByRole('button', { name: 'Home' }).click();
    const schemaChanges = page.getByLabel(
      "When a table's columns change at the source (applied or withheld)",
    );
    expect(await schemaChanges.isChecked()).toBe(true);
    await schemaChanges.uncheck();
    await page.getByLabel('When a pipeline stops').uncheck();
    await page.getByLabel('Lag threshold (seconds; empty: never)').fill('0');
    await page.getByRole('button', { name: 'Save notifications' }).click();
    await expect
      .poll(() => page.getByRole('alert').filter({ hasText: 'Lag threshold' }).textContent())
      .toBe('Lag threshold: a whole number of at least 1, or empty for never.');
    await page.getByLabel('Lag threshold (seconds; empty: never)').fill('120');
    await page.getByRole('button', { name: 'Save notifications' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect(await callApp(app, 'getAlertSettings')).toEqual({
      failed: true,
      stopped: false,
      suspended: true,
      atRisk: true,
      schemaChanges: false,
      unreachable: true,
      lagSeconds: 120,
      backlogRows: 100_000,
    });
    await page.reload();
    await page.getByRole('button', { name: 'Home' }).click();
    await page.getByLabel('When a pipeline fails').waitFor();
    expect(
      await page.getByLabel("When a table's columns change at the source (applied or withheld)").isChecked(),
    ).toBe(false);
  });
});
