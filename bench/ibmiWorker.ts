// A simulated IBM i in a worker thread of its own, answering the IbmiConnection calls ibmiThread.ts
// sends: the simulator's SQLite work runs beside the bench's thread, not on it.
import { parentPort } from 'node:worker_threads';
import type { IbmiConnection, IbmiValue } from '../lib/ibmi/connection';
import { IbmiError } from '../lib/ibmi/connection';
import { startSandboxIbmi } from '../simulators/ibmi';

export type IbmiCall =
  | { id: number; op: 'connect'; user: string; password: string; defaultLibrary?: string }
  | { id: number; op: 'query'; conn: number; sql: string; params: IbmiValue[] }
  | { id: number; op: 'command'; conn: number; cl: string }
  | { id: number; op: 'begin' | 'close'; conn: number }
  | { id: number; op: 'end'; conn: number; commit: boolean }
  /** The standing link delay set, when given (simulatedIbmi.ts); answers the statements so far. */
  | { id: number; op: 'link'; delayMs?: number };

export type IbmiAnswer =
  { id: number; ok: true; value: unknown } | { id: number; ok: false; messageId?: string; message: string };

const sandbox = await startSandboxIbmi({ seed: true });
const connections = new Map<number, IbmiConnection>();
/** Per connection in a transaction: how its work ends (commit, or rollback with a reason). */
const ends = new Map<number, (commit: boolean) => void>();
let next = 0;

async function answer(call: IbmiCall): Promise<unknown> {
  if (call.op === 'link') {
    if (call.delayMs !== undefined) sandbox.system.linkDelayMs = call.delayMs;
    return sandbox.system.requests;
  }
  if (call.op === 'connect') {
    const c = await sandbox.connect(call);
    connections.set(++next, c);
    return next;
  }
  const c = connections.get(call.conn);
  if (!c) throw new Error('The connection to the simulated IBM i is closed.');
  switch (call.op) {
    case 'query':
      return c.query(call.sql, call.params);
    case 'command':
      return c.command(call.cl);
    case 'begin': {
      // The transaction stays open until 'end': its statements come as the connection's own calls.
      let opened!: () => void;
      const ready = new Promise<void>((resolve) => (opened = resolve));
      void c
        .transaction(
          () =>
            new Promise<void>((resolve, reject) => {
              ends.set(call.conn, (commit) => (commit ? resolve() : reject(new Error('rolled back'))));
              opened();
            }),
        )
        .catch(() => undefined);
      return ready;
    }
    case 'end': {
      ends.get(call.conn)?.(call.commit);
      ends.delete(call.conn);
      // The commit runs on a later turn; the next call on this connection waits for it there.
      await new Promise((resolve) => setImmediate(resolve));
      return null;
    }
    case 'close':
      connections.delete(call.conn);
      return c.close();
  }
}

parentPort?.postMessage({ host: sandbox.host });
parentPort?.on('message', (call: IbmiCall) => {
  answer(call).then(
    (value) => parentPort?.postMessage({ id: call.id, ok: true, value } satisfies IbmiAnswer),
    (error: unknown) =>
      parentPort?.postMessage({
        id: call.id,
        ok: false,
        messageId: error instanceof IbmiError ? error.messageId : undefined,
        message:
          error instanceof IbmiError
            ? error.message.slice(error.messageId.length + 2)
            : (error as Error).message,
      } satisfies IbmiAnswer),
  );
});
