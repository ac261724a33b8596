// Where a pipeline writes, chosen in the app: its Settings say it writes to the default SQLite file,
// offer a target of the DBA's own, the target's two steps and checks follow, and the next Start writes
// the rows into that PostgreSQL schema. No API call outside the app.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES, postgresClient } from '../helpers/replica';
import { openSection, startPipeline, startWebApp, type WebApp } from './browser';

const SCHEMA = `flow_target_${process.pid}`;
let web: WebApp;
let client: pg.Client;
beforeAll(async () => {
  [web, client] = await Promise.all([startWebApp(), postgresClient()]);
  await client.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
});
afterAll(async () => {
  await client?.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await client?.end();
  await web?.close();
});

describe('the target step', () => {
  it('sets a PostgreSQL target for the sandbox pipeline, checks it, and the next Start writes there', async () => {
    const page = await web.browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(15_000);
    await page.goto(web.server.openUrl);
    await page
      .getByRole('region', { name: 'Get started' })
      .getByRole('button', { name: 'Try the sandbox' })
      .click();
    // The source's tables saved in the picker first: its answer is no part of the target's wizard.
    await openSection(page, 'Tables');
    await page.getByRole('button', { name: 'Choose tables' }).click();
    await page.getByRole('button', { name: /^Save \d+ tables?$/ }).click();
    await expect.poll(() => page.getByLabel('Save result').textContent()).toMatch(/^Saved: /);
    const settings = await openSection(page, 'Settings');
    await settings.getByText('Writes to the default SQLite file, replicas/sandbox.sqlite').waitFor();
    await page.getByLabel('Write elsewhere').selectOption({ label: 'PostgreSQL' });
    await page.getByRole('button', { name: 'Set it up…' }).click();

    await page.getByRole('heading', { name: /PostgreSQL target/ }).waitFor();
    expect(await page.getByLabel('Save result').count()).toBe(0);
    for (const [label, text] of [
      ['Connection name', 'local postgres'],
      ['Host', POSTGRES.host],
      ['Port', String(POSTGRES.port)],
      ['Database', POSTGRES.database],
      ['User', 'postgres'],
      ['Password', 'not-needed-trust'],
    ])
      await page.getByLabel(label as string, { exact: true }).fill(text as string);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByLabel('Schema').fill(SCHEMA);
    await page.getByRole('button', { name: 'Check settings' }).click();
    // The pipeline is the one the target was set up from; the agent id a target's.
    expect(await page.getByLabel('Pipeline id').inputValue()).toBe('sandbox');
    expect(await page.getByLabel('Agent id').inputValue()).toBe('target');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page
      .getByRole('status')
      .getByText('Applied: pipeline sandbox writes here from its next Start.')
      .waitFor();
    // A target has no tables to pick: the next step is its checks.
    expect(await page.getByRole('table', { name: 'Source tables' }).count()).toBe(0);
    await page.getByRole('button', { name: "Open the target's checks" }).click();
    await page.getByRole('button', { name: 'Run checks' }).click();
    await expect
      .poll(() => page.getByLabel('Check target-writable').locator('.status').textContent())
      .toBe('passed');

    // The source agent's Start writes into the schema.
    await page
      .getByRole('navigation', { name: /^Agents of / })
      .getByRole('button', { name: 'source sales (Change tracking, SQL Server)' })
      .click();
    const writes = await openSection(page, 'Settings');
    await writes.getByText('Writes through target agent target (postgresql)').waitFor();
    await startPipeline(page);
    await expect
      .poll(
        async () =>
          (
            await client
              .query(`SELECT count(*)::int AS n FROM ${SCHEMA}.customers`)
              .catch(() => ({ rows: [{ n: 0 }] }))
          ).rows[0].n as number,
        { timeout: 30_000 },
      )
      .toBe(4);
    await openSection(page, 'Status');
    await page.getByRole('button', { name: 'Stop…' }).click();
    await page.getByRole('button', { name: 'Yes, stop it' }).click();
    await expect.poll(() => page.getByLabel('Pipeline state').textContent()).toBe('stopped');
    await page.close();
  });
});
