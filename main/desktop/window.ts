// Window rules of the desktop shell, kept free of the electron import so tests can check them.
import { isAppUrl } from './appProtocol';

export function secureWebPreferences(preloadPath: string) {
  return {
    preload: preloadPath,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    experimentalFeatures: false,
    webviewTag: false,
    spellcheck: false,
    devTools: true,
  } as const;
}

/** The window shows the app's own bundle only; any other navigation (a link, a dropped URL) is refused. */
export const isAllowedNavigation = (target: string): boolean => isAppUrl(target);

/** Links out of the app open in the user's browser, and only https ones: never file:, smb: or custom schemes. */
export function isExternalLinkAllowed(target: string): boolean {
  try {
    return new URL(target).protocol === 'https:';
  } catch {
    return false;
  }
}
