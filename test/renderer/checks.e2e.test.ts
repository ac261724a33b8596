// The checker in a real browser: a change-tracking agent on a remote engine, checked against the
// sandbox SQL Server; the spec's error shown; the retention fix applied after the user confirms.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../simulators/mssql';
import { startTestEngine, type RunningEngine } from '../helpers/engine';
import { DBA, sandboxPool } from '../helpers/sandbox';
import { openSection, screenshot, startPipeline, startWebApp, type WebApp } from './browser';

let web: WebApp;
let remote: RunningEngine;
let sandbox: SandboxSqlServer;
let page: Page;

beforeAll(async () => {
  [web, remote, sandbox] = await Promise.all([
    startWebApp(),
    startTestEngine(),
    startSandboxSqlServer({ logins: [DBA], databases: ['Sales'] }),
  ]);
  const pool = await sandboxPool(sandbox);
  await pool.request().batch(`ALTER DATABASE Sales SET CHANGE_TRACKING = ON (CHANGE_RETENTION = 2 DAYS);
    ALTER DATABASE Sales SET ALLOW_SNAPSHOT_ISOLATION ON;
    CREATE TABLE dbo.Orders (Id INT PRIMARY KEY, Note NVARCHAR(20));
    ALTER TABLE dbo.Orders ENABLE CHANGE_TRACKING;
    CREATE TABLE dbo.AuditLog (Message NVARCHAR(100));`);
  await pool.close();
  const ids = { pipelineId: 'orders', agentId: 'sales-db' };
  await remote.client.createPipeline({}, { id: 'orders', name: 'Orders to reporting' });
  await remote.client.createAgent(
    { pipelineId: 'orders' },
    { id: 'sales-db', type: 'change-tracking', role: 'source' },
  );
  await remote.client.putCredentials(ids, {
    hostCredentials: {
      connectionName: 'Sales',
      host: '127.0.0.1',
      port: sandbox.port,
      databaseName: 'Sales',
      username: DBA.name,
      password: DBA.password,
    },
  });
  await remote.client.putSpecific(ids, { configuration: { sourceChangeRetentionDays: 5 } });
  await remote.client.putEntities(
    { pipelineId: 'orders' },
    {
      entities: [
        { source: { schema: 'dbo', table: 'Orders' }, target: { table: 'orders' } },
        { source: { schema: 'dbo', table: 'AuditLog' }, target: { table: 'audit_log' } },
      ],
    },
  );
  await web.app.deps.profiles.save({
    id: 'remote',
    name: 'Remote',
    baseUrl: remote.url,
    token: remote.token,
  });
  page = await web.browser.newPage();
  // The events' Copy button writes the clipboard; the test reads it back.
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  page.setDefaultTimeout(10_000);
});
afterAll(async () => {
  await web?.close();
  await remote?.stop();
  await sandbox?.close();
});

