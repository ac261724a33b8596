// The cockpit in a real browser: Home with 50 pipelines across two engines and a third engine that does
// not answer; a pipeline failing while watched, first in the list and told by a notification whose
// click opens it; an open running pipeline whose gauge, charts and events follow pushed messages with no
// request from the page; a pipeline writing to a stream telling the stream's figures; Home by keyboard alone; axe clean and screenshots in both schemes.
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type sql from 'mssql';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngineClient, type EngineClient } from '../../main/client/engineClient';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../simulators/mssql';
import { configureSeedPipeline } from '../helpers/changeTracking';
import { startTestEngine, type RunningEngine } from '../helpers/engine';
import { sandboxPool } from '../helpers/sandbox';
import { freePort } from '../helpers/ports';
import { natsServers } from '../helpers/natsServer';
import { openSection, scanAccessibility, screenshot, startWebApp, type WebApp } from './browser';

let web: WebApp;
let remote: RunningEngine;
let local: EngineClient;
let sandbox: SandboxSqlServer;
let admin: sql.ConnectionPool;
let page: Page;

/** Records the notifications the page makes (the browser's own would show nothing in headless mode). */
const RECORD_NOTIFICATIONS = `
  window.__notifications = [];
  window.Notification = class {
    static permission = 'granted';
    static requestPermission() { return Promise.resolve('granted'); }
    constructor(title, options) { this.title = title; this.body = options?.body; window.__notifications.push(this); }
    close() {}
  };`;

/** A pipeline with a change-tracking source agent not yet configured (state "new"). */
async function plainPipeline(client: EngineClient, id: string, name: string): Promise<void> {
  await client.createPipeline({}, { id, name });
  await client.createAgent({ pipelineId: id }, { id: 'source', type: 'change-tracking', role: 'source' });
}

beforeAll(async () => {
  [web, remote, sandbox] = await Promise.all([
    startWebApp(),
    startTestEngine(),
    startSandboxSqlServer({ seed: true }),
  ]);
  admin = await sandboxPool(sandbox, { user: 'sa', password: 'Sandbox-Passw0rd', max: 1 });
  const localUrl = web.app.deps.localEngine.status().url ?? '';
  const localToken = (await web.app.deps.profiles.token('local')) ?? '';
  local = createEngineClient({ baseUrl: localUrl, token: localToken });
  for (let i = 1; i <= 25; i++) {
    const n = String(i).padStart(2, '0');
    await plainPipeline(local, `local-${n}`, `Local ${n}`);
    await plainPipeline(remote.client, `plant-${n}`, `Plant ${n}`);
  }
  await web.app.deps.profiles.save({
    id: 'plant',
    name: 'Plant B',
    baseUrl: remote.url,
    token: remote.token,
  });
  await web.app.deps.profiles.save({
    id: 'offline',
    name: 'Offline DC',
    baseUrl: `http://127.0.0.1:${await freePort()}`,
    token: 'offline-token',
  });
  page = await web.browser.newPage();
  await page.addInitScript(RECORD_NOTIFICATIONS);
  page.setDefaultTimeout(15_000);
});
afterAll(async () => {
  await web?.close();
  await remote?.stop();
  await admin?.close();
  await sandbox?.close();
});

const fleetRows = () => page.getByRole('table', { name: 'Pipelines of every engine' }).locator('tbody tr');

