// Starts the built main bundle as shipped (package.json's "main") under plain Node, with the stand-in
// `electron` of ./standIn, and drives it over the child's IPC channel.
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = process.env.BUNDLE_ROOT ?? fileURLToPath(new URL('../..', import.meta.url));
const REGISTER = fileURLToPath(new URL('./standIn/register.mjs', import.meta.url));

export function bundleEntry(): string {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { main: string };
  const entry = join(ROOT, pkg.main);
  if (!existsSync(entry)) throw new Error(`${pkg.main} is missing: run npm run build first (npm test does).`);
  return entry;
}

import type { PushMessage } from '../../shared/push';

export interface Ready {
  url: string;
  webPreferences: Record<string, unknown>;
  schemes: { scheme: string; privileges: Record<string, boolean> }[];
  channels: string[];
}

export interface LaunchedBundle {
  ready: Ready;
  home: string;
  output(): string;
  call(method: string, input?: unknown): Promise<unknown>;
  untrusted(method: string): Promise<unknown>;
  fetch(url: string): Promise<{ status: number; headers: Record<string, string>; body: string }>;
  /** What main pushed to its window so far: each message with its channel. */
  pushes(): Promise<{ channel: string; message: PushMessage }[]>;
  /** The system notifications shown so far, and a click on one of them. */
  notifications(): Promise<{ title: string; body: string }[]>;
  click(index: number): Promise<unknown>;
  /** app.quit(): answers the exit code. */
  quit(): Promise<number | null>;
  kill(): void;
}

export async function launchBundle(env: Record<string, string> = {}): Promise<LaunchedBundle> {
  const home = mkdtempSync(join(tmpdir(), 'cdc-bundle-'));
  let out = '';
  const child: ChildProcess = fork(bundleEntry(), [], {
    cwd: home,
    execArgv: ['--import', REGISTER],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: home,
      STAND_IN_HOME: home,
      STAND_IN_VERSION: '9.9.9',
      CDC_ADMIN_ENGINE_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  let next = 0;
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  let onReady: (r: Ready) => void = () => undefined;
  const ready = new Promise<Ready>((resolve, reject) => {
    onReady = resolve;
    void exited.then((code) =>
      reject(new Error(`the bundle exited (${code}) before its window loaded:\n${out}`)),
    );
  });
  child.on('message', (m: { kind?: string; id?: number; value?: unknown; error?: string }) => {
    if (m.kind === 'ready') return onReady(m as unknown as Ready);
    const waiting = pending.get(m.id ?? -1);
    pending.delete(m.id ?? -1);
    if (m.error) waiting?.reject(new Error(m.error));
    else waiting?.resolve(m.value);
  });
  const send = (message: object) =>
    new Promise<unknown>((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve, reject });
      child.send({ id, ...message });
    });

  return {
    ready: await ready,
    home,
    output: () => out,
    call: (method, input = {}) => send({ kind: 'call', method, input }),
    untrusted: (method) => send({ kind: 'untrusted', method }),
    fetch: (url) => send({ kind: 'fetch', url }) as ReturnType<LaunchedBundle['fetch']>,
    pushes: () => send({ kind: 'pushes' }) as ReturnType<LaunchedBundle['pushes']>,
    notifications: () => send({ kind: 'notifications' }) as ReturnType<LaunchedBundle['notifications']>,
    click: (index) => send({ kind: 'click', index }),
    quit: async () => {
      void send({ kind: 'quit' });
      return exited;
    },
    kill: () => child.kill('SIGKILL'),
  };
}
