// The TCP connection to SQL Server, opened with Nagle's algorithm off, as Microsoft's SqlClient opens it
// (SNITcpHandle sets NoDelay). tedious leaves Nagle on, so the last segment of every request longer
// than one TDS packet waited for the server's delayed ACK: 40 ms on Linux, up to 200 ms on Windows,
// for each long permission or catalogue query.
import { lookup } from 'node:dns/promises';
import net from 'node:net';

/** Where tedious asks to connect: the server, or the one a routing answer names. */
interface ConnectTo {
  host?: string;
  port?: number;
  localAddress?: string;
}

/**
 * A tedious `connector`: each address of the host in turn, as tedious's own connector tries them; the
 * socket comes back connected and with TCP_NODELAY set. `signal` is tedious's connect timeout.
 */
export function connectWithoutDelay(host: string, port: number) {
  return async (to?: ConnectTo, _lookup?: unknown, signal?: AbortSignal): Promise<net.Socket> => {
    const name = to?.host ?? host;
    const addresses = net.isIP(name) ? [{ address: name }] : await lookup(name, { all: true });
    let lastError: unknown = new Error(`connect ENOTFOUND ${name}`);
    for (const { address } of addresses) {
      signal?.throwIfAborted();
      try {
        return await connectOnce({
          host: address,
          port: to?.port ?? port,
          localAddress: to?.localAddress,
          signal,
        });
      } catch (error) {
        signal?.throwIfAborted();
        lastError = error;
      }
    }
    throw lastError;
  };
}

function connectOnce(o: {
  host: string;
  port: number;
  localAddress?: string;
  signal?: AbortSignal;
}): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({
      host: o.host,
      port: o.port,
      noDelay: true,
      ...(o.localAddress !== undefined && { localAddress: o.localAddress }),
    });
    const settle = () => {
      o.signal?.removeEventListener('abort', onAbort);
      socket.removeListener('error', onError);
      socket.removeListener('connect', onConnect);
    };
    const onConnect = () => {
      settle();
      resolve(socket);
    };
    const onError = (error: Error) => {
      settle();
      socket.destroy();
      reject(error);
    };
    const onAbort = () => {
      settle();
      socket.destroy();
      reject(o.signal?.reason);
    };
    o.signal?.addEventListener('abort', onAbort, { once: true });
    socket.once('error', onError);
    socket.once('connect', onConnect);
  });
}
