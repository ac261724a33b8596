// The renderer is served from a privileged custom scheme, app://bundle/, not file:// (Electron security
// checklist item 18): file:// pages get extra privileges, and a custom scheme lets the CSP travel as
// a response header. The handler is plain so it can be tested without Electron.
import { CSP_HEADER } from '../platform/csp';
import { readStatic } from '../platform/http/static';

export const APP_SCHEME = 'app';
export const APP_HOST = 'bundle';
export const RENDERER_URL = `${APP_SCHEME}://${APP_HOST}/index.html`;

/** True for URLs of the app's own bundle; anything else is foreign to the window. */
export function isAppUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === `${APP_SCHEME}:` && url.host === APP_HOST;
  } catch {
    return false;
  }
}

export interface AppResponse {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array<ArrayBuffer> | string;
}

export async function serveAppRequest(requestUrl: string, rendererRoot: string): Promise<AppResponse> {
  if (!isAppUrl(requestUrl))
    return { status: 404, headers: { 'Content-Type': 'text/plain' }, body: 'Not found' };
  const file = await readStatic(rendererRoot, new URL(requestUrl).pathname);
  if (!file)
    return { status: 404, headers: { 'Content-Type': 'text/plain' }, body: 'The renderer is not built.' };
  return {
    status: 200,
    headers: {
      'Content-Type': file.type,
      'Content-Security-Policy': CSP_HEADER,
      'X-Content-Type-Options': 'nosniff',
    },
    body: new Uint8Array(file.body),
  };
}
