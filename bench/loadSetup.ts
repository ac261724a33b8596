// One engine with many pipelines, some running against a simulated SQL Server whose rows keep
// changing: the setting of the load benchmark and of the soak. The simulated SQL Server runs in a
// process of its own, as a real one would: the engine's event loop carries only the engine's work.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sql from 'mssql';
import { openEngine } from '../main/engine/engine';
import { startEngineServer } from '../main/engine/server';
import { silentLog } from '../main/platform/log';
import { SEED_AGENT_LOGIN, SEED_DATABASE } from '../simulators/mssql/seed';

export interface Load {
  url: string;
  headers: Record<string, string>;
  /** A credentials body for one of the pipelines that does not run. */
  credentials: object;
  call(method: string, path: string, body?: unknown): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/** `npm run sandbox -- mssql` as a child process; answers its port once it listens. */
async function startSandboxProcess(): Promise<{ port: number; child: ChildProcess }> {
  const cli = new URL('../main/sandbox/cli.ts', import.meta.url).pathname;
  const child = spawn(process.execPath, ['--import', 'tsx', cli, 'mssql'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let seen = '';
  for await (const chunk of child.stdout ?? []) {
    seen += String(chunk);
    const port = /listening on 127\.0\.0\.1:(\d+)/.exec(seen)?.[1];
    if (port) return { port: Number(port), child };
  }
  throw new Error(`The simulated SQL Server did not start: ${seen}`);
}

export async function startLoad(pipelines: number, running: number): Promise<Load> {
  const sandbox = await startSandboxProcess();
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
  for (let i = 0; i < pipelines; i++) {
    const agent = `/pipelines/lp${i}/agents/src`;
    await call('POST', '/pipelines', { id: `lp${i}`, name: `load ${i}` });
    await call('POST', `/pipelines/lp${i}/agents`, { id: 'src', type: 'change-tracking', role: 'source' });
    await call('PUT', `${agent}/config/credentials`, credentials);
    await call('PUT', `${agent}/config/specific`, { configuration: { sourceChangeRetentionDays: 2 } });
    await call('PUT', `/pipelines/lp${i}/entities`, {
      entities: ['Customers', 'Orders', 'OrderLines'].map((table) => ({
        source: { schema: 'dbo', table },
        target: { table: table.toLowerCase() },
      })),
    });
  }
  for (let i = 0; i < running; i++) await call('POST', `/pipelines/lp${i}/agents/src/start`);
  const admin = await new sql.ConnectionPool({
    server: '127.0.0.1',
    port: sandbox.port,
    user: 'sa',
    password: 'Sandbox-Passw0rd',
    database: SEED_DATABASE,
    options: { encrypt: false },
    pool: { max: 1 },
  }).connect();
  // The source keeps changing: the running pipelines keep reading and writing.
  let writing = true;
  const writer = (async () => {
    let n = 0;
    while (writing) {
      await admin
        .request()
        .batch(`UPDATE dbo.Customers SET Email = 'load${n++}@example.com' WHERE CustomerId = 1`);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return {
    url: server.url,
    headers,
    credentials,
    call,
    close: async () => {
      writing = false;
      await writer;
      for (let i = 0; i < running; i++)
        await call('POST', `/pipelines/lp${i}/agents/src/stop`).catch(() => undefined);
      await admin.close();
      await server.close();
      await engine.close();
      const exited = once(sandbox.child, 'exit');
      sandbox.child.kill('SIGTERM');
      await exited;
    },
  };
}
