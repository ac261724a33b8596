// The renderer's typed view of the contract. In Electron the preload provides `window.api`; in a browser
// the same calls go over HTTP with the per-launch token. Every answer is parsed before use.
import {
  contract,
  envelopeSchema,
  LAUNCH_CODE_PARAMETER,
  WEB_SESSION_PATH,
  webSessionAnswerSchema,
  methodNames,
  webApiPath,
  type ApiErrorData,
  type MethodInput,
  type MethodName,
  type MethodOutput,
  type RawApi,
} from '../../shared/api';

export type Api = { [M in MethodName]: (input: MethodInput<M>) => Promise<MethodOutput<M>> };

export class ApiError extends Error {
  constructor(
    readonly code: ApiErrorData['code'] | 'transport',
    message: string,
  ) {
    super(message);
  }
}

declare global {
  interface Window {
    api?: RawApi;
  }
}

export function createApi(raw: RawApi): Api {
  const entries = methodNames.map((name) => {
    const call = async (input: unknown) => {
      const envelope = envelopeSchema.parse(await raw[name](input));
      if (!envelope.ok) throw new ApiError(envelope.error.code, envelope.error.message);
      return contract[name].output.parse(envelope.value);
    };
    return [name, call];
  });
  return Object.fromEntries(entries) as Api;
}

export function httpTransport(token: string, fetchImpl: typeof fetch = fetch): RawApi {
  const entries = methodNames.map((name) => {
    const call = async (input: unknown) => {
      let response: Response;
      try {
        response = await fetchImpl(webApiPath(name), {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
          body: JSON.stringify(input),
        });
      } catch {
        throw new ApiError(
          'transport',
          'The app cannot reach its web server. Is `npm run web` still running?',
        );
      }
      return (await response.json()) as unknown;
    };
    return [name, call];
  });
  return Object.fromEntries(entries) as RawApi;
}

const TOKEN_KEY = 'cdc-admin.web-token';

/** A tab's web access: the token, or why there is none (a launch link used already). */
export interface WebAccess {
  token?: string;
  problem?: string;
}

/**
 * Web mode: the launch link's one-time code (in the fragment) exchanged once for the token, kept for
 * this tab; the address bar cleared at once. A tab that has its token keeps it across reloads.
 */
export async function webAccess(fetchImpl: typeof fetch = fetch): Promise<WebAccess> {
  const kept = sessionStorage.getItem(TOKEN_KEY) ?? undefined;
  const code = new URLSearchParams(window.location.hash.slice(1)).get(LAUNCH_CODE_PARAMETER);
  if (!code) return { token: kept };
  history.replaceState(null, '', window.location.pathname + window.location.search);
  let answer: unknown;
  try {
    const response = await fetchImpl(WEB_SESSION_PATH, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ code }),
    });
    answer = await response.json();
  } catch {
    return { token: kept, problem: 'The app cannot reach its web server. Is `npm run web` still running?' };
  }
  const envelope = envelopeSchema.safeParse(answer);
  if (envelope.success && envelope.data.ok) {
    const { token } = webSessionAnswerSchema.parse(envelope.data.value);
    sessionStorage.setItem(TOKEN_KEY, token);
    return { token };
  }
  if (kept) return { token: kept };
  return {
    problem:
      envelope.success && !envelope.data.ok ? envelope.data.error.message : 'The launch link was refused.',
  };
}

/** The desktop's API, or web mode's over HTTP once this tab has its token. */
export async function connectApi(): Promise<{ api?: Api; webToken?: string; problem?: string }> {
  if (window.api) return { api: createApi(window.api) };
  const { token, problem } = await webAccess();
  return token ? { api: createApi(httpTransport(token)), webToken: token } : { problem };
}
