// A PostgreSQL server of the test's own, from the machine's PostgreSQL binaries, in a temporary folder
// on a free port: fault drills stop and start it without touching the machine's shared server.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { freePort } from './ports';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

const ROOT = '/usr/lib/postgresql';

/** The newest installed PostgreSQL's bin folder, or undefined when none is installed. */
export function postgresBinaries(): string | undefined {
  if (!existsSync(ROOT)) return undefined;
  const version = readdirSync(ROOT)
    .filter((v) => existsSync(join(ROOT, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a))[0];
  return version && join(ROOT, version, 'bin');
}

export interface PrivatePostgres {
  host: '127.0.0.1';
  port: number;
  user: 'postgres';
  database: 'postgres';
  /** `fast` ends every session (57P01) and shuts down cleanly; `immediate` is a crash, recovered at start. */
  stop(mode?: 'fast' | 'immediate'): void;
  start(): void;
  /** Stops the server and removes its folder. */
  destroy(): void;
}

/** A server of its own, in a new folder under `parent` (the system's temporary folder by default). */
export async function startPrivatePostgres(parent = tmpdir()): Promise<PrivatePostgres> {
  const bin = postgresBinaries();
  if (!bin) throw new Error(`No PostgreSQL binaries under ${ROOT}.`);
  const dir = mkdtempSync(join(parent, 'cdc-private-pg-'));
  const data = join(dir, 'data');
  // PostgreSQL refuses to run as root: as root, the server runs as the postgres user.
  const asRoot = userInfo().uid === 0;
  if (asRoot) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString()), 0);
  const run = (tool: string, args: string[]) => {
    const [file, argv] = asRoot
      ? ['runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]]
      : [join(bin, tool), args];
    execFileSync(file, argv, { stdio: 'pipe', timeout: 60_000 });
  };
  const port = await freePort();
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=40`;
  const start = () =>
    run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'server.log'), '-w', 'start']);
  const stop = (mode: 'fast' | 'immediate' = 'fast') => run('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
  start();
  return {
    host: '127.0.0.1',
    port,
    user: 'postgres',
    database: 'postgres',
    start,
    stop,
    destroy: () => {
      try {
        stop('immediate');
      } catch {
        // Already stopped.
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
