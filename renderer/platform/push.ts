// Main's pushes in the renderer: on the desktop through the preload's `window.push`, in a browser as one
// server-sent-event stream (GET /api/push, the launch token in the Authorization header, which
// EventSource cannot send, hence fetch). Every message is parsed before use; a dropped stream is opened
// again after two seconds, and `opened` tells the store to read the whole picture again.
import { pushMessageSchema, PUSH_EVENT, WEB_PUSH_PATH, type PushMessage } from '../../shared/push';
import { readEventStream, streamChunks } from '../../shared/eventStream';
import { safeJson } from '../../shared/config/parse';
import type { RawPush } from '../../shared/ipc';

declare global {
  interface Window {
    push?: RawPush;
  }
}

export interface PushHandlers {
  message(message: PushMessage): void;
  /** The channel is (again) open: anything missed meanwhile must be read afresh. */
  opened(): void;
  closed(): void;
}
export type PushSource = (handlers: PushHandlers) => () => void;

const RECONNECT_MS = 2_000;

const parsed = (raw: unknown): PushMessage | undefined => {
  const result = pushMessageSchema.safeParse(raw);
  return result.success ? result.data : undefined;
};

function desktopPush(push: RawPush): PushSource {
  return (handlers) => {
    const unsubscribe = push.subscribe((raw) => {
      const message = parsed(raw);
      if (message) handlers.message(message);
    });
    handlers.opened();
    return unsubscribe;
  };
}

export function webPush(token: string, fetchImpl: typeof fetch = fetch): PushSource {
  return (handlers) => {
    let closed = false;
    let controller: AbortController | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const connect = async () => {
      controller = new AbortController();
      try {
        const response = await fetchImpl(WEB_PUSH_PATH, {
          headers: { Authorization: `Bearer ${token}`, Accept: 'text/event-stream' },
          signal: controller.signal,
        });
        if (!response.ok || !response.body) throw new Error(`push stream answered ${response.status}`);
        handlers.opened();
        for await (const { event, data } of readEventStream(streamChunks(response.body))) {
          if (event !== PUSH_EVENT) continue;
          const message = parsed(safeJson(data));
          if (message) handlers.message(message);
        }
      } catch {
        // Dropped, refused or aborted: said below, and tried again unless closed.
      }
      if (closed) return;
      handlers.closed();
      timer = setTimeout(() => void connect(), RECONNECT_MS);
    };
    void connect();
    return () => {
      closed = true;
      clearTimeout(timer);
      controller?.abort();
    };
  };
}

/** The desktop's push channel, or web mode's stream with this tab's token; none without either. */
export function connectPush(webToken: string | undefined): PushSource | undefined {
  if (window.push) return desktopPush(window.push);
  return webToken ? webPush(webToken) : undefined;
}
