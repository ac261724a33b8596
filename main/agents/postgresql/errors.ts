// PostgreSQL's errors a retry may heal, by SQLSTATE: connection exceptions (08…), an administrator's
// shutdown (57P0…), serialization failures and deadlocks (40001, 40P01). Any other SQLSTATE is the
// server's refusal; node-postgres says a dropped connection in words only.
import type { ErrorVerdict } from '../source';

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
