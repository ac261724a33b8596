// How the runner sorts a failure: one no retry heals (PermanentFailure), one a retry may heal (the
// source's and the target's verdicts on their drivers' errors, then Node's network failures), and what
// the target threw, marked so the reason kept names the database that refused.
import { AgentConnectionError } from '../agents/connectionError';
import type { ErrorVerdict } from '../agents/source';
import { FencedOut } from '../agents/target';

/** Failures that no retry heals: the reason is kept and the pipeline stops. */
export class PermanentFailure extends Error {}

/** Node's own network failures, whatever the driver: the peer went away, or did not answer in time. */
const NETWORK = /ECONNRESET|ECONNREFUSED|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH|socket hang up/i;

/** An agent's verdict on an error: `transient`, `permanent`, or undefined (not its driver's). */
export type ErrorClassifier = (error: unknown) => ErrorVerdict;

/**
 * Whether a retry may heal `error`: the runner's own verdicts first (a PermanentFailure, a connection
 * failure of a known kind), then what the source and the target say of their drivers' errors, then
 * Node's network failures.
 */
export function isTransient(error: unknown, classify: ErrorClassifier = () => undefined): boolean {
  if (error instanceof PermanentFailure) return false;
  // Another engine took the table: a retry reads the positions again, and only its own tables.
  if (error instanceof FencedOut) return true;
  // A source that cannot be reached (down, restarting, the network gone) may come back; a refused
  // login, a missing certificate file or driver will not by waiting.
  if (error instanceof AgentConnectionError && error.kind !== 'other') return error.kind === 'unreachable';
  const verdict = classify(error);
  if (verdict) return verdict === 'transient';
  const e = error as { code?: unknown; message?: unknown };
  return NETWORK.test(
    `${typeof e.code === 'string' ? e.code : ''} ${typeof e.message === 'string' ? e.message : ''}`,
  );
}

export const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export const FROM_TARGET = Symbol('fromTarget');
/**
 * Marks what the target threw, so that the reason kept names the database that refused ("connect
 * ECONNREFUSED" alone does not say whether the source or the target is down). The error itself is
 * rethrown unchanged: its code still decides whether a retry may heal it.
 */
export async function atTarget<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error && typeof error === 'object') Object.defineProperty(error, FROM_TARGET, { value: true });
    throw error;
  }
}
