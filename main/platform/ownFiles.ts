// The engine's own files (its store, keys, logs, TLS, diagnostics: everything in its data folder but the
// replicas) are never a replica's file. Compared by real path, so a symbolic link is followed, and by
// device and inode, so a hard link elsewhere is the same file.
import { readdirSync, statSync, type Stats } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { REPLICAS_FOLDER } from './dataDir';
import { realPathOf } from './realPath';

const inside = (folder: string, path: string) => {
  const r = relative(folder, path);
  return r === '' || (!r.startsWith('..') && !isAbsolute(r));
};

const statOf = (path: string): Stats | undefined => {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
};

/** Every file below `folder`, the replicas folder left out. */
function filesBelow(folder: string, skip: string): string[] {
  let entries;
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const path = join(folder, entry.name);
    if (path === skip) return [];
    return entry.isDirectory() ? filesBelow(path, skip) : [path];
  });
}

/** Why `file` is one of the engine's own files, in words; null when it is not. */
export function ownFileClash(
  deps: { dataDir: string; ownFiles?: readonly string[] },
  file: string,
): string | null {
  const dataDir = realPathOf(deps.dataDir);
  const replicas = join(dataDir, REPLICAS_FOLDER);
  const real = realPathOf(file);
  if (inside(dataDir, real) && !inside(replicas, real))
    return `is in the engine's data folder (${real}), beside its store, keys and logs; only its ${REPLICAS_FOLDER} folder holds replicas`;
  for (const own of deps.ownFiles ?? [])
    if (realPathOf(own) === real) return `is the engine's own file ${own}`;
  const stats = statOf(real);
  if (!stats) return null;
  const same = [...filesBelow(dataDir, replicas), ...(deps.ownFiles ?? [])].find((own) => {
    const s = statOf(own);
    return s !== undefined && s.dev === stats.dev && s.ino === stats.ino;
  });
  return same ? `is the engine's own file ${same} (the same file by device and inode: a hard link)` : null;
}
