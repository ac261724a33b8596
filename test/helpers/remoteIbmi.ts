// The simulated IBM i reached from another process: the test process keeps the system (so it outlives
// a runner killed with SIGKILL, as a real IBM i outlives its client), and a child process reaches it
// through the IbmiConnection interface over Node's IPC channel. A child that dies leaves its jobs'
// uncommitted work rolled back, as the host server does when a client disappears.
import type { ChildProcess } from 'node:child_process';
import { IbmiError, type IbmiConnection, type IbmiRow, type IbmiValue } from '../../lib/ibmi/connection';
import { registerInProcessIbmi } from '../../lib/ibmi/inProcess';
import type { SandboxIbmi } from '../../simulators/ibmi';

type Request =
  | { op: 'connect'; user: string; password: string }
  | { op: 'query'; conn: number; tx?: number; sql: string; params: IbmiValue[] }
  | { op: 'command'; conn: number; tx?: number; cl: string }
  | { op: 'begin'; conn: number }
  | { op: 'end'; tx: number; commit: boolean }
  | { op: 'close'; conn: number };
type Reply =
  { id: number; ok: true; value: unknown } | { id: number; ok: false; message: string; messageId?: string };

/** Bytes cross the channel as Uint8Array; the drivers hand Buffers. */
const buffers = (rows: IbmiRow[]): IbmiRow[] =>
  rows.map((r) => {
    for (const [k, v] of Object.entries(r))
      if (v instanceof Uint8Array && !Buffer.isBuffer(v)) r[k] = Buffer.from(v);
    return r;
  });

/** Parent side: answers the child's requests against `sandbox` until the child exits. */
export function serveIbmi(child: ChildProcess, sandbox: SandboxIbmi): void {
  const conns = new Map<number, IbmiConnection>();
  const txs = new Map<number, { tx: IbmiConnection; end: (commit: boolean) => void; done: Promise<void> }>();
  let next = 0;
  const on = (conn: number, tx?: number): IbmiConnection => {
    const c = tx !== undefined ? txs.get(tx)?.tx : conns.get(conn);
    if (!c) throw new Error('The connection is closed.');
    return c;
  };
  const handle = async (m: Request): Promise<unknown> => {
    switch (m.op) {
      case 'connect': {
        const c = await sandbox.connect({ user: m.user, password: m.password });
        conns.set(++next, c);
        return next;
      }
      case 'query':
        return on(m.conn, m.tx).query(
          m.sql,
          m.params.map((p) => (p instanceof Uint8Array ? Buffer.from(p) : p)),
        );
      case 'command':
        return on(m.conn, m.tx).command(m.cl);
      case 'begin': {
        const id = ++next;
        let end: (commit: boolean) => void = () => undefined;
        const decided = new Promise<boolean>((resolve) => (end = resolve));
        const ready = new Promise<IbmiConnection>((resolve, reject) => {
          const done = on(m.conn).transaction(async (tx) => {
            resolve(tx);
            if (!(await decided)) throw new Error('rolled back');
          });
          done.catch(reject);
          txs.set(id, { tx: undefined as unknown as IbmiConnection, end, done });
        });
        const entry = txs.get(id);
        if (entry) entry.tx = await ready;
        return id;
      }
      case 'end': {
        const t = txs.get(m.tx);
        txs.delete(m.tx);
        if (!t) return null;
        t.end(m.commit);
        await t.done.catch((error: unknown) => {
          if (m.commit) throw error;
        });
        return null;
      }
      case 'close': {
        await conns.get(m.conn)?.close();
        conns.delete(m.conn);
        return null;
      }
    }
  };
  // A child killed while its answer is on the way: the answer has no one to go to (EPIPE).
  const reply = (message: Reply) => {
    if (child.connected) child.send(message, () => undefined);
  };
  child.on('error', () => undefined);
  child.on('message', (raw) => {
    const { id, request } = raw as { id: number; request: Request };
    handle(request).then(
      (value) => reply({ id, ok: true, value }),
      (error: unknown) =>
        reply({
          id,
          ok: false,
          message: error instanceof Error ? error.message : String(error),
          messageId: error instanceof IbmiError ? error.messageId : undefined,
        }),
    );
  });
  child.once('exit', () => {
    for (const t of txs.values()) t.end(false);
    txs.clear();
    for (const c of conns.values()) void c.close().catch(() => undefined);
    conns.clear();
  });
}

/** Child side: makes `host` name the parent's simulated IBM i. */
export function reachParentIbmi(host: string): void {
  let next = 0;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  process.on('message', (raw) => {
    const reply = raw as Reply;
    const w = waiting.get(reply.id);
    waiting.delete(reply.id);
    if (!w) return;
    if (reply.ok) w.resolve(reply.value);
    else
      w.reject(
        reply.messageId
          ? new IbmiError(reply.messageId, reply.message.replace(`${reply.messageId}: `, ''))
          : new Error(reply.message),
      );
  });
  const call = <T>(request: Request): Promise<T> =>
    new Promise((resolve, reject) => {
      const id = ++next;
      waiting.set(id, { resolve: (v) => resolve(v as T), reject });
      process.send?.({ id, request });
    });
  class Remote implements IbmiConnection {
    constructor(
      private readonly conn: number,
      private readonly tx?: number,
    ) {}
    async query(sql: string, params: readonly IbmiValue[] = []): Promise<IbmiRow[]> {
      return buffers(
        await call<IbmiRow[]>({ op: 'query', conn: this.conn, tx: this.tx, sql, params: [...params] }),
      );
    }
    async command(cl: string): Promise<void> {
      await call({ op: 'command', conn: this.conn, tx: this.tx, cl });
    }
    async transaction<T>(work: (c: IbmiConnection) => Promise<T>): Promise<T> {
      const tx = await call<number>({ op: 'begin', conn: this.conn });
      try {
        const result = await work(new Remote(this.conn, tx));
        await call({ op: 'end', tx, commit: true });
        return result;
      } catch (error) {
        await call({ op: 'end', tx, commit: false }).catch(() => undefined);
        throw error;
      }
    }
    async close(): Promise<void> {
      await call({ op: 'close', conn: this.conn });
    }
  }
  registerInProcessIbmi(host, {
    connect: async (o) =>
      new Remote(await call<number>({ op: 'connect', user: o.user, password: o.password })),
  });
}
