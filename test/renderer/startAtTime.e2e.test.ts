// Start at a time, from the app, in a real browser: the DBA edits the agent, gives Start at a time
// between two changes at the sandbox SQL Server, and starts; only the change committed after it is
// applied. Status then says where the batch's time went (source, engine, target) and the freshness
// of the last minute, hour and day; axe finds nothing serious there.
import Database from 'better-sqlite3';
import type sql from 'mssql';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngineClient } from '../../main/client/engineClient';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../simulators/mssql';
import { configureSeedPipeline } from '../helpers/changeTracking';
import { sandboxPool } from '../helpers/sandbox';
import { pointBetween } from '../helpers/until';
import {
  openSection,
  scanAccessibility,
  screenshot,
  startPipeline,
  startWebApp,
  type WebApp,
} from './browser';

let web: WebApp;
let sandbox: SandboxSqlServer;
let admin: sql.ConnectionPool;
let page: Page;
const ids = { pipelineId: 'fromtime', agentId: 'sales' };

beforeAll(async () => {
  [web, sandbox] = await Promise.all([startWebApp(), startSandboxSqlServer({ seed: true })]);
  admin = await sandboxPool(sandbox, { user: 'sa', password: 'Sandbox-Passw0rd', max: 1 });
  const local = createEngineClient({
    baseUrl: web.app.deps.localEngine.status().url ?? '',
    token: (await web.app.deps.profiles.token('local')) ?? '',
  });
  await configureSeedPipeline(local, sandbox, ids, ['Customers'], { snapshotMode: 'never' }, 'From a time');
  // Only to let the test inject axe: the app's own CSP stays as it ships.
  page = await web.browser.newPage({ bypassCSP: true });
  page.setDefaultTimeout(15_000);
});
afterAll(async () => {
  await admin?.close();
  await sandbox?.close();
  await web?.close();
});

describe('Start at a time, from the app', () => {
  it('applies only what was committed after the time, and Status says where the time went', async () => {
    await admin.request().batch("UPDATE dbo.Customers SET Country = 'AT' WHERE CustomerId = 1");
    const point = await pointBetween();
    await admin.request().batch("UPDATE dbo.Customers SET Country = 'NO' WHERE CustomerId = 2");

    await page.goto(web.server.openUrl);
    await page.getByRole('button', { name: 'From a time', exact: true }).click();
    await openSection(page, 'Settings');
    await page.getByRole('button', { name: 'Edit agent…' }).click();
    await page.getByRole('button', { name: 'Next' }).click();
    expect(await page.getByLabel('Snapshot mode').inputValue()).toBe('never');
    await page.getByText('Advanced').click();
    await page.getByLabel('Start at', { exact: true }).fill(point);
    await page.getByRole('button', { name: 'Check settings' }).click();
    await page.getByRole('button', { name: 'Apply changes' }).click();
    await page.getByRole('status').getByText('Applied: the engine holds the new settings.').waitFor();
    await page.goBack();

    await startPipeline(page);
    await expect.poll(() => page.getByLabel('Pipeline state').textContent()).toBe('running');
    await openSection(page, 'Timeline');
    const events = page.getByLabel('Pipeline events');
    await events.getByText(`dbo.Customers starts from ${point}`, { exact: false }).waitFor();
    // Customer 2's update only: customer 1's was committed before the time.
    await events.getByText(/Applied 1 change \(1 update\) to dbo\.Customers/).waitFor();
    const db = new Database(join(web.app.dataDir, 'replicas', 'fromtime.sqlite'), { readonly: true });
    try {
      expect(db.prepare('SELECT CustomerId, Country FROM customers').all()).toEqual([
        { CustomerId: 2, Country: 'NO' },
      ]);
    } finally {
      db.close();
    }

    const status = await openSection(page, 'Status');
    const lastBatch = status.getByRole('definition').filter({ hasText: 'from its commit at the source' });
    await lastBatch.waitFor();
    expect(await lastBatch.textContent()).toMatch(
      /[\d.]+ m?s from its commit at the source to its commit at the target: [\d.]+ m?s at the source \(commit to read\), [\d.]+ m?s in the engine \(read to apply\), [\d.]+ m?s at the target \(apply to commit\)/,
    );
    const freshness = status.getByRole('definition').filter({ hasText: 'Last minute' });
    expect(await freshness.textContent()).toMatch(/Last minute: p50 [\d.]+ m?s, p99 [\d.]+ m?s \(1 batch\)/);
    expect(await scanAccessibility(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await scanAccessibility(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'light' });
    await screenshot(page, 'start-at-time-status');
  });
});
