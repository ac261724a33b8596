// The desktop side of main's pushes: every message to the window on the push channel, and each alert
// as a system notification that, clicked, brings the window forward on that pipeline (or, for an
// engine's alert, on Home, where each engine shows whether it answers). Kept free of the
// electron import so it can be tested with stand-ins.
import { PUSH_CHANNEL } from '../../shared/ipc';
import { openedBy, type PushMessage } from '../../shared/push';

export interface WindowLike {
  isDestroyed(): boolean;
  isMinimized(): boolean;
  restore(): void;
  show(): void;
  focus(): void;
  webContents: { send(channel: string, message: unknown): void };
}
export interface NotificationLike {
  on(event: 'click', listener: () => void): unknown;
  show(): void;
}

export function forwardPushes(
  subscribe: (listener: (message: PushMessage) => void) => () => void,
  window: WindowLike,
  notify: ((options: { title: string; body: string }) => NotificationLike) | null,
): () => void {
  const send = (message: PushMessage) => {
    if (!window.isDestroyed()) window.webContents.send(PUSH_CHANNEL, message);
  };
  return subscribe((message) => {
    send(message);
    if (message.type !== 'alert' || !notify) return;
    const { alert } = message;
    const notification = notify({ title: alert.title, body: alert.body });
    notification.on('click', () => {
      if (window.isDestroyed()) return;
      if (window.isMinimized()) window.restore();
      window.show();
      window.focus();
      send(openedBy(alert));
    });
    notification.show();
  });
}
