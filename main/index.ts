// Electron lifecycle: one secure window, the contract served over IPC.
import { app, BrowserWindow, ipcMain, safeStorage, session, shell } from 'electron';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CSP_HEADER } from './csp';
import { registerIpc } from './ipc';
import { consoleLog } from './log';
import { secretBoxForDesktop } from './secretBoxForDesktop';
import { startAppServices } from './services';
import { isAllowedNavigation, RENDERER_ENTRY, secureWebPreferences } from './window';

const log = consoleLog();
const rendererFile = join(__dirname, '..', 'renderer', RENDERER_ENTRY);
const rendererUrl = pathToFileURL(rendererFile).href;

app.enableSandbox();

void app.whenReady().then(async () => {
  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CSP_HEADER] } });
  });
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));

  const dataDir = app.getPath('userData');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const secrets = secretBoxForDesktop(safeStorage, dataDir, process.platform, log);
  const services = await startAppServices({
    mode: 'electron',
    appVersion: app.getVersion(),
    dataDir,
    secrets,
    log,
    enginePort: 1717,
  });
  app.on('will-quit', () => void services.close());
  registerIpc(ipcMain, services.dispatch, (url) => isAllowedNavigation(url, rendererUrl), log);

  const window = new BrowserWindow({
    width: 1200,
    height: 800,
    title: 'CDC Admin',
    webPreferences: secureWebPreferences(join(__dirname, 'preload.cjs')),
  });
  window.webContents.on('will-navigate', (event, url) => {
    if (!isAllowedNavigation(url, rendererUrl)) event.preventDefault();
  });
  window.webContents.setWindowOpenHandler(({ url }) => {
    if (url.startsWith('https://')) void shell.openExternal(url);
    return { action: 'deny' };
  });
  void window.loadFile(rendererFile);
});

app.on('window-all-closed', () => app.quit());
