// The engine's first database check: can a TCP connection reach the server's port at all?
import { connect } from 'node:net';
import type { CheckResult } from '../../shared/controlApi';

/** A TCP connection to the server's port: tells "unknown host", "refused" and "no answer" apart. */
export function reachabilityCheck(host: string, port: number, timeoutMs = 3000): Promise<CheckResult> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (result: CheckResult) => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(timeoutMs, () =>
      done({
        id: 'host-reachable',
        status: 'failed',
        message: `No answer from ${host}:${port} within ${timeoutMs / 1000} s.`,
        remedy: 'Check the host name, that the server runs, and that no firewall drops the port.',
      }),
    );
    socket.once('connect', () =>
      done({
        id: 'host-reachable',
        status: 'passed',
        message: `${host}:${port} accepts connections.`,
        remedy: null,
      }),
    );
    socket.once('error', (error: NodeJS.ErrnoException) => {
      const unknown = error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN';
      done({
        id: 'host-reachable',
        status: 'failed',
        message: unknown
          ? `The host name ${host} cannot be resolved.`
          : `${host}:${port} refused the connection (${error.code ?? 'error'}).`,
        remedy: unknown
          ? 'Check the spelling of the host, or use its IP address.'
          : 'Check the port and that the database server listens on it.',
      });
    });
  });
}
