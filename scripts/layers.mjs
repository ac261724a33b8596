// The layers of main/, declared once: what each folder may import (shared/ is open to all). The lint
// rule (eslint.config.js, "layers/direction") and test/unit/layers.test.ts both read this table, and
// docs/architecture.md shows it.
import { dirname, relative, resolve, sep } from 'node:path';

export const LAYERS = {
  // The entries register the sandbox with the app (loaded on demand: test/bundle checks the chunk).
  desktop: ['app', 'sandbox', 'platform'],
  web: ['app', 'sandbox', 'platform'],
  app: ['engine', 'client', 'runner', 'agents', 'sandbox', 'platform'],
  sandbox: ['agents', 'platform'],
  engine: ['runner', 'agents', 'platform'],
  client: ['platform'],
  runner: ['agents', 'platform'],
  agents: ['platform'],
  platform: [],
};

/** The folder of main/ a path is in, or undefined outside main/. */
export function layerOf(root, path) {
  const parts = relative(root, path).split(sep);
  return parts[0] === 'main' ? parts[1] : undefined;
}

/** Why `file` may not import `spec` (a relative specifier), or null when it may. */
export function layerViolation(root, file, spec) {
  if (spec === 'electron')
    return layerOf(root, file) === 'desktop' ? null : 'only main/desktop/ imports electron';
  if (!spec.startsWith('.')) return null;
  const from = layerOf(root, file);
  const to = layerOf(root, resolve(dirname(file), spec));
  if (!from || !to || from === to) return null;
  return (LAYERS[from] ?? []).includes(to)
    ? null
    : `main/${from}/ may not import main/${to}/ (scripts/layers.mjs)`;
}
