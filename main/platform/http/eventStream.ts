// A server-sent-event response (text/event-stream) held open for one subscriber: named JSON messages, a
// comment every few seconds so proxies and idle timers see traffic, and an end when the subscriber
// leaves or reads too slowly (its unread messages would otherwise pile up in memory; it reconnects and
// reads the whole picture again).
import type { IncomingMessage, ServerResponse } from 'node:http';

export const KEEP_ALIVE_MS = 15_000;
/** Unread bytes a subscriber may leave queued before its stream is ended. */
export const MAX_QUEUED_BYTES = 8 * 1024 * 1024;
/** What a client waits before reconnecting, told to EventSource-like clients. */
const RETRY_MS = 2_000;

export interface EventStreamSink {
  send(event: string, data: unknown): void;
}

/** Opens the stream, hands its sink to `subscribe`, and calls the unsubscribe it answers when it ends. */
export function serveEventStream(
  req: IncomingMessage,
  res: ServerResponse,
  subscribe: (sink: EventStreamSink) => () => void,
  options: { keepAliveMs?: number; maxQueuedBytes?: number } = {},
): void {
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    'X-Accel-Buffering': 'no',
  });
  res.flushHeaders();
  res.write(`retry: ${RETRY_MS}\n\n`);
  let open = true;
  const maxQueued = options.maxQueuedBytes ?? MAX_QUEUED_BYTES;
  const end = () => {
    if (!open) return;
    open = false;
    clearInterval(keepAlive);
    unsubscribe();
    res.end();
  };
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), options.keepAliveMs ?? KEEP_ALIVE_MS);
  keepAlive.unref();
  const unsubscribe = subscribe({
    send(event, data) {
      if (!open) return;
      if (res.writableLength > maxQueued) return end();
      // JSON.stringify never writes a raw newline, so each message is one data line.
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
  });
  req.on('close', end);
  res.on('close', end);
}
