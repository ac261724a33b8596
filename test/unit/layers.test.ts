// The direction of imports between main/'s folders, as VS Code checks its layers: each folder names the
// folders it may import (besides itself and shared/). Type-only imports count too: a type from a
// higher layer is a dependency all the same. Only desktop/ imports electron.
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ESLint } from 'eslint';
import { sourceFiles } from '../helpers/sources';
// @ts-expect-error: a plain ES module script, typed by its use here.
import { LAYERS as TABLE } from '../../scripts/layers.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));

// The table is scripts/layers.mjs's, which the lint rule "layers/direction" reads as well.
const LAYERS = TABLE as Record<string, readonly string[]>;

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

  it('is a lint error too, in each area: main/ upwards, the renderer or shared/ into main/', async () => {
    const eslint = new ESLint({ cwd: root });
    const planted: [string, string][] = [
      ['main/agents/planted.ts', "import { runnerRuntime } from '../runner/runtime';\nvoid runnerRuntime;\n"],
      ['main/runner/planted.ts', "export type { Repo } from '../engine/store/repo';\n"],
      ['main/platform/planted.ts', "export const later = () => import('../app/handlers');\n"],
      [
        'renderer/planted.ts',
        "import { agentsRuntime } from '../main/engine/agentRuntime';\nvoid agentsRuntime;\n",
      ],
      [
        'shared/planted.ts',
        "import type { Repo } from '../main/engine/store/repo';\nexport type R = Repo;\n",
      ],
    ];
    for (const [file, text] of planted) {
      const [result] = await eslint.lintText(text, { filePath: join(root, file) });
      const messages = (result?.messages ?? []).map((m) => `${m.ruleId}: ${m.message}`);
      expect(
        messages.some((m) => /^(layers\/direction|no-restricted-imports)/.test(m)),
        file,
      ).toBe(true);
    }
  });
});
