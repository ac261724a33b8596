// An axe-core scan of every screen in a real browser, in the OS's light and dark schemes: no serious
// or critical violation (WCAG 2 A and AA rules, colour contrast included).
import Database from 'better-sqlite3';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  openSection,
  scanAccessibility as scan,
  screenshot,
  startPipeline,
  startWebApp,
  type WebApp,
} from './browser';

let web: WebApp;
beforeAll(async () => {
  web = await startWebApp();
});
afterAll(() => web?.close());

/** The Pipelines screen with the sandbox's pipelines set up (the second time, found set up). */
async function trySandbox(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Pipelines' }).click();
  await page.getByRole('button', { name: 'Try the sandbox' }).click();
  await page
    .getByRole('status')
    .getByText(/The sandbox SQL Server runs on/)
    .waitFor();
}

/** The sandbox's SQL Server pipeline running, its Status open (started when it is not). */
async function running(page: Page): Promise<void> {
  await openSection(page, 'Status');
  const start = page.getByRole('button', { name: 'Start…' });
  if (await start.isEnabled()) await startPipeline(page);
  await page.getByLabel('Pipeline state').getByText('running').waitFor();
}

const agents = async (page: Page) =>
  void (await page.getByRole('button', { name: 'Agents', exact: true }).click());

/** Every screen, as a user reaches it: the name it is reported under, and the clicks that get there. */
const SCREENS: [string, (page: Page) => Promise<void>][] = [
  [
    'home',
    // With no pipeline yet (the first launch), Home offers its first steps instead of an empty table.
    async (page) =>
      void (await page
        .getByRole('table', { name: 'Pipelines of every engine' })
        .or(page.getByRole('region', { name: 'Get started' }))
        .waitFor()),
  ],
  ['agent types', agents],
  [
    'change-tracking wizard, a bad port',
    async (page) => {
      await agents(page);
      await page.getByRole('button', { name: /Change tracking/ }).click();
      await page.getByLabel('Port').fill('70000');
      await page.locator('#hostCredentials-port-error').waitFor();
    },
  ],
  [
    'journal wizard, advanced settings open',
    async (page) => {
      await agents(page);
      await page.getByRole('button', { name: /Journal/ }).click();
      await page.getByText('Advanced').click();
      await page.getByLabel('Sync library').waitFor();
    },
  ],
  [
    'journal wizard, accepted, with the apply form',
    async (page) => {
      await agents(page);
      await page.getByRole('button', { name: /Journal/ }).click();
      for (const [label, text] of [
        ['Connection name', 'as400'],
        ['Host', 'ibmi01'],
        ['Database', '*SYSBAS'],
        ['User profile', 'CDCAGENT'],
        ['Password', 'pw'],
      ])
        await page.getByLabel(label as string, { exact: true }).fill(text as string);
      await page.getByRole('button', { name: 'Next' }).click();
      await page.getByRole('button', { name: 'Check settings' }).click();
      await page.getByRole('form', { name: 'Apply to an engine' }).waitFor();
    },
  ],
  ['engines', async (page) => void (await page.getByRole('button', { name: 'Engines' }).click())],
  [
    'pipeline checks',
    async (page) => {
      await trySandbox(page);
      await openSection(page, 'Checks');
      await page.getByRole('button', { name: 'Run checks' }).click();
      await page.getByLabel('Check primary-keys').waitFor();
    },
  ],
  [
    'pipeline tables',
    async (page) => {
      await trySandbox(page);
      await openSection(page, 'Tables');
      await page.getByRole('table', { name: 'Entity tables' }).waitFor();
    },
  ],
  [
    'pipeline start confirmation',
    async (page) => {
      await trySandbox(page);
      await openSection(page, 'Status');
      await page.getByRole('button', { name: 'Start…' }).click();
      await page.getByRole('group', { name: 'Confirm start' }).waitFor();
    },
  ],
  [
    'pipeline status, running',
    async (page) => {
      await trySandbox(page);
      await running(page);
      await page.getByLabel('Backlog', { exact: true }).getByText('0 rows waiting').waitFor();
    },
  ],
  [
    'pipeline timeline',
    async (page) => {
      await trySandbox(page);
      await running(page);
      await openSection(page, 'Timeline');
      await page
        .getByLabel('Pipeline events')
        .getByText(/Snapshot of dbo\.Customers done/)
        .first()
        .waitFor();
    },
  ],
  [
    'pipeline verify, a row differing',
    async (page) => {
      await trySandbox(page);
      await running(page);
      // Copied (on the first pass; the second finds the copy there): then a row altered behind its back.
      const alter = () => {
        const db = new Database(join(web.app.dataDir, 'replicas', 'sandbox.sqlite'), { timeout: 5000 });
        try {
          return db.prepare('UPDATE customers SET "Name" = ? WHERE "CustomerId" = 1').run('altered by hand')
            .changes;
        } catch {
          return 0;
        } finally {
          db.close();
        }
      };
      await expect.poll(alter, { timeout: 15_000 }).toBe(1);
      await openSection(page, 'Verify');
      const verify = page.getByRole('region', { name: 'Verify the replica' });
      await verify.getByRole('button', { name: 'Verify', exact: true }).click();
      await verify.getByRole('table', { name: 'Rows of dbo.Customers that differ' }).waitFor();
    },
  ],
  [
    'pipeline status, latest problem',
    async (page) => {
      await trySandbox(page);
      await openSection(page, 'Status');
      await page
        .getByRole('region', { name: 'Latest problem' })
        .getByText(/Verify .*1 different/)
        .waitFor();
      // Stopped before the next screen starts: a stop still under way would end the next one's run.
      await page.getByRole('button', { name: 'Stop…' }).click();
      await page.getByRole('button', { name: 'Yes, stop it' }).click();
      await page.getByLabel('Pipeline state').getByText('stopped').waitFor();
    },
  ],
  [
    'pipeline settings, delete asked',
    async (page) => {
      await trySandbox(page);
      await openSection(page, 'Settings');
      await page.getByRole('button', { name: 'Delete pipeline…' }).click();
      await page.getByRole('group', { name: 'Confirm delete' }).waitFor();
    },
  ],
  ['diagnostics', async (page) => void (await page.getByRole('button', { name: 'Diagnostics' }).click())],
];

describe.each(['light', 'dark'] as const)('accessibility in the %s scheme', (scheme) => {
  it.each(SCREENS)('%s: no serious or critical violation', async (name, reach) => {
    // Only to let the test inject axe: the app's own CSP stays as it ships.
    const page = await web.browser.newPage({ colorScheme: scheme, bypassCSP: true });
    page.setDefaultTimeout(15_000);
    try {
      await page.goto(web.server.openUrl);
      await reach(page);
      expect(await scan(page)).toEqual([]);
      // Every screen in both schemes, for a person to look at (test/artifacts).
      await screenshot(page, `screen-${scheme}-${name.replace(/[^a-z0-9]+/gi, '-').replace(/-$/, '')}`);
    } finally {
      await page.close();
    }
  });
});
