// A client for the control API of any sync engine, local or remote: one typed function per route,
// with a timeout, and errors that carry the engine's problem details. The token never enters a message.
import { safeJson } from '../../shared/config/parse';
import { problemDetailsSchema, type ProblemDetails } from '../../shared/controlApi';
import { parseEngineUrl } from '../../shared/engineUrl';
import { CertificateChanged, pinnedFetch } from './pinnedTls';
import {
  fillPath,
  isAnswered,
  routes,
  type AnsweredOperationId,
  type OperationId,
  type RouteAnswer,
  type RouteBody,
  type RouteParams,
  type Routes,
} from '../../shared/controlApiRoutes';

/** What the user reads when an engine answers 401 to its stored token. */
export const TOKEN_REFUSED = 'The engine refused the token: paste the current one into the profile.';

export class EngineError extends Error {
  constructor(
    message: string,
    /** HTTP status, or 0 when the engine could not be reached or answered nonsense. */
    readonly status: number,
    readonly problem?: ProblemDetails,
  ) {
    super(message);
    this.name = 'EngineError';
  }
}

export interface EngineClientOptions {
  baseUrl: string;
  token: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** For an https:// engine: the SHA-256 fingerprint its certificate must have (see pinnedTls.ts). */
  pinnedCertificate?: string;
}

type Params<O extends OperationId> = RouteParams<Routes[O]['path']>;
/** Every route answered once; the event stream is read by engineStream.ts instead. */
export type EngineClient = {
  [O in AnsweredOperationId]: RouteBody<O> extends undefined
    ? (params: Params<O>) => Promise<RouteAnswer<O>>
    : (params: Params<O>, body: RouteBody<O>) => Promise<RouteAnswer<O>>;
};

/** Checks a base URL: http or https, no credentials in it (they would end up in messages). */
export function parseBaseUrl(baseUrl: string): URL {
  const parsed = parseEngineUrl(baseUrl);
  if (!parsed.ok) throw new EngineError(parsed.reason, 0);
  return parsed.url;
}

/**
 * A refusal in the engine's words, each said once: the screens show this message, so no status code,
 * title or JSON pointer (the field a pointer names is shown beside it by the form, from `problem`).
 */
function describeProblem(p: ProblemDetails): string {
  const fields = p.errors?.map((e) => e.detail) ?? [];
  // "3 values are invalid; see errors." says nothing once the errors follow.
  const lines = fields.length > 1 ? fields : [p.detail, ...fields];
  return [...new Set(lines.filter((line) => line.trim() !== ''))].join('\n') || p.title;
}

/** The engine's origin (with any path prefix) and the fetch that reaches it (pinned for https). */
export function engineTransport(options: EngineClientOptions): { origin: string; doFetch: typeof fetch } {
  const base = parseBaseUrl(options.baseUrl);
  const origin = base.origin + base.pathname.replace(/\/$/, '');
  const doFetch =
    options.fetch ??
    (base.protocol === 'https:' && options.pinnedCertificate
      ? pinnedFetch(options.pinnedCertificate)
      : fetch);
  return { origin, doFetch };
}

export function createEngineClient(options: EngineClientOptions): EngineClient {
  const { origin, doFetch } = engineTransport(options);
  const timeoutMs = options.timeoutMs ?? 10_000;

  async function call(
    operationId: OperationId,
    params: Record<string, string>,
    body: unknown,
  ): Promise<unknown> {
    const route = routes[operationId];
    const url = origin + fillPath(route.path, params);
    let response: Response;
    try {
      response = await doFetch(url, {
        method: route.method,
        headers: {
          Authorization: `Bearer ${options.token}`,
          ...(body !== undefined && { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      // A pinned certificate the engine no longer presents: said as it is, nothing was sent.
      if (error instanceof CertificateChanged) throw new EngineError(error.message, 0);
      const timedOut =
        error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
      throw new EngineError(
        timedOut
          ? `The engine at ${origin} did not answer within ${timeoutMs / 1000} s.`
          : `Cannot reach the engine at ${origin}.`,
        0,
      );
    }
    if (response.ok && 'binary' in route) return new Uint8Array(await response.arrayBuffer());
    const text = await response.text();
    if (!response.ok) {
      const parsed = problemDetailsSchema.safeParse(safeJson(text));
      if (parsed.success) throw new EngineError(describeProblem(parsed.data), response.status, parsed.data);
      throw new EngineError(
        `The engine answered ${response.status} ${response.statusText} to ${route.method} ${route.path}.`,
        response.status,
      );
    }
    if (!('response' in route)) return undefined;
    const answer = route.response.safeParse(safeJson(text));
    if (!answer.success)
      throw new EngineError(
        `The engine's answer to ${route.method} ${route.path} is not what this app understands.`,
        0,
      );
    return answer.data;
  }

  const entries = (Object.keys(routes) as OperationId[])
    .filter(isAnswered)
    .map((id) => [id, (params: Record<string, string>, body?: unknown) => call(id, params ?? {}, body)]);
  return Object.fromEntries(entries) as EngineClient;
}
