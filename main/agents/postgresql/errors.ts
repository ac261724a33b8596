// PostgreSQL's errors a retry may heal, by SQLSTATE: connection exceptions (08…), an administrator's
// shutdown (57P0…), serialization failures and deadlocks (40001, 40P01). Any other SQLSTATE is the
// server's refusal; node-postgres says a dropped connection in words only.
import type { ErrorVerdict } from '../source';
import { fieldLabel } from '../../../shared/config/parse';
import { maxConnectionsCount } from '../../../shared/agents/common';

/**
 * A refusal of the rows' values, not of the table: a data exception (class 22: a value the type cannot
 * hold, U+0000 in text, a number out of range), an integrity constraint (class 23), or a trigger's own
 * RAISE EXCEPTION (P0001).
 */
export function postgresRefusesRow(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^(22|23)[0-9A-Z]{3}$|^P0001$/.test(code);
}

export function classifyPostgresError(error: unknown): ErrorVerdict {
  const e = error as { code?: unknown; message?: unknown };
  if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code))
    return /^(08|57P0|40001|40P01)/.test(e.code) ? 'transient' : 'permanent';
  return typeof e.message === 'string' && /Connection terminated/i.test(e.message) ? 'transient' : undefined;
}

/**
 * Why signing on to PostgreSQL failed, told apart: nothing listening at host:port, a host name that
 * does not resolve, no answer, a password refused, no pg_hba.conf entry, a database that does not
 * exist — each with the remedy that fits it (a closed port is never "check the password").
 */
export function explainPostgresConnectError(
  error: unknown,
  c: { host: string; port: number; username: string; databaseName: string },
): { message: string; remedy: string } {
  const e = error as { code?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  const said = typeof e.message === 'string' ? e.message.split('\n')[0]?.slice(0, 300) : '';
  const where = `${c.host}:${c.port}`;
  switch (code) {
    case 'ECONNREFUSED':
      return {
        message: `Nothing is listening at ${where}: the connection was refused.`,
        remedy: `Check the Port, and that PostgreSQL runs and listens on ${c.host} (listen_addresses in postgresql.conf): the sign-on itself was never reached.`,
      };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return {
        message: `The host name ${c.host} cannot be resolved.`,
        remedy: 'Check the spelling of the Host, or use the server’s IP address.',
      };
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return {
        message: `No answer from ${where} (${code}).`,
        remedy: 'Check the Host and Port, and that no firewall drops the port.',
      };
    case '28P01':
      return {
        message: `PostgreSQL at ${where} refused the password of "${c.username}": ${said}`,
        remedy: 'Check the User and Password.',
      };
    case '28000':
      return {
        message: `PostgreSQL at ${where} does not let "${c.username}" sign on to "${c.databaseName}" from this machine: ${said}`,
        remedy:
          'Add a line for this user, database and client address to pg_hba.conf on the server, then reload PostgreSQL (SELECT pg_reload_conf();).',
      };
    case '3D000':
      return {
        message: `The database "${c.databaseName}" does not exist on ${where}.`,
        remedy: `Check the Database, or create it: CREATE DATABASE "${c.databaseName.replaceAll('"', '""')}";`,
      };
    case '57P03':
      return {
        message: `PostgreSQL at ${where} is starting up or shutting down: ${said}`,
        remedy: 'Try again in a moment.',
      };
    case '53300':
      return {
        message: `PostgreSQL at ${where} has no connection slot left: ${said}`,
        remedy: `Lower "${fieldLabel(maxConnectionsCount)}" of the agents that use it, or raise max_connections on the server.`,
      };
    default:
      return {
        message: `PostgreSQL at ${where} refused "${c.username}" on "${c.databaseName}": ${said}`,
        remedy: 'Check the Database, User and Password, and pg_hba.conf on the server.',
      };
  }
}
