// Which secret box the desktop app picks, and that each one seals and refuses as it should.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LogFields } from '../../../main/platform/log';
import { secretBoxForDesktop, type DesktopSafeStorage } from '../../../main/desktop/secretBox';

/** Stands in for Electron's safeStorage: reversible, and visibly so, to prove which box sealed. */
function fakeSafeStorage(available: boolean, backend: string): DesktopSafeStorage {
  return {
    isEncryptionAvailable: () => available,
    getSelectedStorageBackend: () => backend,
    encryptString: (plain) => Buffer.from('KEYCHAIN:' + plain),
    decryptString: (sealed) => sealed.toString().replace(/^KEYCHAIN:/, ''),
  };
}

function recorder() {
  const events: string[] = [];
  return {
    events,
    log: {
      info: () => undefined,
      warn: (e: string, f?: LogFields) => events.push(`${e} ${JSON.stringify(f)}`),
    },
  };
}

describe('desktop secret box', () => {
  it('uses the OS keychain through safeStorage when it protects secrets', async () => {
    const { log, events } = recorder();
    const box = secretBoxForDesktop(
      fakeSafeStorage(true, 'gnome_libsecret'),
      mkdtempSync(join(tmpdir(), 'cdc-sb-')),
      'linux',
      log,
    );
    const sealed = await box.seal('pw-1', 'agent:a');
    expect(Buffer.from(sealed.slice(4), 'base64').toString()).toMatch(/^KEYCHAIN:/);
    expect(await box.open(sealed, 'agent:a')).toBe('pw-1');
    await expect(box.open(sealed, 'agent:b')).rejects.toThrow(/moved to another owner/);
    expect(events).toEqual([]);
  });

  it.each([
    [false, 'gnome_libsecret', 'linux'],
    [true, 'basic_text', 'linux'],
  ])(
    'falls back to the key file, and says so, when available=%s backend=%s',
    async (available, backend, platform) => {
      const { log, events } = recorder();
      const box = secretBoxForDesktop(
        fakeSafeStorage(available, backend),
        mkdtempSync(join(tmpdir(), 'cdc-sb-')),
        platform,
        log,
      );
      const sealed = await box.seal('pw-2', 'agent:a');
      expect(sealed).toMatch(/^v1:/);
      expect(sealed).not.toContain('pw-2');
      expect(await box.open(sealed, 'agent:a')).toBe('pw-2');
      expect(events).toEqual([`secrets.keychain_unavailable {"backend":"${backend}","using":"key file"}`]);
    },
  );

  it('trusts safeStorage on Windows and macOS, where there is no backend to ask', async () => {
    const { log } = recorder();
    const box = secretBoxForDesktop(
      fakeSafeStorage(true, 'basic_text'),
      mkdtempSync(join(tmpdir(), 'cdc-sb-')),
      'win32',
      log,
    );
    expect(await box.seal('x', 'c')).toMatch(/^ss1:/);
  });
});
