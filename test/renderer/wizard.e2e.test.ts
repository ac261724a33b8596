// Web mode in a real browser: the generated two-step form, a bad value refused beside its field, then fixed.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { WebServer } from '../../main/web/server';
import { screenshot, startWebApp, type WebApp } from './browser';
import { startSandboxIbmi, type SandboxIbmi } from '../../simulators/ibmi';
import { SEED_AGENT } from '../../simulators/ibmi/seed';
import { callApp } from '../helpers/app';

let web: WebApp;
let browser: Browser;
let server: WebServer;
let page: Page;

beforeAll(async () => {
  web = await startWebApp();
  ({ browser, server } = web);
});
afterAll(() => web?.close());
beforeEach(async () => {
  page = await browser.newPage();
  page.setDefaultTimeout(5000);
});

const errorOf = (id: string) => page.locator(`#${id}-error`);

describe('web mode: change-tracking form', () => {
  it('shows a bad port next to the field, then accepts the fixed value', async () => {
    const consoleErrors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
    await page.goto(server.openUrl);
    await page.getByRole('button', { name: 'Agents', exact: true }).click();
    await page.getByRole('button', { name: /Change tracking/ }).click();
    await page.getByLabel('Connection name').fill('orders');
    await page.getByLabel('Host', { exact: true }).fill('sql01.example.com');
    await page.getByLabel('Database').fill('Sales');
    await page.getByLabel('Login').fill('cdc_reader');
    await page.getByLabel('Password').fill('Pa55-word!');

    const port = page.getByLabel('Port');
    await port.fill('70000');
    await expect
      .poll(() => errorOf('hostCredentials-port').textContent())
      .toBe('Port must be a whole number from 1 to 65535; got 70000.');
    expect(await port.getAttribute('aria-invalid')).toBe('true');
    expect(await port.getAttribute('aria-describedby')).toContain('hostCredentials-port-error');
    await screenshot(page, 'wizard-bad-port');

    // Main has the last word: Next with the bad port stays on step 1 with the same message.
    await page.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => errorOf('hostCredentials-port').textContent()).toContain('got 70000');
    expect(await page.getByRole('form', { name: 'Agent settings' }).count()).toBe(0);

    await port.fill('1433');
    await expect.poll(() => errorOf('hostCredentials-port').textContent()).toBe('');
    expect(await port.getAttribute('aria-invalid')).toBeNull();
    await page.getByRole('button', { name: 'Next' }).click();

    await page.getByRole('form', { name: 'Agent settings' }).waitFor();
    // A new step opens at its top, its heading focused: the keyboard is on it, not at the page's start.
    const focusedHeading = () =>
      page.evaluate(() => {
        const el = document.activeElement;
        return el?.tagName === 'H3' ? { text: el.textContent, top: el.getBoundingClientRect().top } : null;
      });
    await expect.poll(focusedHeading).toMatchObject({ text: 'Step 2 of 3: Agent settings' });
    const top = (await focusedHeading())?.top ?? -1;
    expect(top).toBeGreaterThan(-1);
    expect(top).toBeLessThan(100);
    await page.getByLabel('Source change retention (days)').fill('7');
    await page.getByRole('button', { name: 'Check settings' }).click();
    const summary = page.getByRole('status');
    await summary.getByText('Settings accepted').waitFor();
    await expect.poll(focusedHeading).toMatchObject({ text: 'Step 3 of 3: Settings accepted' });
    const text = (await summary.textContent()) ?? '';
    expect(text).toContain('"port": 1433');
    expect(text).toContain('"password": null');
    expect(text).toContain('"passwordSet": true');
    expect(text).toContain('"sourceChangeRetentionDays": 7');
    expect(text).not.toContain('Pa55-word!');
    await screenshot(page, 'wizard-accepted');

    // The token leaves the address bar once read.
    expect(page.url()).not.toContain('token=');
    expect(consoleErrors).toEqual([]);
  });
});

