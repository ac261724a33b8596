// The simulators out of the bench's thread (issue 42: a raw read and the engine's both measured with
// the simulator beside them, never on their thread): SQL Server in a child process, reached over TDS as
// ever; IBM i in a worker thread, reached through a host name as the in-process sandbox is.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { IbmiError, type IbmiConnection, type IbmiRow, type IbmiValue } from '../lib/ibmi/connection';
import { registerInProcessIbmi } from '../lib/ibmi/inProcess';
import type { IbmiAnswer, IbmiCall } from './ibmiWorker';

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

export interface MssqlProcess {
  port: number;
  close(): Promise<void>;
}

export async function startMssqlProcess(): Promise<MssqlProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', here('./mssqlChild.ts')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const [line] = await new Promise<string[]>((resolve, reject) => {
    child.once('exit', (code) =>
      reject(new Error(`the SQL Server simulator ended (${code}) before it served`)),
    );
    createInterface({ input: child.stdout }).once('line', (l) => resolve([l]));
  });
  const { port } = JSON.parse(line ?? '{}') as { port: number };
  return {
    port,
    close: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.stdin.end();
      }),
  };
}

/** A call without its id (the id is the sender's), each kind of call kept apart. */
type CallOf<T> = T extends unknown ? Omit<T, 'id'> : never;

export interface IbmiThread {
  host: string;
  admin: IbmiConnection;
  /**
   * Every statement answered `delayMs` late from now on (0: none; unchanged when not given); answers
   * the statements and commands answered so far.
   */
  linkDelay(delayMs?: number): Promise<number>;
  close(): Promise<void>;
}

/** Bytes cross the thread as Uint8Array; the driver's callers get Buffers, as from the simulator. */
const rowOf = (row: IbmiRow): IbmiRow => {
  for (const [k, v] of Object.entries(row))
    if (v instanceof Uint8Array && !Buffer.isBuffer(v))
      row[k] = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  return row;
};

export async function startIbmiThread(admin: { user: string; password: string }): Promise<IbmiThread> {
  // A worker does not take the parent's TypeScript loader: it registers tsx itself, then the file.
  const boot = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((m) => { m.register(); return import(${JSON.stringify(new URL('./ibmiWorker.ts', import.meta.url).href)}); })`;
  const worker = new Worker(boot, { eval: true });
  const waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  let calls = 0;
  const { host } = await new Promise<{ host: string }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  worker.on('message', (a: IbmiAnswer) => {
    const w = waiting.get(a.id);
    waiting.delete(a.id);
    if (a.ok) w?.resolve(a.value);
    else w?.reject(a.messageId ? new IbmiError(a.messageId, a.message) : new Error(a.message));
  });
  const call = <T>(c: CallOf<IbmiCall>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = ++calls;
      waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      worker.postMessage({ ...c, id });
    });
  const connect = async (o: { user: string; password: string; defaultLibrary?: string }) => {
    const conn = await call<number>({ op: 'connect', ...o });
    const c: IbmiConnection = {
      query: async (sql: string, params: readonly IbmiValue[] = []) =>
        (await call<IbmiRow[]>({ op: 'query', conn, sql, params: [...params] })).map(rowOf),
      command: async (cl: string) => {
        await call({ op: 'command', conn, cl });
      },
      transaction: async <T>(work: (t: IbmiConnection) => Promise<T>): Promise<T> => {
        await call({ op: 'begin', conn });
        try {
          const result = await work(c);
          await call({ op: 'end', conn, commit: true });
          return result;
        } catch (error) {
          await call({ op: 'end', conn, commit: false });
          throw error;
        }
      },
      close: async () => {
        await call({ op: 'close', conn });
      },
    };
    return c;
  };
  const unregister = registerInProcessIbmi(host, { connect });
  return {
    host,
    admin: await connect(admin),
    linkDelay: (delayMs) => call<number>({ op: 'link', ...(delayMs !== undefined && { delayMs }) }),
    close: async () => {
      unregister();
      await worker.terminate();
    },
  };
}
