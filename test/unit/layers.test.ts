// The direction of imports between main/'s folders, as VS Code checks its layers: each folder names the
// folders it may import (besides itself and shared/). Type-only imports count too: a type from a
// higher layer is a dependency all the same. Only desktop/ imports electron.
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../helpers/sources';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** What each folder of main/ may import; README's "Layout" section says the same in words. */
const LAYERS: Record<string, readonly string[]> = {
  // The entries register the sandbox with the app (loaded on demand: test/bundle checks the chunk).
  desktop: ['app', 'sandbox', 'platform'],
  web: ['app', 'sandbox', 'platform'],
  app: ['engine', 'client', 'runner', 'connectors', 'sandbox', 'platform'],
  sandbox: ['connectors', 'platform'],
  engine: ['runner', 'connectors', 'platform'],
  client: ['platform'],
  runner: ['connectors', 'platform'],
  connectors: ['platform'],
  platform: [],
};

/** Every module specifier a file names: static imports and exports, type-only ones, and import(). */
function specifiers(text: string): string[] {
  const found = [...text.matchAll(/^(?:import|export)\s(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm)].map(
    (m) => m[1] ?? '',
  );
  for (const m of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push(m[1] ?? '');
  return found;
}

const folderOf = (path: string): string | undefined => {
  const parts = relative(root, path).split(/[\\/]/);
  return parts[0] === 'main' ? parts[1] : parts[0];
};

function layerViolations(files: { path: string; text: string }[]): string[] {
  const wrong: string[] = [];
  for (const { path: file, text } of files) {
    const from = folderOf(file) ?? '';
    for (const spec of specifiers(text)) {
      if (spec === 'electron' && from !== 'desktop') wrong.push(`${relative(root, file)} imports electron`);
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(file), spec);
      const to = folderOf(target);
      if (!to || to === from || to === 'shared') continue;
      if (!relative(root, target).startsWith('main')) continue;
      if (!(LAYERS[from] ?? []).includes(to))
        wrong.push(`${relative(root, file)} → ${spec} (${from} may not import ${to})`);
    }
  }
  return wrong;
}

describe('layers of main/', () => {
  const files = sourceFiles(join(root, 'main')).map((path) => ({ path, text: readFileSync(path, 'utf8') }));

  it('has only the folders the table names, each file in one of them', () => {
    const folders = new Set(files.map((f) => folderOf(f.path)));
    expect([...folders].sort()).toEqual(Object.keys(LAYERS).sort());
  });

  it('imports only downwards', () => {
    expect(layerViolations(files)).toEqual([]);
  });

  it('names an upward import, a type-only one, a dynamic one and electron outside desktop/', () => {
    const planted = {
      path: join(root, 'main', 'engine', 'planted.ts'),
      text: [
        "import { handlers } from '../app/handlers';",
        "import type { SandboxMode } from '../sandbox/mode';",
        "const later = () => import('../desktop/window');",
        "import { app } from 'electron';",
        "import { problem } from '../platform/problem';",
      ].join('\n'),
    };
    expect(layerViolations([planted])).toEqual([
      'main/engine/planted.ts → ../app/handlers (engine may not import app)',
      'main/engine/planted.ts → ../sandbox/mode (engine may not import sandbox)',
      'main/engine/planted.ts imports electron',
      'main/engine/planted.ts → ../desktop/window (engine may not import desktop)',
    ]);
  });
});
