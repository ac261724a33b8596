// A small stand-in (CommonJS, so that both an ES-module bundle and a CommonJS one can load it) for the `electron` module, enough for the built main bundle to start under plain
// Node: it records what the app registers (the app:// handler, the IPC handler, the window's options)
// and lets the test drive them over the child process's IPC channel:
//   { id, kind: 'call', method, input }  → the app's IPC handler, as the app window's top frame calls it
//   { id, kind: 'fetch', url }           → the app:// protocol handler
//   { id, kind: 'untrusted', method }    → the IPC handler, called from a frame that is not the app's
//   { id, kind: 'pushes' }               → what main pushed to the window (its push channel), so far
//   { id, kind: 'notifications' }        → the system notifications shown so far
//   { id, kind: 'click', index }         → the user clicks notification `index`
//   { id, kind: 'quit' }                 → app.quit(): will-quit handlers run, then the process ends
'use strict';
const { EventEmitter } = require('node:events');
const { join } = require('node:path');

const home = process.env.STAND_IN_HOME ?? '/nonexistent';
const app = new EventEmitter();
const recorded = {
  schemes: [],
  protocolHandlers: new Map(),
  ipcHandlers: new Map(),
  windows: [],
  pushes: [],
  notifications: [],
};
let ready;
const whenReadyPromise = new Promise((resolve) => (ready = resolve));

Object.assign(app, {
  isPackaged: false,
  getVersion: () => process.env.STAND_IN_VERSION ?? '0.0.0',
  getPath: (name) => join(home, name),
  requestSingleInstanceLock: () => true,
  enableSandbox: () => undefined,
  whenReady: () => whenReadyPromise,
  quit: () => {
    const event = { preventDefault: () => undefined };
    app.emit('will-quit', event);
    // Let will-quit work (closing the engine) finish, as Electron would before it exits.
    setTimeout(() => process.exit(0), 500);
  },
});
setImmediate(() => ready());

exports.app = app;
exports.protocol = {
  registerSchemesAsPrivileged: (schemes) => recorded.schemes.push(...schemes),
  handle: (scheme, handler) => recorded.protocolHandlers.set(scheme, handler),
};
exports.session = {
  defaultSession: {
    setPermissionRequestHandler: () => undefined,
    setPermissionCheckHandler: () => undefined,
  },
};
exports.ipcMain = { handle: (channel, handler) => recorded.ipcHandlers.set(channel, handler) };
exports.safeStorage = { isEncryptionAvailable: () => false };
exports.screen = { getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }] };
exports.dialog = { showMessageBox: async () => ({ response: 0 }) };
exports.shell = { openExternal: async () => undefined, openPath: async () => '' };
exports.Menu = { buildFromTemplate: (template) => template, setApplicationMenu: () => undefined };

class BrowserWindow extends EventEmitter {
  constructor(options) {
    super();
    this.options = options;
    this.webContents = new EventEmitter();
    this.webContents.setWindowOpenHandler = () => undefined;
    this.webContents.send = (channel, message) => recorded.pushes.push({ channel, message });
    recorded.windows.push(this);
  }
  isDestroyed() {
    return false;
  }
  maximize() {}
  show() {}
  focus() {}
  restore() {}
  isMinimized() {
    return false;
  }
  isMaximized() {
    return false;
  }
  getNormalBounds() {
    return { x: 0, y: 0, width: 1200, height: 800 };
  }
  async loadURL(url) {
    this.url = url;
    const webPreferences = this.options.webPreferences;
    process.send?.({
      kind: 'ready',
      url,
      webPreferences,
      schemes: recorded.schemes,
      channels: [...recorded.ipcHandlers.keys()],
    });
  }
}

exports.BrowserWindow = BrowserWindow;

class Notification extends EventEmitter {
  constructor(options) {
    super();
    this.options = options;
  }
  show() {
    recorded.notifications.push(this);
  }
}
exports.Notification = Notification;

const trustedFrame = () => ({ url: recorded.windows[0]?.url ?? 'app://bundle/index.html', parent: null });

async function answer(message) {
  switch (message.kind) {
    case 'call': {
      const [handler] = recorded.ipcHandlers.values();
      return handler({ senderFrame: trustedFrame() }, message.method, message.input);
    }
    case 'untrusted': {
      const [handler] = recorded.ipcHandlers.values();
      return handler({ senderFrame: { url: 'https://example.com/', parent: null } }, message.method, {});
    }
    case 'fetch': {
      const scheme = new URL(message.url).protocol.slice(0, -1);
      const response = await recorded.protocolHandlers.get(scheme)(new Request(message.url));
      const body = await response.text();
      return { status: response.status, headers: Object.fromEntries(response.headers), body };
    }
    case 'pushes':
      return recorded.pushes;
    case 'notifications':
      return recorded.notifications.map((n) => n.options);
    case 'click':
      recorded.notifications[message.index]?.emit('click');
      return null;
    case 'quit':
      app.quit();
      return null;
  }
  throw new Error(`the stand-in does not know "${message.kind}"`);
}

process.on('message', (message) => {
  answer(message).then(
    (value) => process.send({ id: message.id, value }),
    (error) => process.send({ id: message.id, error: String(error?.stack ?? error) }),
  );
});
