// Check results and the one sentence for a passed sign-on, the same for every agent type.
import type { CheckResult } from '../../shared/controlApi';
import { AgentConnectionError } from './connectionError';

export const passed = (id: string, message: string): CheckResult => ({
  id,
  status: 'passed',
  message,
  remedy: null,
});
/** A failed check; `fix` is the statement the engine can apply for it, when there is one. */
export const failed = (id: string, message: string, remedy: string, fix?: string): CheckResult => ({
  id,
  status: 'failed',
  message,
  remedy,
  ...(fix !== undefined && { fix }),
});

/**
 * A warning: what it checks holds, but not in full (the run goes on); `remedy` null when there is
 * nothing to do, `fix` the statement the engine can apply for it.
 */
export const warning = (id: string, message: string, remedy: string | null, fix?: string): CheckResult => ({
  id,
  status: 'warning',
  message,
  remedy,
  ...(fix !== undefined && { fix }),
});

/** A check that could not run, and why: not a failure of what it checks, which is still unknown. */
export const unchecked = (id: string, why: string, remedy: string): CheckResult => ({
  id,
  status: 'unchecked',
  message: why,
  remedy,
});

/** A failed "connection" check from a sign-on that could not be made. */
export const connectionFailed = (error: AgentConnectionError): CheckResult =>
  failed('connection', error.message, error.remedy);

/** A sign-on test as the "connection" check: its own answer, or the refusal it met, in words. */
export async function signOnResult(test: () => Promise<CheckResult>): Promise<CheckResult> {
  try {
    return await test();
  } catch (error) {
    if (!(error instanceof AgentConnectionError)) throw error;
    return connectionFailed(error);
  }
}

/** SQL Server and PostgreSQL: a login to a database, on a server when it is named. */
export function loggedIn(o: { user: string; database: string; server?: string; tls?: boolean }): string {
  return `Logged in as "${o.user}" to the database "${o.database}"${o.server ? ` on ${o.server}` : ''}${o.tls ? ' over TLS' : ''}.`;
}

/** IBM i: a user profile signed on to a system. */
export const signedOn = (user: string, host: string): string =>
  `Signed on as ${user.toUpperCase()} to ${host}.`;
