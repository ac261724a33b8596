// Debian's chromium driven by playwright-core; never a downloaded browser.
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { silentLog } from '../../main/log';
import type { AppServices } from '../../main/services';
import { startWebServer, type WebServer } from '../../main/web/server';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const RENDERER = fileURLToPath(new URL('../../dist/renderer', import.meta.url));
export const ARTIFACTS = fileURLToPath(new URL('../artifacts', import.meta.url));

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `No Chromium at ${CHROMIUM}: install Debian's chromium (apt-get install chromium), as .ci/run does.`,
    );
  }
  if (!existsSync(`${RENDERER}/index.html`))
    throw new Error('The renderer is not built: run `npm run build` first.');
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}

export function startWebMode(services: AppServices): Promise<WebServer> {
  return startWebServer({ dispatch: services.dispatch, log: silentLog, staticRoot: RENDERER });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: `${ARTIFACTS}/${name}.png`, fullPage: true });
}

export interface WebApp {
  browser: Browser;
  app: AppServices;
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
