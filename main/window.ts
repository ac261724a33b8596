// Window and navigation rules of the desktop shell, kept free of the electron import so tests can check them.
export const RENDERER_ENTRY = 'index.html';

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
  } as const;
}

/** The renderer is loaded from disk; any other navigation (a link, a drag-and-dropped URL) is refused. */
export function isAllowedNavigation(target: string, rendererUrl: string): boolean {
  try {
    const url = new URL(target);
    const home = new URL(rendererUrl);
    return url.protocol === home.protocol && url.pathname === home.pathname;
  } catch {
    return false;
  }
}
