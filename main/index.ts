// Electron lifecycle: one secure window, the contract served over IPC.
import { app, BrowserWindow, ipcMain, session, shell } from 'electron';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CSP_HEADER } from './csp';
import { createDispatch } from './dispatch';
import { handlers } from './handlers';
import { registerIpc } from './ipc';
import { consoleLog } from './log';
import { isAllowedNavigation, RENDERER_ENTRY, secureWebPreferences } from './window';

const log = consoleLog();
const rendererFile = join(__dirname, '..', 'renderer', RENDERER_ENTRY);
const rendererUrl = pathToFileURL(rendererFile).href;

app.enableSandbox();

void app.whenReady().then(() => {
  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CSP_HEADER] } });
  });
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));

  const dispatch = createDispatch(handlers, { mode: 'electron', appVersion: app.getVersion() }, log);
  registerIpc(ipcMain, dispatch, (url) => isAllowedNavigation(url, rendererUrl), log);

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
