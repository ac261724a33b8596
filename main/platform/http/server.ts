// node:http servers with the limits the engine and the web bridge share: a client that sends its
// headers or body slowly is cut off in seconds, not minutes, and the errors Node's HTTP layer answers
// itself (a malformed request, headers too large, a request too slow) get a JSON body like every other
// error instead of Node's bare status line.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { Duplex } from 'node:stream';

/** The whole header block must arrive within this. */
export const HEADERS_TIMEOUT_MS = 10_000;
/** The whole request, body included, must arrive within this (1 MiB bodies take well under a second). */
export const REQUEST_TIMEOUT_MS = 30_000;
/** How often Node checks those two limits (its default, 30 s, would let a slow client stay that long). */
const CHECK_INTERVAL_MS = 1_000;

/** The status and words for an error Node's parser or timers raised before any handler ran. */
export function clientErrorStatus(error: NodeJS.ErrnoException): {
  status: number;
  title: string;
  detail: string;
} {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        title: 'Request header fields too large',
        detail: 'The request headers are too large.',
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        status: 408,
        title: 'Request timeout',
        detail: 'The request did not arrive whole in time.',
      };
    default:
      return { status: 400, title: 'Malformed request', detail: 'The request is not valid HTTP/1.1.' };
  }
}

export interface ServerLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}
export const DEFAULT_LIMITS: ServerLimits = {
  headersTimeoutMs: HEADERS_TIMEOUT_MS,
  requestTimeoutMs: REQUEST_TIMEOUT_MS,
};

export function createLimitedServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  /** The JSON error body for a status, with its content type. */
  errorBody: (error: { status: number; title: string; detail: string }) => { type: string; body: string },
  limits: ServerLimits = DEFAULT_LIMITS,
  /** HTTPS with this certificate and key; plain HTTP without. */
  tls?: { cert: string; key: string },
): Server {
  const options = {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    connectionsCheckingInterval: Math.min(CHECK_INTERVAL_MS, limits.headersTimeoutMs / 2),
  };
  const server = tls
    ? createTlsServer({ ...options, cert: tls.cert, key: tls.key, minVersion: 'TLSv1.2' }, handler)
    : createServer(options, handler);
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A reset or a socket already answered: nothing can be written any more.
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const problem = clientErrorStatus(error);
    const { type, body } = errorBody(problem);
    socket.end(
      `HTTP/1.1 ${problem.status} ${problem.title}\r\n` +
        `Content-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        'Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n' +
        body,
    );
  });
  return server;
}
