// Which secret box the desktop app uses: the OS keychain through safeStorage where it really protects
// secrets; on Linux without a keyring (the "basic_text" backend) the key-file store instead.
import { join } from 'node:path';
import {
  KEY_FILE,
  keyFileSecretBox,
  safeStorageSecretBox,
  type SafeStorageLike,
  type SecretBox,
} from '../platform/secretBox';
import type { Log } from '../platform/log';

export interface DesktopSafeStorage extends SafeStorageLike {
  getSelectedStorageBackend?: () => string;
}

export function secretBoxForDesktop(
  safeStorage: DesktopSafeStorage,
  dataDir: string,
  platform: string,
  log: Log,
): SecretBox {
  const backend = platform === 'linux' ? safeStorage.getSelectedStorageBackend?.() : undefined;
  if (safeStorage.isEncryptionAvailable() && backend !== 'basic_text' && backend !== 'unknown') {
    return safeStorageSecretBox(safeStorage);
  }
  log.warn('secrets.keychain_unavailable', { backend: backend ?? 'none', using: 'key file' });
  return keyFileSecretBox(join(dataDir, KEY_FILE));
}