describe('web mode: journal form', () => {
  it('keeps custom options under Advanced and explains the format inheritance', async () => {
    await page.goto(server.openUrl);
    await page.getByRole('button', { name: 'Agents', exact: true }).click();
    await page.getByRole('button', { name: /Journal/ }).click();
    expect(await page.getByLabel('Port').count()).toBe(0);
    const syncLibrary = page.getByLabel('Sync library');
    expect(await syncLibrary.isVisible()).toBe(false);
    await page.getByText('Advanced').click();
    expect(await syncLibrary.inputValue()).toBe('SYNC');
    await syncLibrary.fill('1SYNC');
    await expect
      .poll(() => errorOf('hostCredentials-syncLibrary').textContent())
      .toMatch(/not starting with a digit, not starting with Q .*\(stored upper-case\); got "1SYNC"\.$/);
    await syncLibrary.fill('cdc2');
    await page.getByLabel('Date format').selectOption('mdy');
    for (const [label, text] of [
      ['Connection name', 'as400'],
      ['Host', 'ibmi01'],
      ['Database', 'S1234567'],
      ['User profile', 'CDCUSER'],
      ['Password', 'pw'],
    ]) {
      await page.getByLabel(label as string, { exact: true }).fill(text as string);
    }
    await page.getByRole('button', { name: 'Next' }).click();
    const dateFormat = page.getByLabel('Date format');
    await page.getByRole('form', { name: 'Agent settings' }).waitFor();
    expect(await dateFormat.locator('option').first().textContent()).toBe(
      '(inherit: mdy from host credentials)',
    );
    expect(await page.getByText('A format chosen here wins').count()).toBe(1);
    await page.getByRole('button', { name: 'Check settings' }).click();
    const text = (await page.getByRole('status').textContent()) ?? '';
    expect(text).toContain('"syncLibrary": "CDC2"');
    expect(text).toContain('"dateFormat": null');
    await screenshot(page, 'wizard-journal');
  });
});

