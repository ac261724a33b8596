// The narrow bridge: `window.api` gets one function per contract method and nothing else.
import { contextBridge, ipcRenderer } from 'electron';
import { IPC_CHANNEL, METHOD_NAMES, type RawApi } from '../../shared/ipc';
const api = Object.fromEntries(
  METHOD_NAMES.map((name) => [name, (input: unknown) => ipcRenderer.invoke(IPC_CHANNEL, name, input)]),
) as RawApi;

contextBridge.exposeInMainWorld('api', api);
