// Control API latency of the local engine: a credentials PUT (parse, seal, store) and an agent GET.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEngine } from '../main/engine/engine';
import { startEngineServer } from '../main/engine/server';
import { silentLog } from '../main/log';
import { percentile, type Benchmark, type Figure } from './harness';

const CALLS = 2000;

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
    const measure = async (name: string, request: () => Promise<Response>): Promise<Figure[]> => {
      const times: number[] = [];
      for (let i = 0; i < CALLS + 200; i++) {
        const start = performance.now();
        const res = await request();
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${name} answered ${res.status}`);
        if (i >= 200) times.push(performance.now() - start);
      }
      times.sort((a, b) => a - b);
      const round = (n: number) => Math.round(n * 1000) / 1000;
      return [
        { name: `engine.${name}.p50`, value: round(percentile(times, 50)), unit: 'ms' },
        { name: `engine.${name}.p99`, value: round(percentile(times, 99)), unit: 'ms' },
      ];
    };
    try {
      return [
        ...(await measure('putCredentials', () =>
          fetch(`${agent}/config/credentials`, { method: 'PUT', headers, body }),
        )),
        ...(await measure('getAgent', () => fetch(agent, { headers }))),
      ];
    } finally {
      await server.close();
      engine.close();
    }
  },
};
