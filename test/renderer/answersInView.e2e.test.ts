// Every button that answers, at 1280×800: its answer lies inside the window and has the focus, so the
// DBA reads it where they acted and the keyboard is on it. One table of the app's actions, walked in
// the order a DBA meets them (wizard, picker, checks, report, Start, Stop, Edit, Remove, Delete), each
// measured the same way; the failures are gathered and said together.
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxDetails } from '../../shared/sandbox';
import { callApp } from '../helpers/app';
import { openSection, startWebApp, type WebApp } from './browser';

let web: WebApp;
let page: Page;
let sandbox: SandboxDetails;

beforeAll(async () => {
  web = await startWebApp();
  await callApp(web.app, 'startSandbox');
  sandbox = (await callApp(web.app, 'getSandboxDetails')) as SandboxDetails;
  page = await web.browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.setDefaultTimeout(15_000);
});
afterAll(() => web?.close());

interface Action {
  /** The button pressed, by its name. */
  button: string;
  /** What brings the button on screen (a screen, a section, a form filled), when needed. */
  reach?: () => Promise<void>;
  /** Its answer. */
  answer: () => Locator;
}

const focusedHeading = (text: string | RegExp) => page.locator('h3[tabindex="-1"]').filter({ hasText: text });

const ACTIONS: Action[] = [
  {
    button: 'Test connection',
    reach: async () => {
      await page.getByRole('button', { name: 'Agents', exact: true }).click();
      await page.getByRole('button', { name: /Change tracking/ }).click();
      const agent = sandbox.sqlServer.logins.find((l) => l.user === 'cdc_agent');
      for (const [label, text] of [
        ['Connection name', 'answers'],
        ['Host', sandbox.sqlServer.host],
        ['Port', String(sandbox.sqlServer.port)],
        ['Database', sandbox.sqlServer.database],
        ['Login', 'cdc_agent'],
        ['Password', agent?.password ?? ''],
      ] as const)
        await page.getByLabel(label, { exact: true }).fill(text);
    },
    answer: () => page.getByLabel('Connection test'),
  },
  { button: 'Next', answer: () => focusedHeading(/^Step 2 of 3/) },
  { button: 'Check settings', answer: () => focusedHeading(/^Step 3 of 3/) },
  {
    button: 'Apply',
    reach: async () => {
      await page.getByLabel('Pipeline id').fill('answers');
      await page.getByLabel('Agent id').fill('src');
    },
    // A new source's answer is its next step: the tables, opened with focus on their title.
    answer: () => page.locator('#picker-title'),
  },
  {
    button: 'Save 1 table',
    reach: () => page.getByLabel('Replicate dbo.Customers').check(),
    answer: () => page.getByLabel('Save result'),
  },
  {
    button: 'Run checks',
    reach: async () => {
      await page.getByRole('button', { name: "Open the pipeline's checks" }).click();
    },
    answer: () => page.getByLabel('Check results'),
  },
  { button: 'Readiness report', answer: () => page.getByRole('status', { name: 'Readiness report' }) },
  {
    button: 'Start…',
    reach: async () => void (await openSection(page, 'Status')),
    answer: () => page.getByRole('group', { name: 'Confirm start' }),
  },
  {
    button: 'Yes, start it',
    answer: () => page.getByLabel('Pipeline state').filter({ hasText: 'running' }),
  },
  { button: 'Stop…', answer: () => page.getByRole('group', { name: 'Confirm stop' }) },
  {
    button: 'Yes, stop it',
    answer: () => page.getByLabel('Pipeline state').filter({ hasText: 'stopped' }),
  },
  {
    button: 'Edit agent…',
    reach: async () => void (await openSection(page, 'Settings')),
    answer: () => focusedHeading(/^Step 1 of 3/),
  },
  { button: 'Test connection', answer: () => page.getByLabel('Connection test') },
  {
    button: 'Remove agent…',
    reach: async () => {
      await page.goBack();
      await openSection(page, 'Settings');
    },
    answer: () => page.getByRole('group', { name: 'Confirm remove agent' }),
  },
  {
    button: 'Delete pipeline…',
    reach: () => page.getByRole('button', { name: 'Cancel' }).click(),
    answer: () => page.getByRole('group', { name: 'Confirm delete' }),
  },
];

/** Where an answer lies and whether the focus is on it (or inside it); only state answers take none. */
async function measure(answer: Locator) {
  return answer.evaluate((el) => {
    const box = el.getBoundingClientRect();
    const active = document.activeElement;
    // Wholly inside when it fits (a pixel's rounding allowed); a list taller than the window (every
    // check) from its start, its first lines in view.
    const fits = box.height <= window.innerHeight;
    const bottom = fits ? box.bottom : box.top + 120;
    return {
      inView:
        box.top >= -1 &&
        bottom <= window.innerHeight + 1 &&
        box.left >= -1 &&
        box.right <= window.innerWidth + 1,
      focused: active !== null && (el === active || el.contains(active)),
      at: `${Math.round(box.top)}..${Math.round(box.bottom)} of ${window.innerHeight}`,
    };
  });
}

/** A state pill is an answer the DBA reads, not a place for the keyboard: in view is enough. */
const STATE_ANSWERS = new Set(['Yes, start it', 'Yes, stop it']);

describe('every answer where the action was', () => {
  it('lies inside 1280×800 and has the focus, for every button that answers', async () => {
    await page.goto(web.server.openUrl);
    const failures: string[] = [];
    for (const action of ACTIONS) {
      await action.reach?.();
      await page.getByRole('button', { name: action.button, exact: true }).first().click();
      const answer = action.answer().first();
      await answer.waitFor();
      // Focus and scrolling follow the answer's render: read until both hold, or say the last reading.
      const wanted = (m: { inView: boolean; focused: boolean }) =>
        m.inView && (m.focused || STATE_ANSWERS.has(action.button));
      let reading = await measure(answer);
      for (let tries = 0; !wanted(reading) && tries < 20; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        reading = await measure(answer);
      }
      if (!reading.inView)
        failures.push(`${action.button}: its answer lies outside the window (${reading.at})`);
      if (!reading.focused && !STATE_ANSWERS.has(action.button))
        failures.push(`${action.button}: its answer does not have the focus`);
    }
    expect(failures).toEqual([]);
    expect(ACTIONS.length).toBeGreaterThanOrEqual(15);
  });
});
