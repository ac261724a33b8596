// Import cycles among modules that run code at load time break in some load orders only (a schema
// read before it is defined), and a loop of type imports is still a knot a reader must untie at once:
// no file reaches itself through imports of any kind, in any area.
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { areaSources, staticImports } from '../helpers/sources';

const root = fileURLToPath(new URL('../..', import.meta.url));

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const spec of staticImports(text).filter((s) => s.startsWith('.'))) {
    const base = resolve(dirname(file), spec);
    const target = [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((p) => {
      try {
        return statSync(p).isFile();
      } catch {
        return false;
      }
    });
    if (target) found.push(target);
  }
  return found;
}

describe('module graph', () => {
  it('has no import cycles in main/, renderer/, shared/ or simulators/, type imports counted', () => {
    const files = areaSources(root);
    const graph = new Map(files.map((f) => [f, importsOf(f)]));
    const cycles: string[] = [];
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'visiting') {
        cycles.push([...path.slice(path.indexOf(file)), file].map((f) => relative(root, f)).join(' → '));
        return;
      }
      state.set(file, 'visiting');
      for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of files) visit(file, []);
    expect(cycles).toEqual([]);
  });
});
