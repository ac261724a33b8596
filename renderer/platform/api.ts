// The renderer's typed view of the contract. In Electron the preload provides `window.api`; in a browser
// the same calls go over HTTP with the per-launch token. Every answer is parsed before use.
import {
  contract,
  envelopeSchema,
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

/** Web mode: take the token from the URL fragment once, keep it for this tab, and clear the address bar. */
export function webToken(): string | undefined {
  const fromHash = new URLSearchParams(window.location.hash.slice(1)).get('token');
  if (fromHash) {
    sessionStorage.setItem(TOKEN_KEY, fromHash);
    history.replaceState(null, '', window.location.pathname + window.location.search);
    return fromHash;
  }
  return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
}

export function connectApi(): Api | undefined {
  if (window.api) return createApi(window.api);
  const token = webToken();
  return token ? createApi(httpTransport(token)) : undefined;
}