describe('Home', () => {
  it('lists 50 pipelines of two engines and says the third does not answer', async () => {
    await page.goto(web.server.openUrl);
    await expect.poll(() => fleetRows().count()).toBe(50);
    const engines = page.getByRole('list', { name: 'Engines' });
    await engines
      .getByText(/Offline DC: not answering — Cannot reach the engine at http:\/\/127\.0\.0\.1:\d+\./)
      .waitFor();
    await engines.getByText('Plant B: live, 25 pipelines').waitFor();
    await engines.getByText('Local engine: live, 25 pipelines').waitFor();
    expect(await fleetRows().first().locator('th').textContent()).toContain('Local 01');
  });

  it('puts a pipeline that fails first, notifies, and the notification opens it', async () => {
    const ids = { pipelineId: 'broken', agentId: 'sales' };
    await configureSeedPipeline(remote.client, sandbox, ids, ['NoSuchTable']);
    await expect.poll(() => fleetRows().count()).toBe(51);
    await remote.client.startAgent(ids);
    await expect.poll(() => fleetRows().first().locator('th').textContent()).toContain('broken');
    const first = fleetRows().first();
    expect(await first.getByText('failed', { exact: true }).count()).toBe(1);
    expect(await first.textContent()).toMatch(/NoSuchTable/);

    await expect
      .poll(() =>
        page.evaluate(() =>
          (window as unknown as { __notifications: { title: string }[] }).__notifications.map((n) => n.title),
        ),
      )
      .toEqual(['broken failed']);
    const body = await page.evaluate(
      () => (window as unknown as { __notifications: { body: string }[] }).__notifications[0]?.body,
    );
    expect(body).toMatch(/NoSuchTable.*\(on Plant B\)$/s);
    await screenshot(page, 'home-50-pipelines-light');

    await page.evaluate(() =>
      (window as unknown as { __notifications: { onclick: () => void }[] }).__notifications[0]?.onclick(),
    );
    await page.getByRole('heading', { name: 'Pipelines' }).waitFor();
    await page.getByLabel('Pipeline state').getByText('failed').waitFor();
    expect(await page.getByLabel('Engine').inputValue()).toBe('plant');
    await expect.poll(() => page.getByLabel('Pipeline', { exact: true }).inputValue()).toBe('broken/sales');
  });

  it('keeps an open running pipeline current from pushed messages alone: gauge, charts, events', async () => {
    const ids = { pipelineId: 'sales', agentId: 'orders' };
    await configureSeedPipeline(local, sandbox, ids, ['Customers', 'Orders']);
    await local.startAgent(ids);
    await page.getByRole('button', { name: 'Home' }).click();
    await page.getByRole('button', { name: 'sales', exact: true }).click();
    await page.getByLabel('Pipeline state').getByText('running').waitFor();
    await page.getByRole('figure', { name: /^Throughput/ }).waitFor();
    const asked: string[] = [];
    const gaugeTime = page.getByLabel('Backlog measured at');
    await gaugeTime.waitFor();
    const before = await gaugeTime.textContent();
    await openSection(page, 'Timeline');
    const events = page.getByLabel('Pipeline events');
    await events.getByText(/Snapshot of dbo\.Orders done/).waitFor();
    await admin.request().batch("UPDATE dbo.Customers SET Country = 'NO' WHERE CustomerId <= 4");
    await events.getByText(/Applied 4 changes \(4 updates\) to dbo\.Customers/).waitFor();
    await openSection(page, 'Status');
    await expect
      .poll(() =>
        page
          .getByRole('figure', { name: /^Throughput/ })
          .locator('figcaption')
          .textContent(),
      )
      .toMatch(/peak 0\.07\/s/);
    // Beside the lag, where that batch's time went: the source's, the engine's and the target's part.
    expect(
      await page
        .getByRole('figure', { name: /^Where the lag went/ })
        .locator('figcaption')
        .textContent(),
    ).toMatch(
      /at the source latest [\d.]+ m?s, peak [\d.]+ m?s; in the engine latest [\d.]+ m?s, .*; at the target latest [\d.]+ m?s/,
    );
    // The runner measures the backlog every 10 s; its point comes pushed.
    await expect.poll(() => gaugeTime.textContent(), { timeout: 25_000 }).not.toBe(before);
    await page.getByText('The figures as a table').click();
    // Newest first; the wait for the gauge may have begun a new minute, so the update's step
    // need not be the top row, but it is the one step with any throughput.
    const throughputs = await page.locator('table.chart-table tbody tr td:first-of-type').allTextContents();
    expect(throughputs.filter((t) => t !== '0/s' && t !== '–')).toEqual(['0.07/s']);
    expect(await page.locator('table.chart-table thead th').allTextContents()).toEqual([
      'Step',
      'Throughput',
      'Lag',
      'At the source',
      'In the engine',
      'At the target',
      'Backlog',
    ]);
    expect(asked).toEqual([]);
    await screenshot(page, 'pipeline-charts-light');
    await local.stopAgent(ids);
  });

  it('tells what a pipeline writing to a stream published and what the stream holds', async () => {
    const ids = { pipelineId: 'streamed', agentId: 'orders' };
    const stream = `HOME_${process.pid}`;
    await configureSeedPipeline(local, sandbox, ids, ['Orders']);
    await local.createAgent(
      { pipelineId: 'streamed' },
      { id: 'nats', type: 'nats-jetstream', role: 'target' },
    );
    const target = { pipelineId: 'streamed', agentId: 'nats' };
    await local.putCredentials(target, {
      hostCredentials: { connectionName: 'nats', servers: natsServers() },
    });
    await local.putSpecific(target, { configuration: { stream, subjectPrefix: `home${process.pid}` } });
    try {
      await local.startAgent(ids);
      await page.getByRole('button', { name: 'Home' }).click();
      await page.getByRole('button', { name: 'streamed', exact: true }).click();
      await openSection(page, 'Status');
      const figures = page.getByLabel('Figures');
      await figures
        .getByText(new RegExp(`events/s to ${stream}, .*; it holds \\d+ messages, .* \\(no size limit\\)`))
        .waitFor({
          timeout: 25_000,
        });
    } finally {
      await local.stopAgent(ids);
      // The suites after this one count the pipelines there were before it.
      await local.deletePipeline({ pipelineId: 'streamed' });
      const nc = await connect({ servers: natsServers() });
      await (await jetstreamManager(nc)).streams.delete(stream).catch(() => undefined);
      await nc.close();
    }
  });

  it('is used by keyboard alone: filter, then open a pipeline', async () => {
    const keys = await web.browser.newPage();
    keys.setDefaultTimeout(15_000);
    try {
      await keys.goto(web.server.openUrl);
      await expect
        .poll(() =>
          keys.getByRole('table', { name: 'Pipelines of every engine' }).locator('tbody tr').count(),
        )
        .toBeGreaterThan(50);
      const focused = () =>
        keys.evaluate(() =>
          document.activeElement?.getAttribute('type') === 'search'
            ? 'search'
            : (document.activeElement?.textContent ?? ''),
        );
      for (let i = 0; i < 30 && (await focused()) !== 'search'; i++) await keys.keyboard.press('Tab');
      await keys.keyboard.type('Plant 07');
      await expect
        .poll(() =>
          keys.getByRole('table', { name: 'Pipelines of every engine' }).locator('tbody tr').count(),
        )
        .toBe(1);
      await keys.keyboard.press('Tab');
      expect(await focused()).toBe('Plant 07');
      await keys.keyboard.press('Enter');
      await keys.getByRole('heading', { name: 'Pipelines' }).waitFor();
      await expect
        .poll(() => keys.getByLabel('Pipeline', { exact: true }).inputValue())
        .toBe('plant-07/source');
    } finally {
      await keys.close();
    }
  });

  it.each(['light', 'dark'] as const)(
    'is clean for axe in the %s scheme, with 51 pipelines and a running one',
    async (scheme) => {
      const view = await web.browser.newPage({ colorScheme: scheme, bypassCSP: true });
      view.setDefaultTimeout(15_000);
      try {
        await view.goto(web.server.openUrl);
        await expect
          .poll(() =>
            view.getByRole('table', { name: 'Pipelines of every engine' }).locator('tbody tr').count(),
          )
          .toBe(52);
        expect(await scanAccessibility(view)).toEqual([]);
        await screenshot(view, `home-${scheme}`);
        await view.getByRole('button', { name: 'sales', exact: true }).click();
        await view.getByRole('figure', { name: /^Lag/ }).waitFor();
        expect(await scanAccessibility(view)).toEqual([]);
        await screenshot(view, `pipeline-detail-${scheme}`);
      } finally {
        await view.close();
      }
    },
  );
});
