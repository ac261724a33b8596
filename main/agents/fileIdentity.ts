// Which file a path names, as the operating system sees it: the same device and inode however it is
// reached (a hard link, a symbolic link, `..`); the real path for a file not made yet.
import { statSync } from 'node:fs';
import { realPathOf } from '../platform/realPath';

export function fileIdentity(path: string): string {
  const real = realPathOf(path);
  try {
    const s = statSync(real);
    return `inode:${s.dev}:${s.ino}`;
  } catch {
    return `path:${real}`;
  }
}
