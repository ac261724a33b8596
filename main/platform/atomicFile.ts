// Writes a file whole or not at all: a temporary file beside it, then a rename, readable by its owner only.
import { randomBytes } from 'node:crypto';
import { renameSync, writeFileSync } from 'node:fs';

export function writeFileAtomic(path: string, text: string): void {
  const tmp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, path);
}
