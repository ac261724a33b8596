// The readiness report of both sandbox sources, made by the engine and fetched through the app as the
// renderer asks for it: every check and every table in it, no secret, and a PDF Chromium prints from it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkTitle } from '../../../shared/checkSummary';
import { callApp, startTestApp } from '../../helpers/app';
import { SEED_AGENT, SEED_ADMIN } from '../../../simulators/ibmi/seed';
import { SEED_AGENT_LOGIN } from '../../../simulators/mssql/seed';
import { launchBrowser } from '../../renderer/browser';
import type { Browser } from 'playwright-core';

let app: Awaited<ReturnType<typeof startTestApp>>;
let browser: Browser;
beforeAll(async () => {
  [app, browser] = await Promise.all([startTestApp(), launchBrowser()]);
  await callApp(app, 'startSandbox');
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

interface Report {
  fileName: string;
  html: string;
  pdfBase64: string | null;
}
interface Checked {
  checks: { id: string; status: string; message: string }[];
}

const SOURCES = [
  {
    name: 'change tracking (simulated SQL Server)',
    at: { profileId: 'local', pipelineId: 'sandbox', agentId: 'sales' },
    tables: ['dbo.Customers', 'dbo.Orders', 'dbo.OrderLines'],
    secret: SEED_AGENT_LOGIN.password,
    feed: ['Change Tracking on the database', 'Change retention'],
  },
  {
    name: 'journal (simulated IBM i)',
    at: { profileId: 'local', pipelineId: 'sandbox-ibmi', agentId: 'as400' },
    tables: ['SHOP.CUSTOMER', 'SHOP.ORDERS', 'LEGACY.ITEMS'],
    secret: SEED_AGENT.password,
    feed: ['Journal attributes', 'Journals and the files journaled to them'],
  },
];

describe.each(SOURCES)('readiness report: $name', (source) => {
  let report: Report;
  let checked: Checked;
  beforeAll(async () => {
    report = (await callApp(app, 'createReadinessReport', source.at)) as Report;
    // The checks as the Checks section runs them, to hold the report against.
    checked = (await callApp(app, 'testEngineAgent', source.at)) as Checked;
  });

  it('holds every check, with what it expects and what was found, and every table with its verdict', () => {
    const { html } = report;
    expect(html).toMatch(/^<!doctype html>/);
    expect(checked.checks.length).toBeGreaterThan(5);
    const rows = html.split('<tr class="s-').slice(1);
    for (const check of checked.checks) {
      const row = rows.find((r) => r.includes(`<span class="id">${check.id}</span>`));
      expect(row, check.id).toBeDefined();
      expect(row).toContain(checkTitle(check.id));
      // Expected (not blank for any check the agents run) and found.
      expect(row).not.toMatch(/<td>–<\/td>\s*<td>/);
    }
    for (const table of source.tables)
      expect(html).toMatch(new RegExp(`<th scope="row">${table.replace('.', '\\.')}</th>`));
    for (const heading of source.feed) expect(html).toContain(heading);
    // Settings by the labels the DBA typed them under, not by their keys.
    expect(html).toContain('<th scope="row">Connection name</th>');
    expect(html).not.toMatch(/<th scope="row">(connectionName|maxConnectionsCount|snapshotMode)<\/th>/);
    // The app's one time format, and where the pipeline writes.
    expect(html).toMatch(/Made [A-Z][a-z]{2} \d{1,2}, \d{4}, \d\d:\d\d:\d\d UTC by/);
    expect(html).toContain(
      `<tr><th scope="row">Target</th><td>The default SQLite file, replicas/${source.at.pipelineId}.sqlite in the engine&#39;s data folder.</td></tr>`,
    );
    expect(html).toContain('0.0.0-test');
    // A pipeline not started yet has no latency to report, and says so rather than a 0.
    expect(html).toContain('<h2>Freshness</h2>\n<p>No batch applied since the engine started');
  });

  it('says every failed check as failed, and the verdict follows', () => {
    const failed = checked.checks.filter((c) => c.status === 'failed');
    const { html } = report;
    expect(html).toContain(failed.length ? 'Not ready yet' : 'Ready to replicate');
    for (const c of failed)
      expect(html).toContain(
        `${checkTitle(c.id)}<br><span class="id">${c.id}</span></th>\n  <td class="status">Failed`,
      );
  });

  it('holds no secret: the password is said to be set, never shown', () => {
    expect(report.html).not.toContain(source.secret);
    expect(report.html).not.toContain(SEED_ADMIN.password);
    expect(report.html).toContain('set (not shown)');
    // Web mode: the browser prints it; the desktop app adds its own PDF.
    expect(report.pdfBase64).toBeNull();
  });

  it('prints to a PDF in Chromium, and has no script', async () => {
    expect(report.html).not.toMatch(/<script/i);
    const page = await browser.newPage({ javaScriptEnabled: false });
    try {
      await page.setContent(report.html);
      const pdf = await page.pdf({ format: 'A4', printBackground: true });
      expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      expect(pdf.length).toBeGreaterThan(10_000);
    } finally {
      await page.close();
    }
  });
});

describe('readiness report of a pipeline with a target agent', () => {
  it('names the target, its kind and its place, never its password', async () => {
    const added = (await callApp(app, 'applyAgentConfig', {
      profileId: 'local',
      pipelineId: 'sandbox',
      agentId: 'warehouse',
      agentType: 'postgresql',
      role: 'target',
      hostCredentials: {
        connectionName: 'warehouse',
        host: 'dw01.example.com',
        port: 5433,
        databaseName: 'dw',
        username: 'cdc',
        password: 'Warehouse-Secret-1',
      },
      configuration: { schema: 'sales' },
      joinExisting: true,
      // No PostgreSQL answers at dw01 here: the report is what is tested.
      applyDespiteSignOn: true,
    })) as { agent: unknown };
    expect(added.agent).not.toBeNull();
    const { html } = (await callApp(app, 'createReadinessReport', SOURCES[0]?.at)) as Report;
    expect(html).toContain(
      '<tr><th scope="row">Target</th><td>PostgreSQL: agent warehouse, dw01.example.com, port 5433, database dw, schema sales.</td></tr>',
    );
    expect(html).not.toContain('Warehouse-Secret-1');
  });
});
