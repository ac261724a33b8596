// Debian's chromium driven by playwright-core; never a downloaded browser.
import { createRequire } from 'node:module';
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page, type Response } from 'playwright-core';
import { noteAnswer, secretsIn, watchedLog } from '../setup/secretNotes';
import type { AppServices } from '../../main/app/services';
import { startWebServer, type WebServer } from '../../main/web/server';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const RENDERER = fileURLToPath(new URL('../../dist/renderer', import.meta.url));
export const ARTIFACTS = fileURLToPath(new URL('../artifacts', import.meta.url));

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`No Chromium at ${CHROMIUM}: install Debian's chromium (sudo npm run setup).`);
  }
  if (!existsSync(`${RENDERER}/index.html`))
    throw new Error('The renderer is not built: run `npm run build` first.');
  return watchAnswers(
    await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
      ],
    }),
  );
}

/** What the page asked the app (web mode's /api/ calls) and was answered goes to the secret scan. */
async function noteApiAnswer(response: Response): Promise<void> {
  if (!new URL(response.url()).pathname.startsWith('/api/')) return;
  const request = response.request();
  const secrets: string[] = [];
  const auth = (await request.allHeaders())['authorization'];
  if (auth) secrets.push(auth.replace(/^bearer\s+/i, ''));
  try {
    secretsIn(JSON.parse(request.postData() ?? 'null'), secrets);
  } catch {
    // Not JSON: nothing to note.
  }
  const body = await response.body().catch(() => Buffer.alloc(0));
  noteAnswer(response.url(), secrets, body);
}

function watchAnswers(browser: Browser): Browser {
  const watched = new WeakSet<BrowserContext>();
  const watch = (context: BrowserContext) => {
    if (watched.has(context)) return;
    watched.add(context);
    context.on('response', (response) => void noteApiAnswer(response).catch(() => undefined));
  };
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (...args) => {
    const context = await newContext(...args);
    watch(context);
    return context;
  };
  const newPage = browser.newPage.bind(browser);
  browser.newPage = async (...args) => {
    const page = await newPage(...args);
    watch(page.context());
    return page;
  };
  return browser;
}

export function startWebMode(services: AppServices): Promise<WebServer> {
  return startWebServer({
    dispatch: services.dispatch,
    log: watchedLog,
    staticRoot: RENDERER,
    subscribe: services.deps.fleet.subscribe,
  });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: `${ARTIFACTS}/${name}.png`, fullPage: true });
}

export interface WebApp {
  browser: Browser;
  app: AppServices & { dataDir: string };
  server: WebServer;
  close(): Promise<void>;
}

/** The whole of web mode for a browser test: app services, the web server, and Debian's chromium. */
export async function startWebApp(): Promise<WebApp> {
  const { startTestApp } = await import('../helpers/app');
  const [browser, app] = await Promise.all([launchBrowser(), startTestApp()]);
  const server = await startWebMode(app);
  return {
    browser,
    app,
    server,
    close: async () => {
      await browser.close();
      await server.close();
      await app.close();
    },
  };
}

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** Serious and critical violations on the page as it is now, one line each. */
export async function scanAccessibility(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(o: object): Promise<{ violations: unknown[] }> } }).axe;
    const result = await axe.run({
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    });
    return result.violations;
  });
  return (violations as Violation[])
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Opens a section of the open pipeline's page by its tab; answers the section's region. */
export async function openSection(
  page: Page,
  name: 'Status' | 'Tables' | 'Checks' | 'Verify' | 'Timeline' | 'Settings',
) {
  await page.getByRole('navigation', { name: 'Pipeline sections' }).getByRole('link', { name }).click();
  const region = page.getByRole('region', { name: `${name} section` });
  await region.waitFor();
  return region;
}

/** Starts the open pipeline as a DBA does: Start…, read what it will do, Yes. */
export async function startPipeline(page: Page): Promise<void> {
  await openSection(page, 'Status');
  await page.getByRole('button', { name: 'Start…' }).click();
  await page
    .getByRole('group', { name: 'Confirm start' })
    .getByRole('button', { name: 'Yes, start it' })
    .click();
}
