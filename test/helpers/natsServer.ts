// NATS servers of a test's own, from Debian's nats-server: one with JetStream, or a cluster of three on
// loopback ports, each in its own folder, each of which a drill can kill (SIGKILL) and start again on
// the same ports and store. The run's shared server is natsServers() (test/setup/nats.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NodeConnectionOptions } from '@nats-io/transport-node';
import { freePort } from './ports';

export const NATS_BINARY = '/usr/sbin/nats-server';
export const NATS_VARIABLE = 'CDC_TEST_NATS';

/** The servers every NATS test reaches: the machine's 127.0.0.1:4222, or the run's own. */
export const natsServers = (): string => process.env[NATS_VARIABLE] ?? '127.0.0.1:4222';

export function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

async function waitListening(port: number, what: string): Promise<void> {
  const end = Date.now() + 15_000;
  while (!(await listening(port))) {
    if (Date.now() > end) throw new Error(`${what} does not listen on ${port}.`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface NatsNode {
  port: number;
  /** The server's HTTP monitoring port (/connz, /jsz). */
  monitorPort: number;
  kill(): void;
  /** SIGSTOP: the process lives (its routes stay open) but answers nothing, as a server stalled. */
  freeze(): void;
  thaw(): void;
  start(): Promise<void>;
}

export interface NatsCluster {
  nodes: NatsNode[];
  /** `nats://127.0.0.1:p1,…` for a client. */
  servers: string;
  destroy(): void;
}

/** `size` servers with JetStream, clustered when more than one, in a new folder under `parent`. */
export async function startNatsCluster(
  size: number,
  parent = tmpdir(),
  options: { maxPayload?: number; config?: string; readyWith?: Partial<NodeConnectionOptions> } = {},
): Promise<NatsCluster> {
  const dir = mkdtempSync(join(parent, 'cdc-nats-'));
  const ports = await Promise.all(Array.from({ length: size }, () => freePort()));
  const routes = await Promise.all(Array.from({ length: size }, () => freePort()));
  const monitors = await Promise.all(Array.from({ length: size }, () => freePort()));
  const nodes: NatsNode[] = ports.map((port, i) => {
    const store = join(dir, `n${i}`);
    mkdirSync(store, { recursive: true });
    const conf = join(dir, `n${i}.conf`);
    const cluster =
      size > 1
        ? `cluster { name: cdc, listen: 127.0.0.1:${routes[i]}, routes: [${routes.map((r) => `nats-route://127.0.0.1:${r}`).join(', ')}] }`
        : '';
    writeFileSync(
      conf,
      `server_name: n${i}\nlisten: 127.0.0.1:${port}\nhttp: 127.0.0.1:${monitors[i]}\njetstream { store_dir: "${store}" }\n${options.maxPayload ? `max_payload: ${options.maxPayload}\n` : ''}${options.config ?? ''}\n${cluster}\n`,
    );
    let child: ChildProcess | undefined;
    const node: NatsNode = {
      port,
      monitorPort: monitors[i] ?? 0,
      kill: () => {
        child?.kill('SIGKILL');
        child = undefined;
      },
      freeze: () => child?.kill('SIGSTOP'),
      thaw: () => child?.kill('SIGCONT'),
      start: async () => {
        child = spawn(NATS_BINARY, ['-c', conf], { stdio: 'ignore' });
        await waitListening(port, `nats-server n${i}`);
      },
    };
    return node;
  });
  await Promise.all(nodes.map((n) => n.start()));
  const servers = ports.map((p) => `nats://127.0.0.1:${p}`).join(',');
  await jetStreamReady(servers, 30_000, options.readyWith);
  return {
    nodes,
    servers,
    destroy: () => {
      for (const n of nodes) n.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Waits until JetStream answers (a cluster first elects its meta leader). */
export async function jetStreamReady(
  servers: string,
  timeoutMs = 30_000,
  as?: Partial<NodeConnectionOptions>,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const nc = await connect({ servers: servers.split(','), timeout: 2000, ...as }).catch(() => undefined);
    try {
      if (nc) {
        await jetstreamManager(nc, { timeout: 2000 });
        return;
      }
    } catch (e) {
      if (Date.now() > end) throw e;
    } finally {
      await nc?.close();
    }
    if (Date.now() > end) throw new Error(`JetStream at ${servers} does not answer.`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Deletes a test's streams (one already gone is no failure): what each NATS suite does after all. */
export async function deleteStreams(servers: string, streams: readonly string[]): Promise<void> {
  const nc = await connect({ servers });
  try {
    const jsm = await jetstreamManager(nc);
    for (const s of streams) await jsm.streams.delete(s).catch(() => undefined);
  } finally {
    await nc.close();
  }
}
