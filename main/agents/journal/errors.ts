// IBM i's errors a retry may heal: the host servers' communication errors (CWBCO…, CWB0…) and a row or
// object another job holds (SQL0913). Another IBM i message is the system's refusal.
import type { ErrorVerdict } from '../source';
import { StartUnavailable } from './startAt';

export function classifyIbmiError(error: unknown): ErrorVerdict {
  // A start the journal cannot give stays so until the DBA changes startAt.
  if (error instanceof StartUnavailable) return 'permanent';
  const id = (error as { messageId?: unknown }).messageId;
  if (typeof id !== 'string') return undefined;
  return /^(CWBCO|CWB0|SQL0913)/.test(id) ? 'transient' : 'permanent';
}
