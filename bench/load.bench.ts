// Load: 50 pipelines configured on one engine, 10 of them running (simulated SQL Server → SQLite, the
// source changing all the while), and the control API's latency measured meanwhile. The simulated
// source runs in the same process, so the figure is an upper bound for a real setup.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEngine } from '../main/engine/engine';
import { startEngineServer } from '../main/engine/server';
import { silentLog } from '../main/log';
import { startSandboxSqlServer } from '../main/sandbox/mssql';
import { SEED_AGENT_LOGIN, SEED_DATABASE } from '../main/sandbox/mssql/seed';
import { measureLatency, type Benchmark } from './harness';
import sql from 'mssql';

const PIPELINES = 50;
const RUNNING = 10;

export const loadBenchmark: Benchmark = {
  name: 'control API under load',
  run: async () => {
    const sandbox = await startSandboxSqlServer({ seed: true });
    const engine = openEngine({ dataDir: mkdtempSync(join(tmpdir(), 'cdc-bench-load-')), log: silentLog });
    const server = await startEngineServer(engine.deps, { port: 0 });
    const headers = { Authorization: `Bearer ${engine.firstStartToken}`, 'Content-Type': 'application/json' };
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(server.url + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as Record<string, unknown>;
    };
    const credentials = {
      hostCredentials: {
        connectionName: 'Sales',
        host: '127.0.0.1',
        port: sandbox.port,
        databaseName: SEED_DATABASE,
        username: SEED_AGENT_LOGIN.name,
        password: SEED_AGENT_LOGIN.password,
        maxConnectionsCount: 2,
      },
    };
    const admin = await new sql.ConnectionPool({
      server: '127.0.0.1',
      port: sandbox.port,
      user: 'sa',
      password: 'Sandbox-Passw0rd',
      database: SEED_DATABASE,
      options: { encrypt: false },
      pool: { max: 1 },
    }).connect();
    let writing = true;
    try {
      for (let i = 0; i < PIPELINES; i++) {
        const agent = `/pipelines/lp${i}/agents/src`;
        await call('POST', '/pipelines', { id: `lp${i}`, name: `load ${i}` });
        await call('POST', `/pipelines/lp${i}/agents`, {
          id: 'src',
          type: 'change-tracking',
          role: 'source',
        });
        await call('PUT', `${agent}/config/credentials`, credentials);
        await call('PUT', `${agent}/config/specific`, { configuration: { sourceChangeRetentionDays: 2 } });
        await call('PUT', `/pipelines/lp${i}/entities`, {
          entities: ['Customers', 'Orders', 'OrderLines'].map((table) => ({
            source: { schema: 'dbo', table },
            target: { table: table.toLowerCase() },
          })),
        });
      }
      for (let i = 0; i < RUNNING; i++) await call('POST', `/pipelines/lp${i}/agents/src/start`);
      // The source keeps changing while the API is measured: the running pipelines keep reading.
      const writer = (async () => {
        let n = 0;
        while (writing) {
          await admin
            .request()
            .batch(`UPDATE dbo.Customers SET Email = 'load${n++}@example.com' WHERE CustomerId = 1`);
          await new Promise((r) => setTimeout(r, 50));
        }
      })();
      await new Promise((r) => setTimeout(r, 3000));
      const figures = [
        ...(await measureLatency('load.getPipeline', () =>
          fetch(`${server.url}/pipelines/lp0`, { headers }),
        )),
        ...(await measureLatency('load.putCredentials', () =>
          fetch(`${server.url}/pipelines/lp${RUNNING + 1}/agents/src/config/credentials`, {
            method: 'PUT',
            headers,
            body: JSON.stringify(credentials),
          }),
        )),
      ];
      writing = false;
      await writer;
      const running = await call('GET', '/pipelines/lp0');
      const state = (running.agents as { state: string }[])[0]?.state;
      if (state !== 'running') throw new Error(`pipeline lp0 is ${state} after the measurement`);
      figures.push({ name: 'load.rss', value: Math.round(process.memoryUsage().rss / 2 ** 20), unit: 'MiB' });
      return figures;
    } finally {
      writing = false;
      for (let i = 0; i < RUNNING; i++)
        await call('POST', `/pipelines/lp${i}/agents/src/stop`).catch(() => undefined);
      await admin.close();
      await server.close();
      await engine.close();
      await sandbox.close();
    }
  },
};
