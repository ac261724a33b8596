import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.{ts,tsx}', 'simulators/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Every HTTP answer of the run is searched for the secrets the requests carried.
    globalSetup: ['test/setup/secretScan.ts', 'test/setup/postgres.ts', 'test/setup/nats.ts'],
    setupFiles: ['test/setup/secretWatch.ts'],
    reporters: ['default', './test/setup/slowestFiles.ts'],
  },
});