describe('Pipelines screen: checks', () => {
  it("runs an agent's checks, shows the spec's error, and applies the retention fix once confirmed", async () => {
    await page.goto(web.server.openUrl);
    await page.getByRole('button', { name: 'Pipelines' }).click();
    await page.getByLabel('Engine').selectOption('remote');
    await page.getByLabel('Pipeline', { exact: true }).selectOption('orders/sales-db');
    await openSection(page, 'Checks');
    await page.getByRole('button', { name: 'Run checks' }).click();
    const results = page.getByLabel('Check results');
    await results
      .getByText('IllegalArgumentException: Missing primary keys for entities... dbo.AuditLog')
      .waitFor();
    // The results appear where the DBA asked, and take focus: the next Tab is inside them.
    await expect.poll(() => results.evaluate((el) => el === document.activeElement)).toBe(true);
    const resultsTop = (await results.boundingBox())?.y ?? Infinity;
    const buttonTop = (await page.getByRole('button', { name: 'Run checks' }).boundingBox())?.y ?? 0;
    expect(resultsTop - buttonTop).toBeLessThan(400);
    const retention = page.getByLabel('Check change-retention');
    expect(await retention.locator('.status').textContent()).toBe('failed');
    expect(await page.getByLabel('Fix for change-retention').textContent()).toBe(
      'ALTER DATABASE [Sales] SET CHANGE_TRACKING (CHANGE_RETENTION = 5 DAYS);',
    );
    // No Apply for a fix the engine does not apply itself (grants, keys): those are the DBA's.
    expect(await page.getByLabel('Check primary-keys').getByRole('button', { name: 'Apply…' }).count()).toBe(
      0,
    );
    await screenshot(page, 'checks-failed');

    await retention.getByRole('button', { name: 'Apply…' }).click();
    await retention.getByRole('button', { name: 'Yes, apply it' }).click();
    await page
      .getByRole('status')
      .getByText('Applied: ALTER DATABASE [Sales] SET CHANGE_TRACKING (CHANGE_RETENTION = 5 DAYS);')
      .waitFor();
    await expect.poll(() => retention.locator('.status').textContent()).toBe('passed');
    await screenshot(page, 'checks-fixed');

    // The DBA gives the table a primary key by hand, then checks that one again.
    const pool = await sandboxPool(sandbox);
    await pool
      .request()
      .batch(
        'DROP TABLE dbo.AuditLog; CREATE TABLE dbo.AuditLog (Id INT PRIMARY KEY, Message NVARCHAR(100));',
      );
    await pool.close();
    const keys = page.getByLabel('Check primary-keys');
    await keys.getByRole('button', { name: 'Check again: primary-keys' }).click();
    await expect.poll(() => keys.locator('.status').textContent()).toBe('passed');
    await page
      .getByRole('status')
      .getByText(/^primary-keys checked again at .*: passed\.$/)
      .waitFor();
  });

  it('starts the pipeline, shows its progress, pauses and stops it', async () => {
    // A table without a primary key cannot be replicated by this agent: the DBA leaves it out.
    await remote.client.putEntities(
      { pipelineId: 'orders' },
      { entities: [{ source: { schema: 'dbo', table: 'Orders' }, target: { table: 'orders' } }] },
    );
    const pool = await sandboxPool(sandbox);
    await pool.request().batch("INSERT INTO dbo.Orders VALUES (1, N'first'), (2, N'second')");
    const state = page.getByLabel('Pipeline state');
    await startPipeline(page);
    await expect.poll(() => state.textContent()).toBe('running');
    await openSection(page, 'Timeline');
    await page.getByLabel('Pipeline events').getByText('Snapshot of dbo.Orders done: 2 rows').waitFor();
    await pool.request().batch("UPDATE dbo.Orders SET Note = N'changed' WHERE Id = 1");
    await page
      .getByLabel('Pipeline events')
      .getByText(/Applied 1 change \(1 update\) to dbo\.Orders, [\d.]+ m?s behind the source$/)
      .waitFor();
    const backlog = (await openSection(page, 'Status')).getByLabel('Backlog', { exact: true });
    await backlog.getByText('0 rows waiting').waitFor();
    // Caught up: the dial is grey (no amber or red band at 0), and no "versions behind" beside "caught up".
    expect(await backlog.locator('.band-behind, .band-far, .band-ok').count()).toBe(0);
    expect(await backlog.textContent()).not.toContain('behind');
    // A finished copy is not a status: it is listed with the tables.
    expect(await page.getByLabel('Snapshot of dbo.Orders').count()).toBe(0);
    await openSection(page, 'Tables');
    expect(await page.getByLabel('Snapshot of dbo.Orders').getAttribute('value')).toBe('2');
    await page.getByLabel('Snapshots').getByText('2 rows').waitFor();
    // Per table: rows copied, and the last hour's changes applied (the one update), read before the
    // next insert, which the stream may or may not apply before the re-snapshot below takes it.
    const orders = page
      .getByRole('table', { name: 'Entity tables' })
      .getByRole('row', { name: /dbo\.Orders/ });
    const copiedAndApplied = async () => (await orders.getByRole('cell').allTextContents()).slice(4, 6);
    await expect.poll(copiedAndApplied).toEqual(['2', '0 / 1 / 0']);
    // A re-snapshot of one table on request, from the tables view, while the pipeline runs.
    await pool.request().batch("INSERT INTO dbo.Orders VALUES (3, N'third')");
    await page.getByRole('button', { name: 'Re-snapshot dbo.Orders' }).click();
    await openSection(page, 'Timeline');
    await page
      .getByLabel('Pipeline events')
      .getByText('Snapshot of dbo.Orders started (asked for by hand): 3 rows')
      .waitFor();
    await page.getByLabel('Pipeline events').getByText('Snapshot of dbo.Orders done: 3 rows').waitFor();
    await openSection(page, 'Tables');
    await page.getByRole('button', { name: 'Reload tables' }).click();
    await expect.poll(async () => (await copiedAndApplied())[0]).toBe('3');
    await openSection(page, 'Timeline');
    // Events in words, filtered by kind and table, and copied as text.
    const recent = page.getByRole('region', { name: 'Recent events' });
    const events = recent.getByLabel('Pipeline events');
    await recent.getByLabel('Event kind').selectOption({ label: 'Snapshot done' });
    await recent.getByLabel('Event table').selectOption('dbo.Orders');
    await expect
      .poll(async () =>
        (await events.locator('li').allTextContents()).map((t) => t.replace(/^\d\d:\d\d:\d\d \S+ /, '')),
      )
      .toEqual(['Snapshot of dbo.Orders done: 3 rows', 'Snapshot of dbo.Orders done: 2 rows']);
    await recent.getByRole('button', { name: 'Copy events' }).click();
    await recent.getByRole('status').getByText('Copied 2 events.').waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied.split('\n').map((l) => l.replace(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC {2}/, ''))).toEqual([
      'Snapshot of dbo.Orders done: 3 rows',
      'Snapshot of dbo.Orders done: 2 rows',
    ]);
    await recent.getByLabel('Event kind').selectOption({ label: 'every kind' });
    await screenshot(page, 'pipeline-running');
    await openSection(page, 'Status');
    await page.getByRole('button', { name: 'Pause' }).click();
    await expect.poll(() => state.textContent()).toBe('paused');
    await page.getByRole('button', { name: 'Stop…' }).click();
    await page.getByRole('button', { name: 'Yes, stop it' }).click();
    await expect.poll(() => state.textContent()).toBe('stopped');
    await pool.close();
  });
});
