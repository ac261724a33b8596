// Bundles the Electron main process and the preload into single CommonJS files (a sandboxed preload
// cannot load modules of its own). `electron` stays external: Electron provides it at run time.
import { build } from 'esbuild';

const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: true,
  external: ['electron'],
};
await build({ ...common, entryPoints: ['main/index.ts'], outfile: 'dist/main/index.cjs' });
await build({ ...common, entryPoints: ['main/preload.ts'], outfile: 'dist/main/preload.cjs' });
