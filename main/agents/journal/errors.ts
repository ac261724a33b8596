// IBM i's errors a retry may heal: the host servers' communication errors (CWBCO…, CWB0…) and a row or
// object another job holds (SQL0913). Another IBM i message is the system's refusal.
import type { ErrorVerdict } from '../source';

export function classifyIbmiError(error: unknown): ErrorVerdict {
  const id = (error as { messageId?: unknown }).messageId;
  if (typeof id !== 'string') return undefined;
  return /^(CWBCO|CWB0|SQL0913)/.test(id) ? 'transient' : 'permanent';
}
