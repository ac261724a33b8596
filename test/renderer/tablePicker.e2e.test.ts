// Choosing tables in a real browser, with no API call outside the app: the wizard's Apply opens the
// source's catalogue (the simulated IBM i's libraries), the DBA searches, chooses files, names their
// targets; a clash is refused beside the Save button in the engine's words and takes focus; fixed, the
// tables are saved as the pipeline's entities, and the Pipelines screen opens them again as chosen.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxIbmi, type SandboxIbmi } from '../../simulators/ibmi';
import { SEED_AGENT } from '../../simulators/ibmi/seed';
import { callApp } from '../helpers/app';
import { openSection, scanAccessibility, screenshot, startWebApp, type WebApp } from './browser';

let web: WebApp;
let browser: Browser;
let page: Page;
let ibmi: SandboxIbmi;

beforeAll(async () => {
  [web, ibmi] = await Promise.all([startWebApp(), startSandboxIbmi({ seed: true })]);
  browser = web.browser;
  // bypassCSP: axe is injected as a script, which the app's CSP rightly refuses.
  page = await browser.newPage({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
  page.setDefaultTimeout(10_000);
});
afterAll(async () => {
  await web?.close();
  await ibmi?.close();
});

/** A row of the picker's list of source tables (the Tables view lists the chosen ones too). */
const row = (name: string) =>
  page.getByRole('table', { name: 'Source tables' }).getByRole('row').filter({ hasText: name });

describe('choosing tables', () => {
  it('goes from the wizard to saved entities, a clash refused in words where the DBA acted', async () => {
    const consoleErrors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
    await page.goto(web.server.openUrl);
    await page.getByRole('button', { name: 'Agents', exact: true }).click();
    await page.getByRole('button', { name: /Journal/ }).click();
    for (const [label, text] of [
      ['Connection name', 'shop'],
      ['Host', ibmi.host],
      ['Database', '*SYSBAS'],
      ['User profile', SEED_AGENT.user],
      ['Password', SEED_AGENT.password],
    ])
      await page.getByLabel(label as string, { exact: true }).fill(text as string);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('button', { name: 'Check settings' }).click();
    // An id the engine would refuse is said beside its field, in words, and the field takes focus.
    await page.getByLabel('Pipeline id').fill('Picked Tables');
    await page.getByLabel('Agent id').fill('ibmi');
    await page.getByRole('button', { name: 'Apply' }).click();
    const pipelineId = page.getByLabel('Pipeline id');
    await expect.poll(() => pipelineId.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await page.locator('#apply-pipeline-error').textContent()).toMatch(
      /^Use 1 to 63 characters of a to z, 0 to 9, _ or -/,
    );
    await page.getByLabel('Pipeline id').fill('picked');
    await page.getByRole('button', { name: 'Apply' }).click();

    // Step 3 opens by itself on the same engine and pipeline, with the source's files.
    const tables = page.getByRole('table', { name: 'Source tables' });
    await row('SHOP.CUSTOMER').waitFor();
    expect(await tables.getByRole('row').filter({ hasText: 'SYNC.' }).count()).toBe(0);
    expect(await row('LEGACY.ITEMS').textContent()).toContain('LEGACY/JRN');

    await page.getByLabel('Name contains').fill('shop.');
    await page.getByRole('button', { name: 'Find' }).click();
    await expect.poll(() => row('LEGACY.ITEMS').count()).toBe(0);
    await page.getByLabel('Replicate SHOP.CUSTOMER').check();
    await page.getByLabel('Replicate SHOP.ORDERS').check();
    expect(await page.getByLabel('Target table of SHOP.ORDERS').inputValue()).toBe('orders');
    await page.getByLabel('Target table of SHOP.ORDERS').fill('CUSTOMER');
    await page.getByRole('button', { name: 'Save 2 tables' }).click();
    const result = page.getByLabel('Save result');
    await expect.poll(() => result.textContent()).toMatch(/would write one table: sqlite takes both names/);
    expect(await result.getAttribute('role')).toBe('alert');
    expect(await result.evaluate((el) => el === document.activeElement)).toBe(true);

    await page.getByLabel('Target table of SHOP.ORDERS').fill('orders');
    // Orders gets its own schema-change policy; Customer keeps the pipeline's.
    expect(await page.getByLabel('Schema changes of SHOP.ORDERS').inputValue()).toBe('');
    await page.getByLabel('Schema changes of SHOP.ORDERS').selectOption('suspend-table');
    // Orders' text is really in 273 (its tags say otherwise): a typo is said beside it and not saved.
    await page.getByLabel('Text CCSID of SHOP.ORDERS').fill('NOTE=273, 65535');
    expect(await row('SHOP.ORDERS').textContent()).toContain('"65535" is not COLUMN=CCSID');
    await page.getByRole('button', { name: 'Save 2 tables' }).click();
    await expect
      .poll(() => result.textContent())
      .toMatch(/^Not saved: the text CCSID of SHOP.ORDERS: "65535" is not COLUMN=CCSID/);
    await page.getByLabel('Text CCSID of SHOP.ORDERS').fill('273');
    await page.getByRole('button', { name: 'Save 2 tables' }).click();
    await expect.poll(() => result.textContent()).toBe('Saved: the pipeline replicates 2 tables.');
    expect(await result.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await scanAccessibility(page)).toEqual([]);
    await screenshot(page, 'table-picker');

    const stored = (await callApp(web.app, 'getEngineEntities', {
      profileId: 'local',
      pipelineId: 'picked',
    })) as {
      entities: {
        source: { schema: string; table: string };
        target: { table: string };
        schemaChanges?: string;
        forceCcsid?: unknown;
      }[];
    };
    expect(
      stored.entities.map((e) => [
        `${e.source.schema}.${e.source.table}`,
        e.target.table,
        e.schemaChanges,
        e.forceCcsid,
      ]),
    ).toEqual([
      ['SHOP.CUSTOMER', 'customer', undefined, undefined],
      ['SHOP.ORDERS', 'orders', 'suspend-table', 273],
    ]);

    // The same view edits them later, from the Pipelines screen.
    await page.getByRole('button', { name: 'Pipelines' }).click();
    // The only engine is chosen already.
    await expect.poll(() => page.getByLabel('Engine').inputValue()).toBe('local');
    await page.getByLabel('Pipeline', { exact: true }).selectOption('picked/ibmi');
    // Its Tables section, at its own address, read as it opens.
    await openSection(page, 'Tables');
    expect(page.url()).toMatch(/#\/pipelines\/local\/picked\/ibmi\/tables$/);
    await page.getByText('2 of 2 tables').waitFor();
    await page.getByRole('button', { name: 'Choose tables' }).click();
    await row('SHOP.CUSTOMER').waitFor();
    expect(await page.getByLabel('Replicate SHOP.CUSTOMER').isChecked()).toBe(true);
    expect(await page.getByLabel('Replicate LEGACY.ITEMS').isChecked()).toBe(false);
    expect(await page.getByLabel('Schema changes of SHOP.ORDERS').inputValue()).toBe('suspend-table');
    // The override as saved; emptied, the file's own tags are read again.
    expect(await page.getByLabel('Text CCSID of SHOP.ORDERS').inputValue()).toBe('273');
    await page.getByLabel('Text CCSID of SHOP.ORDERS').fill('');
    // A keyless DDS file: the picker says what it needs, and refuses to save it without a key.
    await page.getByLabel('Replicate LEGACY.ITEMS').check();
    expect(await row('LEGACY.ITEMS').textContent()).toContain(
      'No primary key: choose how its rows are identified (a logical key or RRN).',
    );
    await page.getByRole('button', { name: 'Save 3 tables' }).click();
    await expect
      .poll(() => page.getByLabel('Save result').textContent())
      .toBe(
        "LEGACY.ITEMS has no primary key: choose how its rows are identified (a logical key's columns, or RRN) before saving.",
      );
    await page.getByLabel('Row identification of LEGACY.ITEMS').selectOption('rrn');
    expect(await row('LEGACY.ITEMS').textContent()).not.toContain('No primary key');
    // A table added here shows in the Tables view at once, not after a reload.
    await page.getByRole('button', { name: 'Save 3 tables' }).click();
    await page.getByText('3 of 3 tables').waitFor();
    expect(await scanAccessibility(page)).toEqual([]);
    const keyed = (await callApp(web.app, 'getEngineEntities', {
      profileId: 'local',
      pipelineId: 'picked',
    })) as { entities: { source: { table: string }; rowIdentification: { kind: string } }[] };
    expect(keyed.entities.find((e) => e.source.table === 'ITEMS')?.rowIdentification).toEqual({
      kind: 'rrn',
    });
    expect(keyed.entities.find((e) => e.source.table === 'ORDERS')).not.toHaveProperty('forceCcsid');

    // By RRN, the file replicates: its copy brings every record.
    const ids = { profileId: 'local', pipelineId: 'picked', agentId: 'ibmi' };
    await callApp(web.app, 'controlEngineAgent', { ...ids, action: 'start' });
    await expect
      .poll(
        async () =>
          (
            (await callApp(web.app, 'listPipelineEvents', { profileId: 'local', pipelineId: 'picked' })) as {
              kind: string;
              data: { table?: string; rows?: number };
            }[]
          ).some((e) => e.kind === 'snapshot-done' && e.data.table === 'LEGACY.ITEMS' && e.data.rows === 12),
        { timeout: 30_000 },
      )
      .toBe(true);
    await callApp(web.app, 'controlEngineAgent', { ...ids, action: 'stop' });
    expect(consoleErrors).toEqual([]);
  });

  it('edits the agent with the password left blank (kept), then deletes the pipeline after confirming', async () => {
    await openSection(page, 'Settings');
    await page.getByRole('button', { name: 'Edit agent…' }).click();
    await page.getByRole('heading', { name: /Edit Journal agent/ }).waitFor();
    expect(await page.getByLabel('Host', { exact: true }).inputValue()).toBe(ibmi.host);
    expect(await page.getByLabel('Password', { exact: true }).inputValue()).toBe('');
    await page.getByLabel('Connection name').fill('shop, edited');
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('button', { name: 'Check settings' }).click();
    await page.getByRole('button', { name: 'Apply changes' }).click();
    await page.getByRole('status').getByText('Applied: the engine holds the new settings.').waitFor();
    const sent = page.getByLabel('Requests sent');
    expect(await sent.textContent()).toContain('PUT /pipelines/picked/agents/ibmi/config/specific');
    expect(await sent.textContent()).toContain('"passwordSet":true');
    const agent = (await callApp(web.app, 'listEngineAgents', { profileId: 'local' })) as {
      pipelines: { id: string; agents: { id: string; hostCredentials: Record<string, unknown> | null }[] }[];
    };
    const stored = agent.pipelines.find((p) => p.id === 'picked')?.agents[0]?.hostCredentials;
    expect(stored).toMatchObject({ connectionName: 'shop, edited', passwordSet: true });
    // The kept password still signs on.
    await page.getByRole('button', { name: 'Pipelines' }).click();
    await page.getByLabel('Pipeline', { exact: true }).selectOption('picked/ibmi');
    await openSection(page, 'Checks');
    await page.getByRole('button', { name: 'Run checks' }).click();
    await expect
      .poll(() => page.getByLabel('Check connection').locator('.status').textContent())
      .toBe('passed');

    // Settings read by their labels, as the DBA typed them.
    await openSection(page, 'Settings');
    const terms = await page.locator('.settings-list dt').allTextContents();
    expect(terms).toContain('Connection name');
    expect(terms).not.toContain('connectionName');

    // One agent removed, the pipeline and its other agent kept.
    const added = await callApp(web.app, 'applyAgentConfig', {
      profileId: 'local',
      pipelineId: 'picked',
      agentId: 'copy',
      agentType: 'sqlite',
      role: 'target',
      hostCredentials: {
        connectionName: 'copy',
        path: join(mkdtempSync(join(tmpdir(), 'cdc-copy-')), 'copy.sqlite'),
      },
      configuration: {},
      joinExisting: true,
    });
    expect(added).toMatchObject({ agent: { id: 'copy', role: 'target' } });
    // Added behind the page's back: the page reads its pipelines again.
    await page.reload();
    await page.getByRole('button', { name: 'Pipelines' }).click();
    await page.getByLabel('Pipeline', { exact: true }).selectOption('picked/ibmi');
    // One pipeline, its agents under it: the target opened there.
    await page
      .getByRole('navigation', { name: 'Agents of picked' })
      .getByRole('button', { name: 'target copy (SQLite file, SQLite)' })
      .click();
    await openSection(page, 'Settings');
    await page.getByRole('button', { name: 'Remove agent…' }).click();
    const removal = page.getByRole('group', { name: 'Confirm remove agent' });
    expect(await removal.textContent()).toContain(
      'Remove the target agent copy (SQLite file, SQLite) from pipeline picked? Its settings, its rows kept aside and its verify reports go. The pipeline keeps ibmi, its tables and its events.',
    );
    await removal.getByRole('button', { name: 'Yes, remove copy' }).click();
    await page.getByRole('status').getByText('Agent copy removed from pipeline picked').waitFor();
    const kept = (await callApp(web.app, 'listEngineAgents', { profileId: 'local' })) as {
      pipelines: { id: string; agents: { id: string }[] }[];
    };
    expect(kept.pipelines.find((p) => p.id === 'picked')?.agents.map((a) => a.id)).toEqual(['ibmi']);

    await page.getByLabel('Pipeline', { exact: true }).selectOption('picked/ibmi');
    await openSection(page, 'Settings');
    await page.getByRole('button', { name: 'Delete pipeline…' }).click();
    const confirm = page.getByRole('group', { name: 'Confirm delete' });
    expect(await confirm.textContent()).toContain('Delete pipeline picked with its agents (ibmi)');
    await confirm.getByRole('button', { name: 'Yes, delete it' }).click();
    await page.getByRole('status').getByText('Pipeline picked deleted').waitFor();
    const left = (await callApp(web.app, 'listEngineAgents', { profileId: 'local' })) as {
      pipelines: { id: string }[];
    };
    expect(left.pipelines.map((p) => p.id)).not.toContain('picked');
  });
});
