// Bundles the Electron main process as ES modules, split into chunks so that code loaded on demand
// (the sandbox's simulators) stays out of the start-up chunk, and the preload as one CommonJS file (a
// sandboxed preload can neither load modules of its own nor be an ES module). Left outside the bundle:
// `electron` (Electron provides it) and native modules, which electron-builder rebuilds for Electron's
// ABI and ships unpacked.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

// Chunks are named by their hash: a stale one from an earlier build must not ship beside the new ones.
rmSync('dist/main', { recursive: true, force: true });

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
};
// Bundled CommonJS dependencies call require() and read __dirname: an ES module has neither, so each
// chunk gets its own, relative to the chunk's file (what they would see in a CommonJS bundle).
const commonJsGlobals = [
  "import { createRequire as __cdcRequire } from 'node:module';",
  "import { fileURLToPath as __cdcPath } from 'node:url';",
  'const require = __cdcRequire(import.meta.url);',
  'const __filename = __cdcPath(import.meta.url);',
  "const __dirname = __cdcPath(new URL('.', import.meta.url));",
].join('\n');

await build({
  ...common,
  entryPoints: { main: 'main/desktop/main.ts' },
  outdir: 'dist/main',
  format: 'esm',
  splitting: true,
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  banner: { js: commonJsGlobals },
  external: ['electron', 'better-sqlite3', 'odbc', 'pg-native'],
});
await build({
  ...common,
  entryPoints: ['main/desktop/preload.ts'],
  outfile: 'dist/main/preload.cjs',
  format: 'cjs',
  external: ['electron'],
});