describe('web mode: test the connection, then apply to the local engine', () => {
  let ibmi: SandboxIbmi;
  beforeAll(async () => {
    ibmi = await startSandboxIbmi({ seed: true });
  });
  afterAll(() => ibmi?.close());

  async function fillJournal(password: string) {
    for (const [label, text] of [
      ['Connection name', 'sandbox'],
      ['Host', ibmi.host],
      ['Database', '*SYSBAS'],
      ['User profile', SEED_AGENT.user],
      ['Password', password],
    ])
      await page.getByLabel(label as string, { exact: true }).fill(text as string);
  }
  const requests = async () =>
    (await page.getByLabel('Requests sent').locator('li').allTextContents()).map((t) =>
      t.replace(/ → (\d+).*$/, ' → $1'),
    );

  it('"Test connection" signs on from step 1; "Apply" sends the two PUTs in order and shows each answer', async () => {
    await page.goto(server.openUrl);
    await page.getByRole('button', { name: 'Agents', exact: true }).click();
    await page.getByRole('button', { name: /Journal/ }).click();
    await fillJournal('Not-The-Password');
    await page.getByRole('button', { name: 'Test connection' }).click();
    const result = page.getByLabel('Connection test');
    await expect
      .poll(() => result.textContent())
      .toContain('IBM i refused the password of CDCAGENT (CPF22E2).');
    await page.getByLabel('Password', { exact: true }).fill(SEED_AGENT.password);
    expect(await result.count()).toBe(0); // a result about other values is gone
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => result.textContent()).toBe(`Connected. Signed on as CDCAGENT to ${ibmi.host}.`);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('button', { name: 'Check settings' }).click();

    // An id the engine would refuse is said beside its field, focused, and nothing is sent.
    await page.getByLabel('Pipeline id').fill('DBA Sales');
    await page.getByRole('button', { name: 'Apply' }).click();
    const pipelineField = page.getByLabel('Pipeline id');
    await expect.poll(() => pipelineField.evaluate((e) => e === document.activeElement)).toBe(true);
    expect(await page.locator('#apply-pipeline-error').textContent()).toBe(
      'Use 1 to 63 characters of a to z, 0 to 9, _ or -, starting with a lower-case letter or a digit; "DBA Sales" is not one.',
    );
    expect(await page.getByLabel('Requests sent').count()).toBe(0);
    expect(await page.getByText('applyAgentConfig').count()).toBe(0);

    await page.getByLabel('Pipeline id').fill('ui-shop');
    await page.getByLabel('Agent id').fill('ibmi');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect
      .poll(requests)
      .toEqual([
        'POST /pipelines/ui-shop/agents/ibmi/config/validate → 200',
        'POST /pipelines → 201',
        'POST /pipelines/ui-shop/agents → 201',
        'PUT /pipelines/ui-shop/agents/ibmi/config/credentials → 200',
        'PUT /pipelines/ui-shop/agents/ibmi/config/specific → 200',
      ]);
    const answers = (await page.getByLabel('Requests sent').textContent()) ?? '';
    expect(answers).toContain('"passwordSet":true');
    expect(answers).not.toContain(SEED_AGENT.password);
    await screenshot(page, 'wizard-applied');

    // A second agent on the same IBM i and sync library: the engine refuses. The wizard goes back to
    // the field to change, opened under Advanced and focused, and keeps no pipeline half-made.
    await page.getByLabel('Pipeline id').fill('ui-other');
    await page.getByLabel('Agent id').fill('ibmi2');
    await page.getByRole('button', { name: 'Apply' }).click();
    const syncLibrary = page.getByLabel('Sync library');
    await expect.poll(() => syncLibrary.evaluate((e) => e === document.activeElement)).toBe(true);
    expect(await errorOf('hostCredentials-syncLibrary').textContent()).toContain(
      'Each journal agent on one source needs its own sync library',
    );
    const pipelines = async () =>
      (
        (await callApp(web.app, 'listEngineAgents', { profileId: 'local' })) as {
          pipelines: { id: string }[];
        }
      ).pipelines.map((p) => p.id);
    expect(await pipelines()).not.toContain('ui-other');
    await screenshot(page, 'wizard-refused-field');

    // Back to Apply: the ids typed before are still there, never the last pipeline's.
    await syncLibrary.fill('CDC2');
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('button', { name: 'Check settings' }).click();
    expect(await page.getByLabel('Pipeline id').inputValue()).toBe('ui-other');
    expect(await page.getByLabel('Agent id').inputValue()).toBe('ibmi2');

    // Into a pipeline that exists: the app says what it holds and sends nothing until asked to.
    await page.getByLabel('Pipeline id').fill('ui-shop');
    await page.getByRole('button', { name: 'Apply' }).click();
    const question = page.getByRole('alertdialog', { name: 'The pipeline exists' });
    await expect
      .poll(() => question.textContent())
      .toContain('Pipeline ui-shop already exists on this engine, with ibmi (Journal, its source).');
    expect(await question.textContent()).toContain(
      'Agent ibmi2 would be added to it. Nothing has been sent.',
    );
    expect(await question.evaluate((e) => e === document.activeElement)).toBe(true);
    await question.getByRole('button', { name: 'Add ibmi2 to ui-shop' }).click();
    await expect
      .poll(requests)
      .toEqual([
        'POST /pipelines/ui-shop/agents/ibmi2/config/validate → 200',
        'POST /pipelines/ui-shop/agents → 201',
        'PUT /pipelines/ui-shop/agents/ibmi2/config/credentials → 200',
        'PUT /pipelines/ui-shop/agents/ibmi2/config/specific → 200',
      ]);
  });
});

describe('web mode without the token', () => {
  it('says how to get in, and the API refuses', async () => {
    await page.goto(server.url + '/');
    await page.getByText('needs a launch link').waitFor();
    const status = await page.evaluate(
      async () =>
        (
          await fetch('/api/listAgentTypes', {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: '{}',
          })
        ).status,
    );
    expect(status).toBe(401);
  });
});
