// Shaping a table as a DBA does, in a real browser (docs/shaping.md): a row filter typed in the picker
// with its parse error beside it as it is typed, and a mode chosen there, then saved; in the table's
// story a name masked and a column renamed, saved, the table copied again at once and the replica
// holding exactly that, and the story's rows showing the masked values under the new names; the
// history mode chosen, the table made again with its versions' columns; a hash without a salt said to
// hold the table, before Start; axe clean.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngineClient, type EngineClient } from '../../main/client/engineClient';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../simulators/mssql';
import { configureSeedPipeline } from '../helpers/changeTracking';
import { until } from '../helpers/until';
import { openSection, scanAccessibility, screenshot, startWebApp, type WebApp } from './browser';

let web: WebApp;
let local: EngineClient;
let sandbox: SandboxSqlServer;
let page: Page;
const ids = { pipelineId: 'shaped', agentId: 'sales' };

const replica = () => {
  const db = new Database(join(web.app.dataDir, 'replicas', 'shaped.sqlite'), {
    readonly: true,
    timeout: 5000,
  });
  try {
    return db.prepare('SELECT * FROM customers ORDER BY CustomerId').all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
};
const copies = async () =>
  (await local.listEvents({ pipelineId: ids.pipelineId })).filter((e) => e.kind === 'snapshot-done').length;

beforeAll(async () => {
  [web, sandbox] = await Promise.all([startWebApp(), startSandboxSqlServer({ seed: true })]);
  const url = web.app.deps.localEngine.status().url ?? '';
  local = createEngineClient({ baseUrl: url, token: (await web.app.deps.profiles.token('local')) ?? '' });
  await configureSeedPipeline(local, sandbox, ids, ['Customers']);
  // Only to let the test inject axe: the app's own CSP stays as it ships.
  page = await web.browser.newPage({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
  page.setDefaultTimeout(15_000);
});
afterAll(async () => {
  await web?.close();
  await sandbox?.close();
});

describe('shaping a table', () => {
  it('takes a row filter in the picker, its parse error beside it as it is typed', async () => {
    await page.goto(web.server.openUrl);
    await page
      .getByRole('table', { name: 'Pipelines of every engine' })
      .getByRole('row', { name: /shaped/ })
      .getByRole('button', { name: 'shaped' })
      .click();
    const tables = await openSection(page, 'Tables');
    await tables.getByRole('button', { name: 'Choose tables' }).click();
    const filter = page.getByLabel('Row filter of dbo.Customers');
    await filter.fill("Country = 'FR' and");
    const problem = page.locator(`#${(await filter.getAttribute('aria-describedby')) ?? 'none'}`);
    expect(await problem.textContent()).toBe(
      'expected a column name, found the end of the filter (at character 19)',
    );
    expect(await filter.getAttribute('aria-invalid')).toBe('true');
    expect(await scanAccessibility(page)).toEqual([]);
    await filter.fill("Country = 'FR'");
    expect(await filter.getAttribute('aria-invalid')).toBe('false');
    // The table's mode, chosen in the picker too.
    await page.getByLabel('Mode of dbo.Customers at the target').selectOption('soft delete');
    await page.getByRole('button', { name: 'Save 1 table' }).click();
    await expect
      .poll(() => page.getByLabel('Save result').textContent())
      .toBe('Saved: the pipeline replicates 1 table.');
    const [saved] = (await local.listEntities({ pipelineId: ids.pipelineId })).entities;
    expect(saved?.rowFilter).toBe("Country = 'FR'");
    expect(saved?.tableMode).toEqual({
      kind: 'softDelete',
      flagColumn: 'cdc_deleted',
      timeColumn: 'cdc_deleted_at',
    });
  });

  it('masks and renames columns in the table’s story, and the replica follows at once', async () => {
    await local.startAgent(ids);
    await until('the first copy', async () => (await copies()) === 1);
    expect(replica().map((r) => r.CustomerId)).toEqual([3, 4]);
    await page.reload();
    const tables = await openSection(page, 'Tables');
    await tables.getByRole('button', { name: 'Story of dbo.Customers' }).click();
    const story = page.getByRole('region', { name: 'Story of dbo.Customers' });
    await story.getByText("Rows: only those where Country = 'FR'.").waitFor();
    await story.getByRole('button', { name: 'Shape this table' }).click();
    const form = story.getByRole('form', { name: 'Shaping of dbo.Customers' });
    // A key column is never masked: its mask cannot be chosen.
    expect(await form.getByLabel('Mask of CustomerId').isDisabled()).toBe(true);
    await form.getByLabel('Mask of Name').selectOption('keepFirst');
    await form.getByLabel('Characters of Name').fill('1');
    await form.getByLabel('Name of CreatedAt at the target').fill('Created');
    await form.getByRole('button', { name: 'Save shaping' }).click();
    await expect
      .poll(() => form.getByRole('status').textContent())
      .toBe(
        'Shaping saved. dbo.Customers: its shaping changed, so the rows already at the target are copied again now.',
      );
    // The story reads the columns again, as the target now gets them.
    const columns = story.getByRole('table', { name: 'Columns of dbo.Customers' });
    const nameRow = columns.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'Name' }) });
    await expect.poll(() => nameRow.textContent()).toContain('first 1 characters kept, the rest written *');
    const created = columns
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: 'CreatedAt' }) });
    expect(await created.textContent()).toContain('Created');
    await until('the copy again', async () => (await copies()) === 2);
    expect(replica().map((r) => [r.CustomerId, r.Name, r.Created])).toEqual([
      [3, `M${'*'.repeat(10)}`, '2026-01-07 11:45:00.000'],
      [4, `É${'*'.repeat(17)}`, '2026-02-01 08:15:00.000'],
    ]);
    // The rows as the target gets them, read from the source through the shaping, on demand.
    await story.getByRole('button', { name: 'Show the first 5 rows, shaped' }).click();
    const sample = story.getByRole('table', { name: 'Rows of dbo.Customers as the target gets them' });
    // Read once it is there: the rows are asked of the source when the button is pressed.
    await sample.waitFor();
    const headers = await sample.getByRole('columnheader').allTextContents();
    expect(headers).toContain('Created');
    expect(headers).not.toContain('CreatedAt');
    const cells = (await sample.getByRole('row').allTextContents()).slice(1);
    expect(cells).toHaveLength(2);
    expect(cells[0]).toContain(`M${'*'.repeat(10)}`);
    expect(cells[1]).toContain(`É${'*'.repeat(17)}`);
    expect(cells.join(' ')).toContain('2026-01-07 11:45:00.000');
    await screenshot(page, 'shaping-story');
    expect(await scanAccessibility(page)).toEqual([]);
  });

  it('keeps every version once the mode is history: the table made again, each row current', async () => {
    const story = page.getByRole('region', { name: 'Story of dbo.Customers' });
    const form = story.getByRole('form', { name: 'Shaping of dbo.Customers' });
    const modes = form.getByRole('group', { name: 'How the target holds the rows' });
    // The mode the picker chose.
    expect(await modes.getByRole('radio', { name: /^Soft delete/ }).isChecked()).toBe(true);
    await modes.getByRole('radio', { name: /^History/ }).check();
    await form.getByRole('button', { name: 'Save shaping' }).click();
    await expect
      .poll(() => form.getByRole('status').textContent())
      .toContain('its shaping changed, so the rows already at the target are copied again now.');
    expect((await local.listEntities({ pipelineId: ids.pipelineId })).entities[0]?.tableMode).toEqual({
      kind: 'history',
      validFromColumn: 'cdc_valid_from',
      validToColumn: 'cdc_valid_to',
    });
    await story
      .getByText('Mode: every version kept, valid from cdc_valid_from to cdc_valid_to (null while current).')
      .waitFor();
    await until('the copy under history', async () => (await copies()) === 3);
    // The replica's table was made again for its versions: the copied rows are current ones.
    expect(replica().map((r) => [r.CustomerId, r.cdc_valid_to, typeof r.cdc_valid_from])).toEqual([
      [3, null, 'string'],
      [4, null, 'string'],
    ]);
    expect(await scanAccessibility(page)).toEqual([]);
  });

  it('says, before Start, that a hash without the source’s salt holds the table', async () => {
    const story = page.getByRole('region', { name: 'Story of dbo.Customers' });
    const form = story.getByRole('form', { name: 'Shaping of dbo.Customers' });
    await form.getByLabel('Mask of Email').selectOption('hash');
    await form.getByRole('button', { name: 'Save shaping' }).click();
    await story
      .getByRole('alert')
      .filter({
        hasText:
          /The shaping does not fit the table, so it is held at Start: column Email is hashed, which needs the source's Mask salt/,
      })
      .waitFor();
  });
});
