// The desktop shell's wiring, checked without Electron: window options, navigation, IPC sender check, CSP.
import { describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY, CSP_HEADER } from '../../../main/platform/csp';
import type { Dispatch } from '../../../main/app/dispatch';
import { registerIpc, type IpcEventLike } from '../../../main/desktop/ipc';
import { watchedLog } from '../../setup/secretNotes';
import { isAllowedNavigation, secureWebPreferences } from '../../../main/desktop/window';
import { IPC_CHANNEL } from '../../../shared/ipc';

const home = 'app://bundle/index.html';

describe('window', () => {
  it('isolates the renderer', () => {
    expect(secureWebPreferences('/p/preload.cjs')).toMatchObject({
      preload: '/p/preload.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      webviewTag: false,
    });
  });

  it('allows only the renderer page itself', () => {
    expect(isAllowedNavigation(home)).toBe(true);
    expect(isAllowedNavigation(home + '#x')).toBe(true);
    expect(isAllowedNavigation('https://evil.example/')).toBe(false);
    expect(isAllowedNavigation('file:///etc/passwd')).toBe(false);
    expect(isAllowedNavigation('not a url')).toBe(false);
  });
});

// The sender check is under test here, not the handlers: the dispatcher only echoes the method.
const echoDispatch: Dispatch = async (method) => ({ ok: true, value: method });

describe('IPC', () => {
  function wire() {
    let listener: ((event: IpcEventLike, ...args: unknown[]) => Promise<unknown>) | undefined;
    let channel = '';
    registerIpc(
      { handle: (c, l) => ((channel = c), (listener = l)) },
      echoDispatch,
      isAllowedNavigation,
      watchedLog,
    );
    if (!listener) throw new Error('no handler registered');
    return { channel, call: listener };
  }

  it('serves the contract on one channel to the app window', async () => {
    const { channel, call } = wire();
    expect(channel).toBe(IPC_CHANNEL);
    expect(await call({ senderFrame: { url: home, parent: null } }, 'listAgentTypes', {})).toMatchObject({
      ok: true,
    });
  });

  it('refuses frames that are not the app window', async () => {
    const { call } = wire();
    for (const senderFrame of [
      null,
      { url: 'https://evil.example/', parent: null },
      { url: home, parent: {} },
    ]) {
      expect(await call({ senderFrame }, 'listAgentTypes', {})).toMatchObject({
        ok: false,
        error: { code: 'unauthorized' },
      });
    }
  });
});

describe('Content-Security-Policy', () => {
  it('allows only the app itself: no inline script, no eval, no remote content', () => {
    const directives = Object.fromEntries(
      CSP_HEADER.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]),
    );
    expect(directives['default-src']).toEqual(["'none'"]);
    expect(directives['script-src']).toEqual(["'self'"]);
    expect(directives['connect-src']).toEqual(["'self'"]);
    expect(directives['frame-ancestors']).toEqual(["'none'"]);
    expect(CSP_HEADER).not.toMatch(/unsafe-inline|unsafe-eval|\*|https?:/);
    expect(CONTENT_SECURITY_POLICY).not.toContain('frame-ancestors');
  });
});

describe('IPC input validation', () => {
  it('refuses a malformed call and logs it without the payload or its secrets', async () => {
    const { startTestApp } = await import('../../helpers/app');
    const app = await startTestApp();
    const lines: string[] = [];
    const log = {
      info: () => undefined,
      warn: (e: string, f?: object) => lines.push(`${e} ${JSON.stringify(f)}`),
    };
    let listener: ((event: IpcEventLike, ...args: unknown[]) => Promise<unknown>) | undefined;
    const { createDispatch } = await import('../../../main/app/dispatch');
    const { handlers } = await import('../../../main/app/handlers');
    registerIpc(
      { handle: (_c, l) => (listener = l) },
      createDispatch(handlers, app.deps, log),
      isAllowedNavigation,
      watchedLog,
    );
    const answer = await listener?.({ senderFrame: { url: home, parent: null } }, 'saveEngineProfile', {
      id: 'BAD ID',
      name: 'x',
      baseUrl: 'http://127.0.0.1:1',
      token: 'ipc-secret-token-123',
      extra: true,
    });
    expect(answer).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(JSON.stringify(answer)).not.toContain('ipc-secret-token-123');
    expect(lines).toEqual([
      expect.stringMatching(/^api\.invalid_input \{"method":"saveEngineProfile","paths":"\/id \/"\}$/),
    ]);
    await app.close();
  });
});
