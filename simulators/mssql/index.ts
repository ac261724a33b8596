// The simulated SQL Server: a TDS 7.4 server on 127.0.0.1 backed by the sandbox host.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeSandboxCertificates } from './certificate';
import { SandboxHost, type SandboxLogin } from './host';
import { seed, SEED_LOGINS } from './seed';
import { FaultQueue, type FaultKind } from '../faults';
import { startTdsServer, type TdsServer } from './tds/server';

export interface SandboxSqlServerOptions {
  port?: number;
  /** Offer TLS with a certificate from the sandbox's own CA. */
  tls?: boolean;
  forceEncryption?: boolean;
  logins?: SandboxLogin[];
  databases?: string[];
  /** Databases with a case-sensitive collation. */
  caseSensitiveDatabases?: string[];
  /** Seam: the sandbox clock, which tests move on to expire change-tracking retention. */
  now?: () => Date;
  /** Load the sample Sales database (sandbox mode); it brings its own logins. */
  seed?: boolean;
}

export interface SandboxSqlServer {
  host: '127.0.0.1';
  port: number;
  /** Path of the sandbox CA's certificate (PEM), when TLS is on: what certificatePath names. */
  caFile: string | undefined;
  logins: SandboxLogin[];
  server: TdsServer;
  /** The databases behind the server, for seeding data without a round trip (tests, benchmarks). */
  sql: SandboxHost;
  /**
   * The next `times` requests, on any connection, are dropped unanswered ('drop') or answered `ms` late
   * ('stall'). The mid-result kinds strike the next requests whose last result set has two rows or
   * more: after half its rows comes error 1205, the deadlock victim's ('fail-mid-result'), or the
   * socket drops ('drop-mid-result'). With `matching`, only requests whose text matches are struck.
   */
  injectFaults(kind: FaultKind, times: number, ms?: number, matching?: RegExp): void;
  /** Faults armed that have not struck yet. */
  pendingFaults(): number;
  /**
   * A restart, as SHUTDOWN WITH NOWAIT then a start: every connection goes (its uncommitted work
   * rolled back), connections are refused for `downMs`, then the same port answers again with the
   * committed data, change tracking included. Resolves once it listens again.
   */
  restart(downMs?: number): Promise<void>;
  close(): Promise<void>;
}

export const DEFAULT_LOGINS: SandboxLogin[] = [
  { name: 'sa', password: 'Sandbox-Passw0rd', defaultDatabase: 'master' },
];
export const DEFAULT_DATABASES = ['master', 'Sales'];

export async function startSandboxSqlServer(
  options: SandboxSqlServerOptions = {},
): Promise<SandboxSqlServer> {
  const logins = options.logins ?? (options.seed ? SEED_LOGINS : DEFAULT_LOGINS);
  const host = new SandboxHost({
    logins,
    databases: options.databases ?? DEFAULT_DATABASES,
    caseSensitiveDatabases: options.caseSensitiveDatabases,
    now: options.now,
  });
  let caFile: string | undefined;
  let tls: { cert: string; key: string } | undefined;
  if (options.tls) {
    const certs = await makeSandboxCertificates();
    caFile = join(mkdtempSync(join(tmpdir(), 'cdc-sandbox-ca-')), 'sandbox-ca.pem');
    writeFileSync(caFile, certs.caCert, { mode: 0o644 });
    tls = { cert: certs.cert, key: certs.key };
  }
  if (options.seed) await seed(host);
  const faults = new FaultQueue();
  const server = await startTdsServer({
    host,
    port: options.port,
    tls,
    forceEncryption: options.forceEncryption,
    faults,
  });
  return {
    host: '127.0.0.1',
    port: server.port,
    caFile,
    logins,
    server,
    sql: host,
    pendingFaults: () => faults.pending,
    restart: (downMs = 0) => server.restart(downMs),
    injectFaults: (kind, times, ms, matching) => faults.inject(kind, times, ms, matching),
    close: async () => {
      await server.close();
      // Sessions close their connections as their sockets close; then the files go.
      await new Promise((resolve) => setImmediate(resolve));
      host.close();
    },
  };
}
