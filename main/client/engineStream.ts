// Subscribes to an engine's event stream (GET /events/stream) and keeps the subscription alive: each
// message parsed before it is handed on, a reconnect after a drop (waiting longer each time, up to 15 s),
// a stream that stays silent past three keep-alives treated as dropped, and an engine without the stream
// (one older than it: 404 or 405) reported once so the caller can poll instead.
import { FEED_EVENT, feedMessageSchema, type FeedMessage } from '../../shared/liveFeed';
import { readEventStream, streamChunks } from '../../shared/eventStream';
import { routes } from '../../shared/controlApiRoutes';
import { safeJson } from '../../shared/config/parse';
import { engineTransport, TOKEN_REFUSED, type EngineClientOptions } from './engineClient';
import { CertificateChanged } from './pinnedTls';

export interface StreamHandlers {
  /** The stream is open: whatever was missed while it was not must be read again (GET /overview). */
  connected(): void;
  message(message: FeedMessage): void;
  /** The stream dropped or could not open; the next try is in `retryInMs`. */
  disconnected(reason: string, retryInMs: number): void;
  /** The engine serves no event stream: nothing more is tried. */
  unsupported(): void;
}

const RETRY_DELAYS_MS = [1_000, 2_000, 5_000, 10_000, 15_000];
/** Three keep-alives (15 s apart) missed: the connection is gone even if no error said so. */
export const SILENCE_LIMIT_MS = 45_000;
const CONNECT_TIMEOUT_MS = 10_000;

export function subscribeToEngine(
  options: EngineClientOptions,
  handlers: StreamHandlers,
  timing: { silenceLimitMs?: number; retryDelaysMs?: readonly number[] } = {},
): () => void {
  const { origin, doFetch } = engineTransport(options);
  const delays = timing.retryDelaysMs ?? RETRY_DELAYS_MS;
  let closed = false;
  let current: AbortController | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let failures = 0;

  const retry = (reason: string) => {
    if (closed) return;
    const wait = delays[Math.min(failures, delays.length - 1)] ?? 15_000;
    failures += 1;
    handlers.disconnected(reason, wait);
    retryTimer = setTimeout(() => void connect(), wait);
    retryTimer.unref?.();
  };

  async function connect(): Promise<void> {
    const controller = new AbortController();
    current = controller;
    let silence: NodeJS.Timeout | undefined;
    const resetSilence = (ms: number) => {
      clearTimeout(silence);
      silence = setTimeout(() => controller.abort(), ms);
      silence.unref?.();
    };
    resetSilence(CONNECT_TIMEOUT_MS);
    try {
      const response = await doFetch(origin + routes.streamEvents.path, {
        headers: { Authorization: `Bearer ${options.token}`, Accept: 'text/event-stream' },
        signal: controller.signal,
      });
      if (response.status === 404 || response.status === 405) {
        clearTimeout(silence);
        await response.body?.cancel();
        if (!closed) handlers.unsupported();
        return;
      }
      if (!response.ok || !response.body) {
        await response.body?.cancel();
        throw new Error(
          response.status === 401
            ? TOKEN_REFUSED
            : `The engine answered ${response.status} to its event stream.`,
        );
      }
      failures = 0;
      handlers.connected();
      const silenceLimit = timing.silenceLimitMs ?? SILENCE_LIMIT_MS;
      resetSilence(silenceLimit);
      const chunks = streamChunks(response.body, () => resetSilence(silenceLimit));
      for await (const { event, data } of readEventStream(chunks)) {
        if (event !== FEED_EVENT) continue;
        const parsed = feedMessageSchema.safeParse(safeJson(data));
        // A message this app does not understand (a newer engine's) is skipped, not fatal.
        if (parsed.success) handlers.message(parsed.data);
      }
      throw new Error('The engine closed its event stream.');
    } catch (error) {
      if (closed) return;
      const reason =
        error instanceof CertificateChanged
          ? error.message
          : controller.signal.aborted
            ? `The engine at ${origin} went silent.`
            : error instanceof Error && error.message.startsWith('The engine')
              ? error.message
              : `Cannot reach the engine at ${origin}.`;
      retry(reason);
    } finally {
      clearTimeout(silence);
    }
  }

  void connect();
  return () => {
    closed = true;
    clearTimeout(retryTimer);
    current?.abort();
  };
}
