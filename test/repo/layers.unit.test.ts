// The direction of imports between folders, as VS Code checks its layers: each folder of main/,
// renderer/, shared/ and simulators/ names the folders it may import (besides itself and shared/).
// Type-only imports count too: a type from a higher layer is a dependency all the same.
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ESLint } from 'eslint';
import { areaSources, staticImports } from '../helpers/sources';
import { LAYERS, layerOf, layerViolation } from '../../scripts/layers.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));

const sources = areaSources(root);

/** Every module specifier a file names: static imports and exports, type-only ones, and import(). */
function specifiers(text: string): string[] {
  const dynamic = [...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1] ?? '');
  return [...staticImports(text), ...dynamic];
}

function violations(files: { path: string; text: string }[]): string[] {
  return files.flatMap(({ path, text }) =>
    specifiers(text).flatMap((spec) => {
      const why = layerViolation(root, path, spec);
      return why ? [`${relative(root, path)} → ${spec}: ${why}`] : [];
    }),
  );
}

describe('layers', () => {
  it('names every folder that holds source, sub-folders included, and nothing else', () => {
    const folders = new Set(sources.map((f) => relative(root, dirname(f)).split('\\').join('/')));
    const folderKeys = Object.keys(LAYERS).filter((k) => !k.endsWith('.ts'));
    expect([...folders].filter((f) => !folderKeys.includes(f))).toEqual([]);
    expect(folderKeys.filter((k) => !folders.has(k))).toEqual([]);
    for (const file of sources) expect(layerOf(root, file), file).toBeDefined();
  });

  it('lets each folder import only what the table allows', () => {
    const files = sources.map((path) => ({ path, text: readFileSync(path, 'utf8') }));
    expect(violations(files)).toEqual([]);
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
    expect(violations([planted])).toEqual([
      'main/engine/planted.ts → ../app/handlers: main/engine/ may not import main/app/ (scripts/layers.mjs)',
      'main/engine/planted.ts → ../sandbox/mode: main/engine/ may not import main/sandbox/ (scripts/layers.mjs)',
      'main/engine/planted.ts → electron: only main/desktop/ imports electron',
      'main/engine/planted.ts → ../desktop/window: main/engine/ may not import main/desktop/ (scripts/layers.mjs)',
    ]);
  });

  it('keeps the simulators and lib/ below main/: none of their files imports main/', () => {
    const below = sources.filter((f) => /^(simulators|lib)\//.test(relative(root, f).split('\\').join('/')));
    const upward = below.flatMap((path) =>
      specifiers(readFileSync(path, 'utf8'))
        .filter((spec) => spec.startsWith('.'))
        .filter((spec) => layerOf(root, join(dirname(path), spec))?.startsWith('main/'))
        .map((spec) => `${relative(root, path)} → ${spec}`),
    );
    expect(below.length).toBeGreaterThan(50);
    expect(upward).toEqual([]);
  });

  // One planted upward import per area, sub-folders included, each refused by ESLint as it lints.
  const planted: [string, string][] = [
    ['main/agents/planted.ts', "import { runnerRuntime } from '../runner/runtime';\nvoid runnerRuntime;\n"],
    ['main/agents/journal/planted.ts', "export type { Target } from '../postgresql/target';\n"],
    ['main/runner/planted.ts', "export type { Repo } from '../engine/store/repo';\n"],
    ['main/engine/store/planted.ts', "export type { Engine } from '../engine';\n"],
    ['main/platform/planted.ts', "export const later = () => import('../app/handlers');\n"],
    ['main/app/planted.ts', "export { startSandboxIbmi } from '../../simulators/ibmi';\n"],
    [
      'renderer/planted.ts',
      "import { agentsRuntime } from '../main/engine/agentRuntime';\nvoid agentsRuntime;\n",
    ],
    ['renderer/store/planted.ts', "export { SchemaForm } from '../ui/SchemaForm';\n"],
    ['renderer/ui/planted.ts', "export { AgentWizard } from '../wizard/AgentWizard';\n"],
    ['shared/planted.ts', "import type { Repo } from '../main/engine/store/repo';\nexport type R = Repo;\n"],
    ['shared/config/planted.ts', "export { agentTypes } from '../agents';\n"],
    ['simulators/mssql/tds/planted.ts', "export { runBatch } from '../tsql/database';\n"],
    ['simulators/mssql/tds/dataTypes/planted.ts', "export { startTdsServer } from '../server';\n"],
    ['simulators/ibmi/system/planted.ts', "export { runCommand } from '../cl/commands';\n"],
    ['simulators/ibmi/planted.ts', "export { openEngine } from '../../main/engine/engine';\n"],
    ['lib/ibmi/planted.ts', "export { startSandboxIbmi } from '../../simulators/ibmi';\n"],
  ];
  it.each(planted)('is a lint error: %s', async (file, text) => {
    const eslint = new ESLint({ cwd: root });
    const [result] = await eslint.lintText(text, { filePath: join(root, file) });
    const messages = (result?.messages ?? []).map((m) => `${m.ruleId}: ${m.message}`);
    expect(messages.filter((m) => m.startsWith('layers/direction'))).toHaveLength(1);
  });
});
