// SQL Server's and tedious's errors a retry may heal: the deadlock victim (1205), a lock wait that
// timed out (1222), a snapshot transaction aborted by a conflicting update (3960), Azure SQL's
// failover and throttling numbers; and tedious's connection states (a pooled connection the server
// had already closed: "not the Final state"). Another error with a number is SQL Server's refusal.
import type { ErrorVerdict } from '../../source';

const TRANSIENT_NUMBERS = new Set([1205, 1222, 3960, 40001, 40197, 40501, 40613, 49918, 49919, 49920]);
const TEDIOUS =
  /not the Final state|ECONNCLOSED|ESOCKET|ETIMEOUT|Connection (lost|is closed)|lock request time out|snapshot isolation transaction aborted|deadlock/i;

/**
 * SQL Server's refusals of a row's values: duplicate key (2627, 2601), a constraint (547), NULL into
 * NOT NULL (515), truncation (8152, 2628), arithmetic overflow (220, 8115), conversion (241, 242, 245,
 * 8114).
 */
const ROW_NUMBERS = new Set([220, 241, 242, 245, 515, 547, 2601, 2627, 2628, 8114, 8115, 8152]);

/** SQL Server's error number (208, 229, 2714…), or undefined for an error that is not SQL Server's. */
export function sqlServerErrorNumber(error: unknown): number | undefined {
  const n = (error as { number?: unknown } | null | undefined)?.number;
  return typeof n === 'number' ? n : undefined;
}

export function sqlServerRefusesRow(error: unknown): boolean {
  const n = sqlServerErrorNumber(error);
  return n !== undefined && ROW_NUMBERS.has(n);
}

export function classifySqlServerError(error: unknown): ErrorVerdict {
  const e = error as {
    code?: unknown;
    message?: unknown;
    originalError?: { message?: unknown };
  };
  const n = sqlServerErrorNumber(error);
  if (n !== undefined && TRANSIENT_NUMBERS.has(n)) return 'transient';
  const text = [e.code, e.message, e.originalError?.message].filter((t) => typeof t === 'string').join(' ');
  if (TEDIOUS.test(text)) return 'transient';
  return n !== undefined ? 'permanent' : undefined;
}

/**
 * SQL Server's 229 refusing SELECT (or VIEW CHANGE TRACKING) on one table: that table's authority was
 * taken away (DENY, REVOKE), and only that table cannot be read.
 */
export function deniedOnTable(error: unknown, table: { schema: string; table: string }): boolean {
  const message = (error as { message?: unknown }).message;
  if (sqlServerErrorNumber(error) !== 229 || typeof message !== 'string') return false;
  const m = /permission was denied on the object '(.+)', database '.+', schema '(.+)'\.$/.exec(message);
  return (
    !!m &&
    m[1]?.toLowerCase() === table.table.toLowerCase() &&
    m[2]?.toLowerCase() === table.schema.toLowerCase()
  );
}

/** Why a table is suspended when its login lost SELECT on it, and what gives it back. */
export const deniedReason = (table: { schema: string; table: string }, login: string, said: string) =>
  `the login ${login} may no longer read ${table.schema}.${table.table} (${said}): ` +
  `grant it again (GRANT SELECT, VIEW CHANGE TRACKING ON ${table.schema}.${table.table} TO [${login.replaceAll(']', ']]')}]), then resume the table`;
