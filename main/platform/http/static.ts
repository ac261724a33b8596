import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.map': 'application/json',
  '.woff2': 'font/woff2',
};

/** Reads a file of the built renderer; anything outside its folder or unknown falls back to index.html. */
export async function readStatic(
  root: string,
  urlPath: string,
): Promise<{ body: Buffer; type: string } | undefined> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  const candidate = normalize(join(root, decoded));
  const inside = candidate.startsWith(root.endsWith(sep) ? root : root + sep);
  const file = inside && (await isFile(candidate)) ? candidate : join(root, 'index.html');
  if (!(await isFile(file))) return undefined;
  return { body: await readFile(file), type: TYPES[extname(file)] ?? 'application/octet-stream' };
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
