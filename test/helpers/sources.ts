// The TypeScript files below a folder, for tests that read the project's own sources.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

/** The shipped sources of main/, renderer/, shared/, simulators/ and lib/, their tests left out. */
export function areaSources(root: string): string[] {
  return ['main', 'renderer', 'shared', 'simulators', 'lib']
    .flatMap((area) => sourceFiles(join(root, area)))
    .filter((file) => !/[\\/]test[\\/]/.test(relative(root, file)));
}

/** The module specifiers of a file's static imports and exports, type-only ones included. */
export function staticImports(text: string): string[] {
  return [...text.matchAll(/^(?:import|export)\s(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm)].map(
    (m) => m[1] ?? '',
  );
}
