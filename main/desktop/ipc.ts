// Electron IPC: one channel carries every contract method. Only our own window's top frame may call.
import { IPC_CHANNEL } from '../../shared/api';
import type { Dispatch } from '../app/dispatch';
import type { Log } from '../platform/log';

/** The slice of Electron's ipcMain we use, so the wiring can be tested without Electron. */
export interface IpcMainLike {
  handle(channel: string, listener: (event: IpcEventLike, ...args: unknown[]) => Promise<unknown>): void;
}
export interface IpcEventLike {
  senderFrame: { url: string; parent: unknown } | null;
}

export function registerIpc(
  ipcMain: IpcMainLike,
  dispatch: Dispatch,
  isTrustedUrl: (url: string) => boolean,
  log: Log,
) {
  ipcMain.handle(IPC_CHANNEL, async (event, method, input) => {
    const frame = event.senderFrame;
    if (!frame || frame.parent !== null || !isTrustedUrl(frame.url)) {
      log.warn('ipc.untrusted_sender');
      return {
        ok: false,
        error: { code: 'unauthorized', message: 'Calls are accepted from the app window only.' },
      };
    }
    return dispatch(method, input);
  });
}
