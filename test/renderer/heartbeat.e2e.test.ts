// The heartbeat, from the app, in a real browser: a change-tracking pipeline with the heartbeat on is
// started on a quiet sandbox SQL Server. The Start confirmation shows the heartbeat table the agent
// makes; once running, Status says how fresh the quiet pipeline is ("fresh to … (heartbeat)")
// where they said "idle since", and so does Home's row; Status says when the heartbeat was written
// and where its time went; axe finds nothing serious there.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngineClient } from '../../main/client/engineClient';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../simulators/mssql';
import { configureSeedPipeline } from '../helpers/changeTracking';
import { openSection, scanAccessibility, screenshot, startWebApp, type WebApp } from './browser';

let web: WebApp;
let sandbox: SandboxSqlServer;
let page: Page;
const ids = { pipelineId: 'beating', agentId: 'sales' };
const FRESH = /fresh to [\d.]+ m?s \(heartbeat/;

beforeAll(async () => {
  [web, sandbox] = await Promise.all([startWebApp(), startSandboxSqlServer({ seed: true })]);
  const local = createEngineClient({
    baseUrl: web.app.deps.localEngine.status().url ?? '',
    token: (await web.app.deps.profiles.token('local')) ?? '',
  });
  await configureSeedPipeline(
    local,
    sandbox,
    ids,
    ['Customers'],
    { snapshotMode: 'never', heartbeatSeconds: 1 },
    'With a heartbeat',
  );
  // Only to let the test inject axe: the app's own CSP stays as it ships.
  page = await web.browser.newPage({ bypassCSP: true });
  page.setDefaultTimeout(15_000);
});
afterAll(async () => {
  await sandbox?.close();
  await web?.close();
});

describe('the heartbeat, from the app', () => {
  it('says how fresh a quiet pipeline is on Status, instead of "idle since"', async () => {
    await page.goto(web.server.openUrl);
    await page.getByRole('button', { name: 'With a heartbeat', exact: true }).click();
    await openSection(page, 'Status');
    await page.getByRole('button', { name: 'Start…' }).click();
    // The heartbeat's table is a write at the source the DBA sees before saying yes.
    const confirm = page.getByRole('group', { name: 'Confirm start' });
    await confirm.getByText('CREATE TABLE [SYNC].[CT_HEARTBEAT]', { exact: false }).waitFor();
    await confirm.getByRole('button', { name: 'Yes, start it' }).click();
    await expect.poll(() => page.getByLabel('Pipeline state').textContent()).toBe('running');

    const figures = page.getByLabel('Figures');
    const lag = figures.getByRole('definition').first();
    await expect.poll(() => lag.textContent(), { timeout: 20_000 }).toMatch(FRESH);
    expect(await lag.textContent()).toMatch(
      /^fresh to [\d.]+ m?s \(heartbeat; caught up, nothing new at the source\)$/,
    );
    const heartbeat = figures.getByRole('definition').filter({ hasText: 'at the source,' });
    expect(await heartbeat.textContent()).toMatch(
      /^written [\d:]+ UTC at the source, [\d.]+ m?s from its commit at the source to its commit at the target: [\d.]+ m?s at the source \(commit to read\), [\d.]+ m?s in the engine \(read to apply\), [\d.]+ m?s at the target \(apply to commit\)$/,
    );
    expect(await figures.textContent()).not.toContain('idle since');
    expect(await scanAccessibility(page)).toEqual([]);
    await screenshot(page, 'heartbeat-status');

    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await scanAccessibility(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'light' });
  }, 90_000);

  it('says how fresh it is on Home too, in the Lag column of its row', async () => {
    await page.getByRole('button', { name: 'Home' }).click();
    const fleet = page.getByRole('table', { name: 'Pipelines of every engine' });
    const header = await fleet.getByRole('columnheader').allTextContents();
    const row = fleet
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: 'With a heartbeat' }) });
    // The row header is the first cell; the data cells follow it in the headers' order.
    const lag = row.getByRole('cell').nth(header.indexOf('Lag') - 1);
    await expect.poll(() => lag.textContent(), { timeout: 20_000 }).toMatch(FRESH);
    expect(await lag.textContent()).toMatch(/^fresh to [\d.]+ m?s \(heartbeat\)$/);
    expect(await row.textContent()).not.toContain('idle since');
    expect(await scanAccessibility(page)).toEqual([]);
  }, 60_000);
});
