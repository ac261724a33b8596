import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLog } from '../main/log';
import { startAppServices } from '../main/services';
import { startWebServer } from '../main/web/server';
import { percentile, type Benchmark } from './harness';

const CALLS = 2000;

export const webBridgeBenchmark: Benchmark = {
  name: 'web bridge',
  run: async () => {
    const root = mkdtempSync(join(tmpdir(), 'cdc-bench-'));
    writeFileSync(join(root, 'index.html'), '');
    const app = await startAppServices({
      mode: 'web',
      appVersion: 'bench',
      dataDir: root,
      log: silentLog,
      enginePort: 0,
    });
    const server = await startWebServer({
      dispatch: app.dispatch,
      log: silentLog,
      staticRoot: root,
    });
    const body = JSON.stringify({
      agentType: 'change-tracking',
      section: 'hostCredentials',
      body: { connectionName: 'c', host: 'h', databaseName: 'd', username: 'u', password: 'p' },
    });
    const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${server.token}` };
    const times: number[] = [];
    try {
      for (let i = 0; i < CALLS + 200; i++) {
        const start = performance.now();
        const res = await fetch(`${server.url}/api/validateAgentSection`, { method: 'POST', headers, body });
        await res.arrayBuffer();
        if (i >= 200) times.push(performance.now() - start);
      }
    } finally {
      await server.close();
      await app.close();
    }
    times.sort((a, b) => a - b);
    const round = (n: number) => Math.round(n * 1000) / 1000;
    return [
      { name: 'web.validateAgentSection.p50', value: round(percentile(times, 50)), unit: 'ms' },
      { name: 'web.validateAgentSection.p99', value: round(percentile(times, 99)), unit: 'ms' },
    ];
  },
};
