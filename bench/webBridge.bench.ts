import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLog } from '../main/platform/log';
import { startAppServices } from '../main/app/services';
import { startWebServer } from '../main/web/server';
import { measureLatency, type Benchmark } from './harness';

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
    try {
      return await measureLatency('web.validateAgentSection', () =>
        fetch(`${server.url}/api/validateAgentSection`, { method: 'POST', headers, body }),
      );
    } finally {
      await server.close();
      await app.close();
    }
  },
};
