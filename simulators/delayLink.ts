// A slow link for the simulated SQL Server (or any TCP server): a proxy on 127.0.0.1 that holds every
// chunk `oneWayMs` in each direction, in order. This kernel has no netem; a real server is 10–50 ms
// away, and an agent that talks to it in series pays that on every request.
import { createServer, connect, type Socket } from 'node:net';

export interface DelayLink {
  port: number;
  /** The delay each way; changed at any time, it holds for chunks sent from then on. */
  oneWayMs: number;
  /** Times the client spoke after hearing the server (or first): its requests in series. */
  readonly turns: number;
  /** Connections the link accepted (each a sign-on to a SQL Server), and those open now. */
  readonly connections: { accepted: number; open: number };
  close(): Promise<void>;
}

/** Writes chunks to `to` each `delay()` after it arrived, in arrival order, then ends it if asked. */
function delayedPipe(from: Socket, to: Socket, delay: () => number, onData: (c?: Buffer) => void): void {
  const queue: { due: number; chunk: Buffer }[] = [];
  let timer: NodeJS.Timeout | undefined;
  let ended = false;
  const flush = () => {
    timer = undefined;
    const now = performance.now();
    while (queue.length > 0 && (queue[0]?.due ?? 0) <= now) to.write(queue.shift()?.chunk ?? Buffer.alloc(0));
    const next = queue[0];
    if (next) timer = setTimeout(flush, Math.max(0, next.due - performance.now()));
    else if (ended) to.end();
  };
  from.on('data', (chunk: Buffer) => {
    onData(chunk);
    queue.push({ due: performance.now() + delay(), chunk });
    timer ??= setTimeout(flush, Math.max(0, (queue[0]?.due ?? 0) - performance.now()));
  });
  from.on('end', () => {
    ended = true;
    if (!timer) to.end();
  });
  from.on('error', () => to.destroy());
  from.on('close', () => {
    if (queue.length === 0 && !timer) to.end();
  });
}

export async function startDelayLink(
  target: { host?: string; port: number },
  oneWayMs: number,
): Promise<DelayLink> {
  const sockets = new Set<Socket>();
  let turns = 0;
  const connections = { accepted: 0, open: 0 };
  const link: DelayLink = {
    port: 0,
    oneWayMs,
    get turns() {
      return turns;
    },
    get connections() {
      return { ...connections };
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server = createServer((client) => {
    connections.accepted++;
    connections.open++;
    client.on('close', () => connections.open--);
    const upstream = connect(target.port, target.host ?? '127.0.0.1');
    let clientSpokeLast = false;
    for (const s of [client, upstream]) {
      s.setNoDelay(true);
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    }
    const delay = () => link.oneWayMs;
    delayedPipe(client, upstream, delay, () => {
      if (!clientSpokeLast) turns++;
      clientSpokeLast = true;
    });
    delayedPipe(upstream, client, delay, () => {
      clientSpokeLast = false;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  link.port = typeof address === 'object' && address ? address.port : 0;
  return link;
}
