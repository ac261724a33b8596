import { readdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import type { Benchmark } from './harness';

const ASSETS = new URL('../dist/renderer/assets/', import.meta.url);

export const bundleBenchmark: Benchmark = {
  name: 'renderer bundle',
  run: async () => {
    const files = readdirSync(ASSETS).filter((f) => /\.(js|css)$/.test(f));
    const contents = files.map((f) => readFileSync(new URL(f, ASSETS)));
    const raw = contents.reduce((n, b) => n + b.length, 0);
    const gzip = contents.reduce((n, b) => n + gzipSync(b).length, 0);
    return [
      { name: 'renderer.bundle.raw', value: raw, unit: 'bytes' },
      { name: 'renderer.bundle.gzip', value: gzip, unit: 'bytes' },
    ];
  },
};
