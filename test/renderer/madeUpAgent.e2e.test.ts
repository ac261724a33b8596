// A made-up agent type plugs in through its folder and its one registry entry, its form included: written
// into a copy of the project (madeUpAgent.ts), the copy compiles, and its wizard in a browser shows the
// type among the targets, its own fields at each step, its rule refusing a bad value beside the field,
// and its note — with no edit to renderer/ or anywhere else.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchBrowser, screenshot } from './browser';
import { ADDED_FILES, REGISTRY_EDITS } from './madeUpAgent';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let copy: string;
let web: ChildProcess | undefined;
let browser: Browser | undefined;

function tracked(): string[] {
  const r = spawnSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' });
  return r.stdout.split('\0').filter((f) => f !== '');
}

/** Starts web mode from the copy and answers the URL it prints. */
function startWeb(cwd: string): Promise<string> {
  const data = mkdtempSync(join(tmpdir(), 'cdc-made-up-data-'));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'main/web/cli.ts', '--port', '0', '--data', data],
    {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, CDC_ADMIN_ENGINE_PORT: '0' },
    },
  );
  web = child;
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const url = /http:\/\/127\.0\.0\.1:\d+\/#code=\S+/.exec(out)?.[0];
      if (url) resolve(url);
    });
    child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => reject(new Error(`web mode exited with ${code}: ${out}`)));
  });
}

beforeAll(async () => {
  copy = mkdtempSync(join(tmpdir(), 'cdc-made-up-'));
  for (const file of tracked()) {
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    cpSync(join(ROOT, file), join(copy, file));
  }
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  for (const [file, text] of Object.entries(ADDED_FILES)) {
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    writeFileSync(join(copy, file), text);
  }
  for (const [file, marker, put] of REGISTRY_EDITS) {
    const text = readFileSync(join(copy, file), 'utf8');
    if (!text.includes(`${marker}\n`)) throw new Error(`${file} no longer holds the marker line: ${marker}`);
    writeFileSync(join(copy, file), text.replace(`${marker}\n`, `${put}\n${marker}\n`));
  }
  // The recipe's last step: the generated reference written again.
  const docs = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/gen-docs.ts'], {
    cwd: copy,
    encoding: 'utf8',
  });
  if (docs.status !== 0) throw new Error(`npm run docs failed in the copy: ${docs.stderr}`);
}, 120_000);

it("passes the layer, docs and plugin-boundary checks in the copy, as the recipe's proof", () => {
  const checks = spawnSync(
    process.execPath,
    [
      join(ROOT, 'node_modules/vitest/vitest.mjs'),
      'run',
      'test/repo/layers.unit.test.ts',
      'test/repo/docs.unit.test.ts',
      'test/main/agents/plugins.unit.test.ts',
    ],
    { cwd: copy, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } },
  );
  expect(checks.status, checks.stdout + checks.stderr).toBe(0);
  // eslint-disable-next-line no-control-regex -- the colours vitest may print all the same
  expect(checks.stdout.replace(/\u001b\[[0-9;]*m/g, '')).toMatch(/Test Files\s+3 passed \(3\)/);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  web?.kill('SIGKILL');
  if (copy) rmSync(copy, { recursive: true, force: true });
});

it('changes only its own files, the one registry and what npm run docs writes', () => {
  const changed = tracked().filter(
    (f) => readFileSync(join(ROOT, f), 'utf8') !== readFileSync(join(copy, f), 'utf8'),
  );
  // No layer row, no README edit: the layer table reads agent folders from the tree. registry.ts
  // changes by npm run docs alone (REGISTRY_EDITS names no other file).
  expect(new Set(REGISTRY_EDITS.map(([file]) => file))).toEqual(new Set(['shared/agents/index.ts']));
  expect(changed.sort()).toEqual([
    'docs/configuration.md',
    'docs/openapi.json',
    'main/agents/registry.ts',
    'shared/agents/index.ts',
  ]);
  expect(
    Object.keys(ADDED_FILES).every(
      (f) => f.startsWith('shared/agents/') || f.startsWith('main/agents/webhook/'),
    ),
  ).toBe(true);
});

it('compiles as it is, the registry typed to hold it', () => {
  const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '--noEmit'], {
    cwd: copy,
    encoding: 'utf8',
  });
  expect(tsc.stdout + tsc.stderr).toBe('');
  expect(tsc.status).toBe(0);
}, 180_000);

it('shows its own form in the wizard, with its rule and its note', async () => {
  const build = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'error'],
    {
      cwd: copy,
      encoding: 'utf8',
    },
  );
  expect(build.status, build.stderr).toBe(0);
  const url = await startWeb(copy);
  browser = await launchBrowser();
  const page = await browser.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(url);
  await page.getByRole('button', { name: 'Agents', exact: true }).click();
  await page
    .getByRole('navigation', { name: 'Agent types' })
    .getByRole('button', { name: /Web hook/ })
    .click();

  // The wizard names a target by its database, and each step by the type's own section titles.
  await page.getByRole('heading', { name: /HTTP target/ }).waitFor();
  await page.getByText('1. Web hook endpoint').waitFor();
  expect(await page.getByText('2. Delivery').count()).toBe(1);
  // No database, no database words: the form asks only for the type's own fields.
  expect(await page.getByLabel('Connection name').count()).toBe(0);
  await page.getByLabel('Endpoint URL').fill('https://hooks.example.com/orders');
  await page.getByRole('button', { name: 'Next' }).click();

  await page.getByText('2. Delivery').waitFor();
  await page.getByText('A post is retried at most this often, then the pipeline stops.').waitFor();
  const retries = page.getByLabel('Retries');
  expect(await retries.inputValue()).toBe('3');
  await retries.fill('11');
  await expect
    .poll(() => page.locator('#configuration-retries-error').textContent())
    .toBe('Retries must be a whole number from 0 to 10; got 11.');
  await retries.fill('5');
  await page.getByRole('button', { name: 'Check settings' }).click();
  await page.getByText('Settings accepted').waitFor();
  const review = await page.locator('main').textContent();
  expect(review).toContain('Endpoint URLhttps://hooks.example.com/orders');
  expect(review).toContain('Retries5');
  await screenshot(page, 'made-up-agent-review');
  expect(await page.getByRole('button', { name: 'Next' }).count()).toBe(0);
}, 120_000);
