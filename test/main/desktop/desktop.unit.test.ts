// The desktop shell's parts that need no Electron: the app:// handler, links, window state, menu, logs.
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RENDERER_URL, serveAppRequest } from '../../../main/desktop/appProtocol';
import { createFileLog, LOG_FILE, scrubCredentials } from '../../../main/platform/fileLog';
import { aboutText, menuTemplate, type MenuEntry } from '../../../main/desktop/menu';
import { isExternalLinkAllowed } from '../../../main/desktop/window';
import { DEFAULT_WINDOW_STATE, loadWindowState, saveWindowState } from '../../../main/desktop/windowState';

const dir = () => mkdtempSync(join(tmpdir(), 'cdc-desktop-'));

describe('app:// protocol', () => {
  const root = dir();
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>bundle</title>');
  writeFileSync(join(root, '..', 'outside.txt'), 'outside');

  it('serves the bundle with the CSP as a header', async () => {
    const answer = await serveAppRequest(RENDERER_URL, root);
    expect(answer.status).toBe(200);
    expect(answer.headers['Content-Security-Policy']).toMatch(/^default-src 'none'; script-src 'self'/);
    expect(answer.headers['Content-Type']).toBe('text/html; charset=utf-8');
  });

  it('never serves files outside the bundle, nor other hosts', async () => {
    for (const url of [
      'app://bundle/../outside.txt',
      'app://bundle/%2e%2e/outside.txt',
      'app://bundle/..%2Foutside.txt',
    ]) {
      expect(Buffer.from((await serveAppRequest(url, root)).body).toString()).not.toContain('outside');
    }
    expect((await serveAppRequest('app://other/index.html', root)).status).toBe(404);
    expect((await serveAppRequest('file:///etc/passwd', root)).status).toBe(404);
  });
});

describe('external links', () => {
  it('opens only https links in the browser', () => {
    expect(isExternalLinkAllowed('https://learn.microsoft.com/sql')).toBe(true);
    for (const url of [
      'http://example.com',
      'file:///etc/passwd',
      'smb://host/share',
      'javascript:alert(1)',
      'ms-settings:',
      'nope',
    ]) {
      expect(isExternalLinkAllowed(url)).toBe(false);
    }
  });
});

describe('window state', () => {
  const screens = [{ x: 0, y: 0, width: 1920, height: 1080 }];

  it('round-trips and starts from the default without a file or with a damaged one', () => {
    const file = join(dir(), 'window-state.json');
    expect(loadWindowState(file, screens)).toEqual(DEFAULT_WINDOW_STATE);
    saveWindowState(file, { x: 100, y: 80, width: 1400, height: 900, maximized: true });
    expect(loadWindowState(file, screens)).toEqual({
      x: 100,
      y: 80,
      width: 1400,
      height: 900,
      maximized: true,
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    writeFileSync(file, '{"width": "huge"');
    expect(loadWindowState(file, screens)).toEqual(DEFAULT_WINDOW_STATE);
    writeFileSync(file, JSON.stringify({ width: 10, height: 10, maximized: false }));
    expect(loadWindowState(file, screens)).toEqual(DEFAULT_WINDOW_STATE);
  });

  it('keeps the size but drops a place that is on no screen (a monitor was unplugged)', () => {
    const file = join(dir(), 'window-state.json');
    saveWindowState(file, { x: 2500, y: 100, width: 1000, height: 700, maximized: false });
    expect(loadWindowState(file, screens)).toEqual({ width: 1000, height: 700, maximized: false });
    expect(loadWindowState(file, [...screens, { x: 1920, y: 0, width: 1920, height: 1080 }])).toMatchObject({
      x: 2500,
    });
  });
});

describe('menu and About', () => {
  const labels = (items: MenuEntry[]): string[] =>
    items.flatMap((i) => [i.label ?? i.role ?? '-', ...labels(i.submenu ?? [])]);

  it('offers About and the logs folder on every platform', () => {
    for (const platform of ['linux', 'win32', 'darwin']) {
      const all = labels(
        menuTemplate({ showAbout: () => undefined, openLogsFolder: () => undefined }, platform, 'CDC Admin'),
      );
      expect(all).toContain('About CDC Admin');
      expect(all).toContain('Open Logs Folder');
      expect(all).toContain('copy');
      expect(all).not.toContain('toggleDevTools');
    }
  });

  it('calls the app actions', () => {
    const called: string[] = [];
    const items = menuTemplate(
      { showAbout: () => called.push('about'), openLogsFolder: () => called.push('logs') },
      'linux',
      'X',
    );
    const find = (list: MenuEntry[], label: string): MenuEntry | undefined =>
      list.flatMap((i) => [i, ...(i.submenu ?? [])]).find((i) => i.label === label);
    find(items, 'About X')?.click?.();
    find(items, 'Open Logs Folder')?.click?.();
    expect(called).toEqual(['about', 'logs']);
  });

  it('names every version in the About box', () => {
    expect(aboutText('1.2.3', { electron: '45.3.4', chrome: '140.0', node: '22.1.0', v8: '14.0' })).toBe(
      'Version 1.2.3\nElectron 45.3.4\nChromium 140.0\nNode.js 22.1.0\nV8 14.0',
    );
  });
});

describe('file log', () => {
  it('rotates by size, keeping a fixed number of files, each readable by its owner only', () => {
    const d = dir();
    const log = createFileLog(d, { maxBytes: 400, keep: 3 });
    for (let i = 0; i < 40; i++) log.info('tick', { i });
    const files = log.files();
    expect(files.map((f) => f.slice(d.length + 1))).toEqual([LOG_FILE, `${LOG_FILE}.1`, `${LOG_FILE}.2`]);
    for (const f of files) {
      expect(statSync(f).size).toBeLessThanOrEqual(400);
      expect(statSync(f).mode & 0o777).toBe(0o600);
    }
    expect(readFileSync(files[0] ?? '', 'utf8')).toContain('"i":39');
  });

  it('scrubs anything shaped like a credential', () => {
    const d = dir();
    const log = createFileLog(d);
    log.warn('driver.error', {
      detail: 'Login failed; connection string Server=x;Password=Hunter2Pw;',
      auth: 'Bearer abc.DEF-123',
    });
    const text = readFileSync(join(d, LOG_FILE), 'utf8');
    expect(text).not.toContain('Hunter2Pw');
    expect(text).not.toContain('abc.DEF-123');
    expect(text).toContain('Password=[redacted]');
    expect(scrubCredentials('{"token":"t0k3n"}')).toBe('{"token":"[redacted]"}');
  });
});
