// Electron lifecycle: one secure window on the app:// bundle, the contract served over IPC.
// Each rule here is listed against Electron's security checklist in docs/security.md.
import {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  Menu,
  Notification,
  protocol,
  safeStorage,
  screen,
  session,
  shell,
} from 'electron';
import { printHtmlToPdf } from './printToPdf';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { APP_SCHEME, RENDERER_URL, serveAppRequest } from './appProtocol';
import { portOption } from '../platform/cli';
import { createFileLog } from '../platform/fileLog';
import type { Log } from '../platform/log';
import { registerIpc } from './ipc';
import { forwardPushes } from './pushes';
import { aboutText, menuTemplate } from './menu';
import { secretBoxForDesktop } from './secretBox';
import { startAppServices } from '../app/services';
import { isAllowedNavigation, isExternalLinkAllowed, secureWebPreferences } from './window';
import { loadWindowState, saveWindowState } from './windowState';

// The bundle is an ES module: its folder comes from import.meta.url (there is no __dirname).
const bundleDir = fileURLToPath(new URL('.', import.meta.url));
const rendererRoot = join(bundleDir, '..', 'renderer');

// Must precede `ready`: the scheme is standard and secure, so the bundle gets a real origin and CSP.
protocol.registerSchemesAsPrivileged([
  { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
]);

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.enableSandbox();
  void app.whenReady().then(start);
}

async function start(): Promise<void> {
  const logDir = app.getPath('logs');
  mkdirSync(logDir, { recursive: true, mode: 0o700 });
  const log = createFileLog(logDir, {
    echo: app.isPackaged ? undefined : (line) => process.stderr.write(line + '\n'),
  });
  log.info('app.start', { version: app.getVersion(), electron: process.versions.electron });

  protocol.handle(APP_SCHEME, async (request) => {
    const answer = await serveAppRequest(request.url, rendererRoot);
    const body = typeof answer.body === 'string' ? answer.body : new Blob([answer.body]);
    return new Response(body, { status: answer.status, headers: answer.headers });
  });
  // No web content needs a permission (camera, notifications, …): refuse every request and check.
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  session.defaultSession.setPermissionCheckHandler(() => false);

  const dataDir = app.getPath('userData');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const secrets = secretBoxForDesktop(safeStorage, dataDir, process.platform, log);
  const services = await startAppServices({
    mode: 'electron',
    appVersion: app.getVersion(),
    dataDir,
    secrets,
    log,
    enginePort: enginePort(log),
    logFiles: () => log.files(),
    printToPdf: printHtmlToPdf,
    // Loaded when the user asks for the sandbox: a chunk of its own, outside the start-up path.
    loadSandbox: () => import('../sandbox/mode').then((m) => m.sandboxMode()),
  });
  app.on('will-quit', () => void services.close());
  registerIpc(ipcMain, services.dispatch, isAllowedNavigation, log);

  const stateFile = join(dataDir, 'window-state.json');
  const state = loadWindowState(
    stateFile,
    screen.getAllDisplays().map((d) => d.workArea),
  );
  const window = new BrowserWindow({
    ...state,
    minWidth: 800,
    minHeight: 500,
    title: 'CDC Admin',
    show: false,
    webPreferences: secureWebPreferences(join(bundleDir, 'preload.cjs')),
  });
  if (state.maximized) window.maximize();
  window.once('ready-to-show', () => window.show());
  window.on('close', () =>
    saveWindowState(stateFile, { ...window.getNormalBounds(), maximized: window.isMaximized() }),
  );

  window.webContents.on('will-navigate', (event, url) => {
    if (!isAllowedNavigation(url)) event.preventDefault();
  });
  window.webContents.on('will-attach-webview', (event) => event.preventDefault());
  window.webContents.setWindowOpenHandler(({ url }) => {
    if (isExternalLinkAllowed(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });

  app.on('second-instance', () => {
    if (window.isMinimized()) window.restore();
    window.focus();
  });

  const showAbout = () =>
    void dialog.showMessageBox(window, {
      type: 'info',
      title: 'About CDC Admin',
      message: 'CDC Admin',
      detail: aboutText(app.getVersion(), process.versions),
    });
  Menu.setApplicationMenu(
    Menu.buildFromTemplate(
      menuTemplate(
        { showAbout, openLogsFolder: () => void shell.openPath(logDir) },
        process.platform,
        'CDC Admin',
      ),
    ),
  );

  // Notifications come from main (Electron's Notification), so they ring with the window hidden too.
  const stopPushes = forwardPushes(
    services.deps.fleet.subscribe,
    window,
    (options) => new Notification(options),
  );
  window.on('closed', stopPushes);

  await window.loadURL(RENDERER_URL);
}

/** 1717 as the spec's examples; CDC_ADMIN_ENGINE_PORT moves it (a second app, or a port taken by another engine). */
function enginePort(log: Log): number {
  const text = process.env.CDC_ADMIN_ENGINE_PORT;
  if (text === undefined || text === '') return 1717;
  try {
    return portOption('CDC_ADMIN_ENGINE_PORT', text);
  } catch {
    log.warn('app.engine_port_ignored', { reason: 'not a port from 0 to 65535' });
    return 1717;
  }
}

app.on('window-all-closed', () => app.quit());
