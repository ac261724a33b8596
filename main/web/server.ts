// Web mode: the IPC contract carried over HTTP on loopback, plus the built renderer as static files.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ApiErrorData, Envelope } from '../../shared/api';
import { CSP_HEADER } from '../platform/csp';
import type { Dispatch } from '../app/dispatch';
import type { Log } from '../platform/log';
import { readStatic } from '../platform/http/static';
import { HttpError, readJsonBody } from '../platform/http/body';
import { createLimitedServer } from '../platform/http/server';
import { newToken, tokenMatches } from '../platform/http/token';
import { serveEventStream } from '../platform/http/eventStream';
import { PUSH_EVENT, WEB_PUSH_PATH, type PushMessage } from '../../shared/push';
import { LAUNCH_CODE_PARAMETER, WEB_SESSION_PATH, webSessionRequestSchema } from '../../shared/api';

export const MAX_BODY_BYTES = 1024 * 1024;

export interface WebServerOptions {
  dispatch: Dispatch;
  log: Log;
  /** Folder of the built renderer (dist/renderer). */
  staticRoot: string;
  port?: number;
  /** Fixed only by tests; otherwise a new random token per launch. */
  token?: string;
  /** Main's pushed messages (shared/push.ts), served as the stream at WEB_PUSH_PATH. */
  subscribe?: (listener: (message: PushMessage) => void) => () => void;
}

export interface WebServer {
  url: string;
  /**
   * A URL to open, new at every read: a one-time code travels in the fragment (which browsers never
   * send to the server), exchanged once for the token; the URL left in the history opens nothing.
   */
  readonly openUrl: string;
  token: string;
  close(): Promise<void>;
}

const SECURITY_HEADERS = {
  'Content-Security-Policy': CSP_HEADER,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  const token = options.token ?? newToken();
  const server = createLimitedServer(
    (req, res) => {
      handle(req, res).catch((error: unknown) => {
        const status = error instanceof HttpError ? error.status : 500;
        const message = error instanceof HttpError ? error.message : 'The web bridge failed; see the log.';
        if (!(error instanceof HttpError)) options.log.warn('web.failed', { path: req.url?.split('?')[0] });
        const allow: Record<string, string> = error instanceof MethodNotAllowed ? { Allow: error.allow } : {};
        sendJson(res, status, { ok: false, error: { code: errorCode(status), message } }, allow);
      });
    },
    ({ status, detail }) => ({
      type: 'application/json',
      body: JSON.stringify({ ok: false, error: { code: errorCode(status), message: detail } }),
    }),
  );

  let allowedHosts: Set<string> = new Set();
  /** Launch codes printed or handed out and not yet exchanged. */
  const codes = new Set<string>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Only loopback names: a page on another site cannot reach this server through DNS rebinding.
    if (!allowedHosts.has(req.headers.host ?? ''))
      throw new HttpError(421, 'Misdirected', 'Unknown Host header.');
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path === WEB_PUSH_PATH && options.subscribe) {
      if (req.method !== 'GET') throw new MethodNotAllowed('GET', 'The push stream is read with GET.');
      if (!tokenMatches(req.headers.authorization, token)) throw unauthorized();
      const subscribe = options.subscribe;
      serveEventStream(req, res, (sink) => subscribe((message) => sink.send(PUSH_EVENT, message)));
      return;
    }
    if (path === WEB_SESSION_PATH) {
      if (req.method !== 'POST') throw new MethodNotAllowed('POST', 'A launch code is exchanged with POST.');
      const asked = webSessionRequestSchema.safeParse(await readJsonBody(req, MAX_BODY_BYTES, {}));
      // Taken once: the code leaves the set before the answer, so a second use is refused.
      if (!asked.success || !codes.delete(asked.data.code)) throw launchUsed();
      sendJson(res, 200, { ok: true, value: { token } });
      return;
    }
    if (path.startsWith('/api/')) {
      if (req.method !== 'POST') throw new MethodNotAllowed('POST', 'API calls use POST.');
      if (!tokenMatches(req.headers.authorization, token)) throw unauthorized();
      const input = await readJsonBody(req, MAX_BODY_BYTES, {});
      const envelope = await options.dispatch(path.slice('/api/'.length), input);
      sendJson(res, envelope.ok || envelope.error.code !== 'unknown_method' ? 200 : 404, envelope);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD')
      throw new MethodNotAllowed('GET, HEAD', 'Only GET serves files.');
    const file = await readStatic(options.staticRoot, path);
    if (!file) {
      res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS });
      res.end('The renderer is not built: run `npm run build:renderer`.');
      return;
    }
    res.writeHead(200, { 'Content-Type': file.type, 'Cache-Control': 'no-cache', ...SECURITY_HEADERS });
    res.end(req.method === 'HEAD' ? undefined : file.body);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  allowedHosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  const url = `http://127.0.0.1:${port}`;
  options.log.info('web.listening', { url });
  return {
    url,
    get openUrl() {
      const code = newToken();
      codes.add(code);
      return `${url}/#${LAUNCH_CODE_PARAMETER}=${code}`;
    },
    token,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const launchUsed = () =>
  new HttpError(
    401,
    'Unauthorized',
    'This launch link was used already (or is not one): each link printed by `npm run web` opens one tab. Start `npm run web` again for a new one.',
  );

const unauthorized = () =>
  new HttpError(401, 'Unauthorized', 'Missing or wrong token: open the URL that `npm run web` printed.');

function errorCode(status: number): ApiErrorData['code'] {
  if (status === 401) return 'unauthorized';
  if (status >= 500) return 'internal';
  return 'invalid_input';
}

class MethodNotAllowed extends HttpError {
  constructor(
    readonly allow: string,
    message: string,
  ) {
    super(405, 'Method not allowed', message);
  }
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: Envelope,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json',
    'Cache-Control': 'no-store',
    ...SECURITY_HEADERS,
  });
  res.end(JSON.stringify(body));
}
