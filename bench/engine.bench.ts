// Control API latency of the local engine: a credentials PUT (parse, seal, store) and an agent GET.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEngine } from '../main/engine/engine';
import { startEngineServer } from '../main/engine/server';
import { silentLog } from '../main/platform/log';
import { measureLatency, type Benchmark } from './harness';

export const engineBenchmark: Benchmark = {
  name: 'control API',
  run: async () => {
    const engine = openEngine({ dataDir: mkdtempSync(join(tmpdir(), 'cdc-bench-engine-')), log: silentLog });
    const server = await startEngineServer(engine.deps, { port: 0 });
    const headers = { Authorization: `Bearer ${engine.firstStartToken}`, 'Content-Type': 'application/json' };
    const agent = `${server.url}/pipelines/p/agents/a`;
    const body = JSON.stringify({
      hostCredentials: {
        connectionName: 'c',
        host: 'h',
        databaseName: 'd',
        username: 'u',
        password: 'p',
        port: 1433,
      },
    });
    await fetch(`${server.url}/pipelines`, { method: 'POST', headers, body: '{"id":"p","name":"p"}' });
    await fetch(`${server.url}/pipelines/p/agents`, {
      method: 'POST',
      headers,
      body: '{"id":"a","type":"change-tracking","role":"source"}',
    });
    try {
      return [
        ...(await measureLatency('engine.putCredentials', () =>
          fetch(`${agent}/config/credentials`, { method: 'PUT', headers, body }),
        )),
        ...(await measureLatency('engine.getAgent', () => fetch(agent, { headers }))),
      ];
    } finally {
      await server.close();
      engine.close();
    }
  },
};
