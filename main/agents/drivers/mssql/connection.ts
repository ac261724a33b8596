// SQL Server's connection for any agent type that reads or writes it: host credentials to an mssql
// pool (the change-tracking agent's fields), the CA file read and used,
// and the driver's failures said in plain words with what to do about them.
import { loggedIn } from '../../checkResults';
import { readFile } from 'node:fs/promises';
import type sql from 'mssql';
import {
  changeTrackingHostCredentials,
  type ChangeTrackingHostCredentials,
} from '../../../../shared/agents/changeTracking';
import { labelOf } from '../../../../shared/config/parse';
import { AgentConnectionError } from '../../connectionError';
import { KeptSignOnPool } from './keptPool';
import { connectWithoutDelay } from './socket';

/** The form's name of the CA file setting, for the remedies below. */
const CA_FILE = `"${labelOf(changeTrackingHostCredentials, 'certificatePath')}"`;

export { AgentConnectionError };

/** Reads the CA file named by certificatePath; a missing or unreadable file names the path. */
export async function readCertificate(path: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new AgentConnectionError(
      code === 'ENOENT'
        ? `The certificate file ${path} does not exist.`
        : `The certificate file ${path} cannot be read (${code ?? 'error'}).`,
      `Set ${CA_FILE} to the PEM file of the CA that signed the server certificate, readable by this engine.`,
      'certificate-file',
    );
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----'))
    throw new AgentConnectionError(
      `The certificate file ${path} holds no PEM certificate.`,
      `Export the CA certificate in PEM format (Base-64, "-----BEGIN CERTIFICATE-----") and set ${CA_FILE} to it.`,
      'certificate-file',
    );
  return text;
}

export async function poolConfig(
  c: ChangeTrackingHostCredentials,
  { idleTimeoutMillis = 30_000 } = {},
): Promise<sql.config> {
  const ca = c.enableTls && c.certificatePath ? await readCertificate(c.certificatePath) : undefined;
  return {
    server: c.host,
    port: c.port,
    database: c.databaseName,
    user: c.username,
    password: c.password,
    connectionTimeout: 15_000,
    requestTimeout: 120_000,
    pool: { max: c.maxConnectionsCount, min: 0, idleTimeoutMillis },
    // A connection handed out is checked by its socket, not by a `SELECT 1;` round trip: over a
    // 30 ms link that was a fifth of a copy's requests (issue 58). A dead session still fails its
    // request, which the runner retries.
    validateConnection: 'socket',
    options: {
      encrypt: c.enableTls,
      trustServerCertificate: false,
      appName: 'cdc-admin change-tracking agent',
      connector: connectWithoutDelay(c.host, c.port),
      ...(ca !== undefined && { cryptoCredentialsDetails: { ca } }),
    },
  };
}

/**
 * Opens a pool, or throws an AgentConnectionError that says why in plain words. A connection stays
 * open `idleTimeoutMillis` unused (30 s; tests shorten it).
 */
export async function openPool(
  c: ChangeTrackingHostCredentials,
  idle: { idleTimeoutMillis?: number } = {},
): Promise<sql.ConnectionPool> {
  const config = await poolConfig(c, idle);
  const pool = new KeptSignOnPool(config);
  // A pool's background errors must not crash the process; requests report their own.
  pool.on('error', () => undefined);
  try {
    return await pool.connect();
  } catch (error) {
    await pool.close().catch(() => undefined);
    throw explainConnectionError(error, c);
  }
}

const TLS_TRUST =
  /self[- ]signed|unable to verify|unable to get (local )?issuer|certificate (has expired|is not yet valid)|Hostname\/IP does not match|ERR_TLS_CERT|CERT_/i;

export function explainConnectionError(
  error: unknown,
  c: ChangeTrackingHostCredentials,
): AgentConnectionError {
  if (error instanceof AgentConnectionError) return error;
  const e = error as { code?: string; message?: string; originalError?: { code?: string; message?: string } };
  const text = `${e.message ?? ''} ${e.originalError?.message ?? ''}`;
  const where = `${c.host}:${c.port}`;
  // Checked first: SQL Server ends this message with "The login failed." too.
  if (/Cannot open database/i.test(text))
    return new AgentConnectionError(
      `The database "${c.databaseName}" does not exist on ${where}, or the login "${c.username}" has no user in it (error 4060).`,
      'Check the Database, and create a user for the login in that database.',
      'database',
    );
  if (/Login failed/i.test(text))
    return new AgentConnectionError(
      `SQL Server refused the login "${c.username}" (error 18456).`,
      'Check the login name and password, that SQL Server authentication is enabled, and that the login is not disabled; the server log gives the exact reason.',
      'login',
    );
  if (TLS_TRUST.test(text))
    return new AgentConnectionError(
      `The server certificate of ${where} is not trusted: ${firstLine(text)}`,
      c.certificatePath
        ? `Check that ${c.certificatePath} is the CA that signed the server certificate, and that the Host names the certificate's subject.`
        : 'Set CA certificate file to the PEM file of the CA that signed the server certificate, or install that CA in the system store.',
      'tls',
    );
  if (/ENOTFOUND|EAI_AGAIN|getaddrinfo/i.test(text))
    return new AgentConnectionError(
      `The host name ${c.host} cannot be resolved.`,
      'Check the spelling of the Host, or use the server IP address.',
      'unreachable',
    );
  if (/ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|ETIMEDOUT|timeout|Failed to connect/i.test(text))
    return new AgentConnectionError(
      `${where} cannot be reached: ${firstLine(text)}`,
      'Check the Host and Port, that SQL Server runs and accepts TCP/IP connections, and that no firewall blocks the port.',
      'unreachable',
    );
  return new AgentConnectionError(
    `The connection to ${where} failed: ${firstLine(text)}`,
    'Check the host credentials.',
    'other',
  );
}

const firstLine = (s: string) => s.trim().split('\n')[0]?.slice(0, 300) ?? '';

/** The sentence of a passed login, for the connection check and "Test connection" alike. */
export const sqlServerLoggedIn = (c: ChangeTrackingHostCredentials): string =>
  loggedIn({ user: c.username, database: c.databaseName, server: `${c.host}:${c.port}`, tls: c.enableTls });
