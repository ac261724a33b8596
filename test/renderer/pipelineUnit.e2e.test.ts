// The pipeline as the unit, in a real browser: one row per pipeline on Home and one option per pipeline
// on the Pipelines screen, the same count in Home's list, summary and backlog overview (a failed one
// included), the agents listed under their pipeline with the target's own checks one click away, and
// Remove agent taking one agent and leaving the pipeline. Axe clean, light and dark.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngineClient, type EngineClient } from '../../main/client/engineClient';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../simulators/mssql';
import { configureSeedPipeline } from '../helpers/changeTracking';
import { POSTGRES, scratchSchema } from '../helpers/replica';
import { openSection, scanAccessibility, screenshot, startWebApp, type WebApp } from './browser';

const SCHEMA = `unit_${process.pid}`;
let web: WebApp;
let local: EngineClient;
let sandbox: SandboxSqlServer;
let page: Page;
let dropSchema: () => Promise<void>;

beforeAll(async () => {
  [web, sandbox] = await Promise.all([startWebApp(), startSandboxSqlServer({ seed: true })]);
  dropSchema = (await scratchSchema(SCHEMA)).drop;
  local = createEngineClient({
    baseUrl: web.app.deps.localEngine.status().url ?? '',
    token: (await web.app.deps.profiles.token('local')) ?? '',
  });
  const sales = { pipelineId: 'dba-sales', agentId: 'sales' };
  await configureSeedPipeline(local, sandbox, sales, ['Customers'], {}, 'DBA sales');
  await local.createAgent(sales, { id: 'warehouse', type: 'postgresql', role: 'target' });
  const target = { pipelineId: 'dba-sales', agentId: 'warehouse' };
  await local.putCredentials(target, {
    hostCredentials: {
      connectionName: 'warehouse',
      host: POSTGRES.host,
      port: POSTGRES.port,
      databaseName: POSTGRES.database,
      username: POSTGRES.user,
      password: 'unused-with-trust',
    },
  });
  await local.putSpecific(target, { configuration: { schema: SCHEMA } });
  const broken = { pipelineId: 'broken', agentId: 'orders' };
  await configureSeedPipeline(local, sandbox, broken, ['NoSuchTable'], {}, 'Broken orders');
  await local.startAgent(broken);
  await local.createPipeline({}, { id: 'later', name: 'Set up later' });
  await local.createAgent({ pipelineId: 'later' }, { id: 'source', type: 'change-tracking', role: 'source' });
  // bypassCSP: axe is injected as a script, which the app's CSP rightly refuses.
  page = await web.browser.newPage({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
  page.setDefaultTimeout(15_000);
});
afterAll(async () => {
  await web?.close();
  await sandbox?.close();
  await dropSchema?.();
});

const fleetRows = () => page.getByRole('table', { name: 'Pipelines of every engine' }).locator('tbody tr');

describe('the pipeline as the unit', () => {
  it('counts three pipelines alike in Home’s list, summary and backlog overview', async () => {
    await page.goto(web.server.openUrl);
    await expect.poll(() => fleetRows().first().textContent()).toContain('Broken orders');
    expect(await fleetRows().count()).toBe(3);
    // The broken pipeline is listed before its start has failed: wait for the summary to count it.
    await expect
      .poll(() => page.getByRole('status', { name: 'Summary' }).textContent())
      .toMatch(/^3 pipelines · 1 failed/);
    const overview = page.getByRole('region', { name: 'Backlog overview' });
    expect(await overview.getByRole('listitem').count()).toBe(3);
    await overview.getByText('3 pipelines, as listed above.').waitFor();
    const sales = fleetRows().filter({ hasText: 'DBA sales' });
    expect(await sales.count()).toBe(1);
    expect(await sales.textContent()).toContain('SQL Server → PostgreSQL');
  });

  it('offers one option per pipeline and lists its agents, the target’s checks one click away', async () => {
    await page.getByRole('button', { name: 'DBA sales', exact: true }).click();
    const select = page.getByLabel('Pipeline', { exact: true });
    await expect.poll(() => select.inputValue()).toBe('dba-sales/sales');
    const options = await select.locator('option:not([disabled])').allTextContents();
    expect(options.sort()).toEqual([
      'Broken orders: SQL Server → SQLite file (failed)',
      'DBA sales: SQL Server → PostgreSQL (configured)',
      'Set up later: SQL Server → SQLite file (new)',
    ]);
    const agents = page.getByRole('navigation', { name: 'Agents of DBA sales' });
    await agents.getByRole('button', { name: 'source sales (Change tracking, SQL Server)' }).waitFor();
    await agents.getByRole('button', { name: 'target warehouse (PostgreSQL)' }).click();
    await expect.poll(() => select.inputValue()).toBe('dba-sales/warehouse');
    // Still one pipeline: the option keeps its words with the target open.
    expect(await select.locator('option:checked').textContent()).toBe(
      'DBA sales: SQL Server → PostgreSQL (configured)',
    );
    const checks = await openSection(page, 'Checks');
    await checks.getByRole('button', { name: 'Run checks' }).click();
    const results = page.getByLabel('Check results');
    await results.waitFor();
    expect(await results.textContent()).not.toMatch(/409|Conflict/);
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(await scanAccessibility(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await scanAccessibility(page)).toEqual([]);
    await screenshot(page, 'pipeline-agents-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    // The pipeline's own sections are read through its source: its tables, not the target's none.
    await openSection(page, 'Tables');
    await expect.poll(() => select.inputValue()).toBe('dba-sales/sales');
  });

  it('removes one agent, says what goes, and keeps the pipeline open with the other', async () => {
    await page
      .getByRole('navigation', { name: 'Agents of DBA sales' })
      .getByRole('button', { name: 'target warehouse (PostgreSQL)' })
      .click();
    await page.getByRole('button', { name: 'Run checks' }).waitFor();
    await openSection(page, 'Settings');
    await page.getByRole('button', { name: 'Remove agent…' }).click();
    const confirm = page.getByRole('group', { name: 'Confirm remove agent' });
    expect(await confirm.textContent()).toContain(
      'Without it the pipeline writes to the default SQLite file, replicas/dba-sales.sqlite.',
    );
    await confirm.getByRole('button', { name: 'Yes, remove warehouse' }).click();
    await page.getByText('Agent warehouse removed from pipeline DBA sales').waitFor();
    const agents = page.getByRole('navigation', { name: 'Agents of DBA sales' });
    await agents.getByText('target: the default SQLite file, replicas/dba-sales.sqlite').waitFor();
    expect(await agents.getByRole('button').allTextContents()).toEqual([
      'source sales (Change tracking, SQL Server)',
    ]);
    expect((await local.getPipeline({ pipelineId: 'dba-sales' })).agents.map((a) => a.id)).toEqual(['sales']);
    await page.getByRole('button', { name: 'Home', exact: true }).click();
    await expect
      .poll(() => fleetRows().filter({ hasText: 'DBA sales' }).textContent())
      .toContain('SQL Server → SQLite file');
  });

  it('takes an old failure off Home once the pipeline runs again, and keeps it on its timeline', async () => {
    const broken = fleetRows().filter({ hasText: 'Broken orders' });
    const lastFailure = broken.locator('td').last();
    expect(await lastFailure.textContent()).toMatch(/NoSuchTable/);
    await local.putEntities(
      { pipelineId: 'broken' },
      { entities: [{ source: { schema: 'dbo', table: 'Orders' }, target: { table: 'orders' } }] },
    );
    await local.startAgent({ pipelineId: 'broken', agentId: 'orders' });
    await expect.poll(() => lastFailure.textContent(), { timeout: 20_000 }).toBe('–');
    expect(await broken.textContent()).toContain('running');
    await page.getByRole('button', { name: 'Broken orders', exact: true }).click();
    await openSection(page, 'Timeline');
    await page
      .getByLabel('Pipeline events')
      .getByText(/NoSuchTable/)
      .first()
      .waitFor();
  });
});
