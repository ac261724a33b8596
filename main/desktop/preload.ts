// The narrow bridge: `window.api` gets one function per contract method, `window.push` a way to hear
// main's pushes, and nothing else.
import { contextBridge, ipcRenderer } from 'electron';
import { IPC_CHANNEL, METHOD_NAMES, PUSH_CHANNEL, type RawApi, type RawPush } from '../../shared/ipc';
const api = Object.fromEntries(
  METHOD_NAMES.map((name) => [name, (input: unknown) => ipcRenderer.invoke(IPC_CHANNEL, name, input)]),
) as RawApi;

contextBridge.exposeInMainWorld('api', api);

// Main's pushes: the listener gets the message only, never the IPC event (which reaches into Electron).
const push: RawPush = {
  subscribe(listener) {
    const handler = (_event: unknown, message: unknown) => listener(message);
    ipcRenderer.on(PUSH_CHANNEL, handler);
    return () => ipcRenderer.removeListener(PUSH_CHANNEL, handler);
  },
};
contextBridge.exposeInMainWorld('push', push);
