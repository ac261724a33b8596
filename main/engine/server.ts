// The control API over HTTP (node:http: a dozen routes need no framework, and every byte of the
// request handling stays visible). Loopback by default; every route needs the admin token.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isAnswered, routes, type OperationId, type RouteSpec } from '../../shared/controlApiRoutes';
import { unsafeText } from '../../shared/config/unsafeText';
import { HttpError, readJsonBody } from '../platform/http/body';
import { createLimitedServer, type ServerLimits } from '../platform/http/server';
import { operations, type EngineDeps } from './operations';
import { problem, ProblemError } from '../platform/problem';
import { serveEventStream } from '../platform/http/eventStream';
import { FEED_EVENT } from '../../shared/liveFeed';

export const MAX_BODY_BYTES = 1024 * 1024;

interface CompiledRoute {
  operationId: OperationId;
  method: string;
  pattern: RegExp;
  keys: string[];
  hasBody: boolean;
}

const compiled: CompiledRoute[] = Object.entries(routes).map(([operationId, r]) => {
  const keys: string[] = [];
  const source = r.path.replace(/\{(\w+)\}/g, (_, key: string) => {
    keys.push(key);
    return '([^/]+)';
  });
  return {
    operationId: operationId as OperationId,
    method: r.method,
    pattern: new RegExp(`^${source}$`),
    keys,
    hasBody: 'body' in r,
  };
});

function match(method: string, path: string): { route: CompiledRoute; params: Record<string, string> } {
  const candidates = compiled.filter((r) => r.pattern.test(path));
  if (candidates.length === 0) throw problem.notFound(`No resource at ${path.slice(0, 200)}.`);
  const route = candidates.find((r) => r.method === method);
  if (!route) throw problem.methodNotAllowed(candidates.map((r) => r.method));
  const values = route.pattern.exec(path)?.slice(1) ?? [];
  const params: Record<string, string> = {};
  route.keys.forEach((key, i) => {
    try {
      params[key] = decodeURIComponent(values[i] ?? '');
    } catch {
      throw problem.notFound(`No resource at ${path.slice(0, 200)}.`);
    }
  });
  return { route, params };
}

export interface EngineServer {
  url: string;
  close(): Promise<void>;
}

export async function startEngineServer(
  deps: EngineDeps,
  /** `limits`: how long a request may take to arrive (tests shorten them). */
  options: {
    host?: string;
    port?: number;
    limits?: ServerLimits;
    tls?: { cert: string; key: string };
    /** Host headers taken besides the loopback names (`engine.example.com:1717`), for an engine bound elsewhere. */
    allowedHosts?: readonly string[];
  } = {},
): Promise<EngineServer> {
  // Filled once the port is known: the Host headers a request may carry.
  let hostAllowed: (host: string | undefined) => boolean = () => false;
  const server = createLimitedServer(
    (req, res) => void handle(req, res, deps, hostAllowed),
    ({ status, title, detail }) => ({
      type: 'application/problem+json',
      body: JSON.stringify({ type: 'about:blank', title, status, detail }),
    }),
    options.limits,
    options.tls,
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 1717, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  hostAllowed = allowedHostsOf(address, options.allowedHosts);
  return {
    url: `${options.tls ? 'https' : 'http'}://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Which Host headers reach the engine (a page elsewhere that rebinds its DNS name to 127.0.0.1 sends
 * its own name): on loopback, the loopback names at the engine's port; bound to another address, those
 * named in `allowedHosts`, or any when none are named (the token still guards every route).
 */
function allowedHostsOf(address: AddressInfo, extra: readonly string[] = []) {
  const loopback = /^(127\.|::1$|::ffff:127\.)/.test(address.address);
  const names = new Set(
    [...['127.0.0.1', 'localhost', '[::1]'].map((n) => `${n}:${address.port}`), ...extra].map((h) =>
      h.toLowerCase(),
    ),
  );
  return (host: string | undefined) =>
    (!loopback && extra.length === 0) || names.has((host ?? '').toLowerCase());
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  deps: EngineDeps,
  hostAllowed: (host: string | undefined) => boolean,
): Promise<void> {
  const method = req.method ?? 'GET';
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  try {
    if (!hostAllowed(req.headers.host))
      throw new HttpError(421, 'Misdirected request', 'The Host header names no address of this engine.');
    const scrape =
      method === 'GET' && path === '/metrics' && deps.tokens.verifyMetrics(req.headers.authorization);
    if (!scrape && !deps.tokens.verify(req.headers.authorization)) throw problem.unauthorized();
    const { route, params } = match(method, path);
    if (unsafeText(params).length > 0) throw problem.notFound(`No resource at ${path.slice(0, 200)}.`);
    const operationId = route.operationId;
    if (!isAnswered(operationId)) {
      serveEventStream(req, res, (sink) => deps.feed.subscribe((message) => sink.send(FEED_EVENT, message)));
      return;
    }
    const body = route.hasBody ? await readJsonBody(req, MAX_BODY_BYTES) : undefined;
    const unsafe = unsafeText(body);
    if (unsafe.length > 0) throw problem.invalid(unsafe);
    const reply = await operations[operationId]({ params, body }, deps);
    if (reply.body === undefined) {
      res.writeHead(reply.status).end();
    } else if (reply.body instanceof Uint8Array) {
      const spec: RouteSpec = routes[route.operationId];
      const type: string = spec.binary ?? 'application/octet-stream';
      res.writeHead(reply.status, {
        'Content-Type': type,
        'Content-Length': reply.body.length,
        'Cache-Control': 'no-store',
      });
      res.end(reply.body);
    } else {
      send(res, reply.status, 'application/json', reply.body);
    }
  } catch (error) {
    const details =
      error instanceof ProblemError
        ? error.problem
        : error instanceof HttpError
          ? {
              type: 'about:blank',
              title: error.title,
              status: error.status,
              detail: error.message,
              ...(error.pointer !== undefined && {
                errors: [{ pointer: error.pointer, detail: error.message }],
              }),
            }
          : undefined;
    if (details) {
      send(
        res,
        details.status,
        'application/problem+json',
        details,
        error instanceof ProblemError ? error.headers : {},
      );
      return;
    }
    // An unexpected failure: its message may carry driver text, so it goes to the log by name only.
    deps.log.warn('engine.failed', {
      method,
      path: path.slice(0, 200),
      error: error instanceof Error ? error.name : 'unknown',
    });
    send(res, 500, 'application/problem+json', {
      type: 'about:blank',
      title: 'Internal error',
      status: 500,
      detail: 'The engine failed to handle this request; see its log.',
    });
  }
}

function send(
  res: ServerResponse,
  status: number,
  type: string,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  res.writeHead(status, {
    ...headers,
    'Content-Type': type,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(JSON.stringify(body));
}
