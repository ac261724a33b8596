// The latest sign-on tried with an agent's credentials (POST …/config/validate, …/credentials/test),
// remembered in memory for a while so that when those same credentials are then stored, the engine can
// say whether they signed on — without signing on again. A second failed sign-on per Apply is not
// free: IBM i disables a profile after QMAXSIGN failures (3 by default), SQL Server logins lock out by
// policy. Only a keyed digest of the credentials is kept, never the credentials.
import { createHmac, randomBytes } from 'node:crypto';
import type { CheckResult } from '../../shared/controlApi';

/** How long a sign-on stands for the credentials it was tried with. */
export const SIGN_ON_KEPT_MS = 15 * 60_000;

export interface SignOnMemo {
  remember(pipelineId: string, agentId: string, credentials: object, result: CheckResult): void;
  /** The sign-on tried with exactly these credentials, when recent; undefined otherwise. */
  recall(pipelineId: string, agentId: string, credentials: object): CheckResult | undefined;
}

/** One text per credentials object, whatever the order of its keys. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'undefined';
}

export function createSignOnMemo(now: () => Date): SignOnMemo {
  // A key of this process's own: the digests mean nothing outside it, and nothing outlives it.
  const key = randomBytes(32);
  const digest = (credentials: object) =>
    createHmac('sha256', key).update(canonical(credentials)).digest('hex');
  const tried = new Map<string, { digest: string; result: CheckResult; at: number }>();
  const slot = (pipelineId: string, agentId: string) => `${pipelineId}\u0000${agentId}`;
  return {
    remember(pipelineId, agentId, credentials, result) {
      tried.set(slot(pipelineId, agentId), { digest: digest(credentials), result, at: now().getTime() });
    },
    recall(pipelineId, agentId, credentials) {
      const found = tried.get(slot(pipelineId, agentId));
      if (!found || now().getTime() - found.at > SIGN_ON_KEPT_MS) return undefined;
      return found.digest === digest(credentials) ? found.result : undefined;
    },
  };
}
