// Bundles the Electron main process and the preload into single CommonJS files (a sandboxed preload
// cannot load modules of its own). Left outside the bundle: `electron` (Electron provides it) and
// native modules, which electron-builder rebuilds for Electron's ABI and ships unpacked.
import { build } from 'esbuild';

const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
};
await build({
  ...common,
  entryPoints: ['main/index.ts'],
  outfile: 'dist/main/index.cjs',
  external: ['electron', 'better-sqlite3', 'odbc', 'pg-native'],
});
await build({
  ...common,
  entryPoints: ['main/preload.ts'],
  outfile: 'dist/main/preload.cjs',
  external: ['electron'],
});
