import { realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/** The real path of `path`, following links in the part of it that exists (the rest as written). */
export function realPathOf(path: string): string {
  const absolute = resolve(path);
  try {
    return realpathSync(absolute);
  } catch {
    const parent = dirname(absolute);
    return parent === absolute ? absolute : join(realPathOf(parent), basename(absolute));
  }
}
