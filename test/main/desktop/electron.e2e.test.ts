// Smoke test of the desktop app itself, through Playwright's Electron support. It needs the Electron
// binary, which `npm ci` does not download; where it is missing the test says so and skips.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { _electron } from 'playwright-core';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const electronDir = dirname(require.resolve('electron/package.json'));
const pathFile = join(electronDir, 'path.txt');
const binary = existsSync(pathFile)
  ? join(electronDir, 'dist', readFileSync(pathFile, 'utf8').trim())
  : undefined;
const present = binary !== undefined && existsSync(binary);
if (!present) {
  process.stdout.write(
    'electron smoke test skipped: no Electron binary in node_modules/electron/dist ' +
      '(npm ci does not download it; run `npx install-electron` where the network allows, then npm test).\n',
  );
}

describe.skipIf(!present)('desktop app (Electron)', () => {
  it('launches, shows the first screen, and answers one IPC round trip', async () => {
    const app = await _electron.launch({
      executablePath: binary,
      args: ['.'],
      env: { ...process.env, CDC_ADMIN_DATA: '' },
    });
    try {
      const window = await app.firstWindow();
      await window.getByRole('heading', { name: 'Source agents' }).waitFor({ timeout: 15_000 });
      expect(window.url()).toBe('app://bundle/index.html');
      const info = await window.evaluate(async () =>
        (window as unknown as { api: { getAppInfo(i: object): Promise<unknown> } }).api.getAppInfo({}),
      );
      expect(info).toMatchObject({ ok: true, value: { mode: 'electron' } });
      expect(await window.evaluate(() => typeof (window as unknown as { require?: unknown }).require)).toBe(
        'undefined',
      );
    } finally {
      await app.close();
    }
  });
});
