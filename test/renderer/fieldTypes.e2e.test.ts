// Every wizard in a real browser, one bad value per kind of field the user can get wrong (text, text
// with no spaces, secret, whole number, IBM i name, optional identifier), each shown beside its field
// as the user types and gone once the user fixes it; then both steps are accepted.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebApp, type WebApp } from './browser';

let web: WebApp;
beforeAll(async () => {
  web = await startWebApp();
});
afterAll(() => web?.close());

/** A label, a bad value with the words its error must hold, and the value that fixes it. */
type Case = [label: string, bad: string, says: RegExp, good: string];

interface Wizard {
  button: RegExp;
  /** Good values for the required fields of step 1. */
  fill: [string, string][];
  step1: Case[];
  step2: Case[];
  /** Fields under Advanced, opened first. */
  advanced?: boolean;
}

const WIZARDS: Record<string, Wizard> = {
  'change tracking': {
    button: /Change tracking/,
    fill: [
      ['Connection name', 'orders'],
      ['Host', 'sql01'],
      ['Database', 'Sales'],
      ['Login', 'cdc'],
      ['Password', 'Pa55-word!'],
    ],
    step1: [
      ['Host', 'sql 01', /with no spaces; got "sql 01"/, 'sql01'],
      ['Port', '0', /a whole number from 1 to 65535; got 0/, '1433'],
      ['Connection name', '', /^Connection name is required/, 'orders'],
      ['Password', '', /^Password is required/, 'Pa55-word!'],
    ],
    step2: [['Source change retention (days)', '366', /a whole number from 1 to 365; got 366/, '5']],
  },
  journal: {
    button: /Journal/,
    advanced: true,
    fill: [
      ['Connection name', 'as400'],
      ['Host', 'ibmi01'],
      ['Database', '*SYSBAS'],
      ['User profile', 'CDCAGENT'],
      ['Password', 'pw-secret'],
    ],
    step1: [
      ['Max connections', '101', /a whole number from 1 to 100; got 101/, '10'],
      ['Sync library', 'SYNC LIB', /an IBM i name/, 'SYNC2'],
      ['Journal checkpoint table', 'CHECKPOINTS1', /an IBM i name/, 'JRNCP'],
    ],
    step2: [],
  },
  postgresql: {
    button: /PostgreSQL/,
    fill: [
      ['Connection name', 'replica'],
      ['Host', '127.0.0.1'],
      ['Database', 'test'],
      ['User', 'postgres'],
      ['Password', 'pw'],
    ],
    step1: [['Port', '65536', /a whole number from 1 to 65535; got 65536/, '5432']],
    step2: [
      ['Schema', '1replica', /starting with a letter/, 'replica'],
      ['Rows per batch', '0', /a whole number from 1 to 100000; got 0/, '500'],
    ],
  },
  'SQLite file': {
    button: /SQLite file/,
    fill: [['Connection name', 'local']],
    step1: [
      ['File path', 'x'.repeat(4097), /a string of 1 to 4096 characters, or left out/, '/tmp/replica.sqlite'],
    ],
    step2: [['Rows per batch', '100001', /a whole number from 1 to 100000; got 100001/, '10000']],
  },
};

async function badThenFixed(page: Page, [label, bad, says, good]: Case) {
  const field = page.getByLabel(label, { exact: true });
  const error = page.locator(`#${(await field.getAttribute('id')) ?? ''}-error`);
  await field.fill(bad);
  await expect.poll(() => error.textContent()).toMatch(says);
  expect(await field.getAttribute('aria-invalid')).toBe('true');
  await field.fill(good);
  await expect.poll(() => error.textContent()).toBe('');
  expect(await field.getAttribute('aria-invalid')).toBeNull();
}

describe.each(Object.entries(WIZARDS))('the %s wizard', (_name, wizard) => {
  it('shows each bad value beside its field while typing, clears it once fixed, then accepts both steps', async () => {
    const page = await web.browser.newPage();
    page.setDefaultTimeout(5000);
    try {
      await page.goto(web.server.openUrl);
      await page.getByRole('button', { name: 'Agents', exact: true }).click();
      await page.getByRole('button', { name: wizard.button }).click();
      if (wizard.advanced) await page.getByText('Advanced').click();
      for (const [label, value] of wizard.fill) await page.getByLabel(label, { exact: true }).fill(value);
      for (const c of wizard.step1) await badThenFixed(page, c);
      await page.getByRole('button', { name: 'Next' }).click();
      await page.getByRole('form', { name: /settings/ }).waitFor();
      for (const c of wizard.step2) await badThenFixed(page, c);
      await page.getByRole('button', { name: 'Check settings' }).click();
      await page.getByText('Settings accepted').waitFor();
    } finally {
      await page.close();
    }
  });
});
