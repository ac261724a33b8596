// Secrets at rest. The desktop app seals with Electron's safeStorage (the OS keychain); web mode and the
// headless engine with AES-256-GCM under a key file readable by its owner only. The interface is async
// because Electron is moving safeStorage to async calls.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync, writeSync } from 'node:fs';

export interface SecretBox {
  /** `context` binds the ciphertext to its owner (e.g. an agent), so it cannot be moved to another row. */
  seal(plain: string, context: string): Promise<string>;
  open(sealed: string, context: string): Promise<string>;
}

const KEY_BYTES = 32;

/** Reads the key file, creating it (mode 0600) on first use; refuses one that others can read. */
export function loadOrCreateKey(path: string): Buffer {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
    const key = randomBytes(KEY_BYTES);
    writeSync(fd, key);
    closeSync(fd);
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  fd = openSync(path, 'r');
  try {
    const mode = fstatSync(fd).mode & 0o777;
    if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
      throw new Error(
        `The key file ${path} can be read by other users (mode ${mode.toString(8)}); run: chmod 600 ${path}`,
      );
    }
    const key = readFileSync(fd);
    if (key.length !== KEY_BYTES)
      throw new Error(`The key file ${path} is damaged: expected ${KEY_BYTES} bytes.`);
    return key;
  } finally {
    closeSync(fd);
  }
}

/** The key file's name in a data folder, where safeStorage does not keep the key. */
export const KEY_FILE = 'secrets.key';

export function keyFileSecretBox(keyPath: string): SecretBox {
  const key = loadOrCreateKey(keyPath);
  return {
    seal: async (plain, context) => {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(context));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return 'v1:' + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
    },
    open: async (sealed, context) => {
      if (!sealed.startsWith('v1:')) throw new Error('Unknown secret format.');
      const raw = Buffer.from(sealed.slice(3), 'base64');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}

/** The slice of Electron's safeStorage used here; injected so this file never imports electron. */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plain: string): Buffer;
  decryptString(sealed: Buffer): string;
}

export function safeStorageSecretBox(safeStorage: SafeStorageLike): SecretBox {
  // safeStorage has no associated data: the context is sealed with the secret and checked on open.
  return {
    seal: async (plain, context) =>
      'ss1:' + safeStorage.encryptString(JSON.stringify([context, plain])).toString('base64'),
    open: async (sealed, context) => {
      if (!sealed.startsWith('ss1:')) throw new Error('Unknown secret format.');
      const [owner, plain] = JSON.parse(
        safeStorage.decryptString(Buffer.from(sealed.slice(4), 'base64')),
      ) as [string, string];
      if (owner !== context) throw new Error('A sealed secret was moved to another owner.');
      return plain;
    },
  };
}
