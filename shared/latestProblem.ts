// The one problem a pipeline's Status section leads with: the newest thing that needs the DBA, in
// words, with what to do and which section does it. Newer good news (a start after a failure, a clean
// verify) clears it.
import type { PipelineSection } from './route';
import { eventSentence, type EventData } from './eventText';

export interface LatestProblem {
  at: string | null;
  text: string;
  remedy: string;
  /** Where the remedy is done. */
  section: PipelineSection;
}

interface EventLike {
  at: string;
  kind: string;
  data: EventData;
}

const differences = (d: EventData) =>
  ['missing', 'extra', 'different'].reduce((sum, k) => sum + (typeof d[k] === 'number' ? d[k] : 0), 0);

/** What an event says is wrong, or undefined for an event that is not a problem. */
function problemOf(e: EventLike): Omit<LatestProblem, 'at' | 'text'> | undefined {
  switch (e.kind) {
    case 'failed':
      return {
        remedy: 'Run the checks to see what changed at the source, fix it, then start the pipeline again.',
        section: 'checks',
      };
    case 'table-stopped':
      return {
        remedy: 'The other tables go on. Once the table is back, copy it again from the Tables section.',
        section: 'tables',
      };
    case 'table-suspended':
      return {
        remedy:
          'The other tables go on. Fix the cause it names, then Resume the table in the Tables section: it reads on from where it stood.',
        section: 'tables',
      };
    case 'rows-refused':
      return {
        remedy:
          'The table goes on; the rows are kept aside. Fix the cause, then Retry them in the Tables section (Rows kept aside).',
        section: 'tables',
      };
    case 'loss-warning':
      return Array.isArray(e.data.warnings) && e.data.warnings.length > 0
        ? {
            remedy:
              'Let the pipeline catch up, or keep what it still needs at the source (the warning says how).',
            section: 'status',
          }
        : undefined;
    case 'retrying':
      return {
        remedy: 'The pipeline retries by itself. If it goes on, check the network and the source server.',
        section: 'timeline',
      };
    case 'verify-finished':
      return differences(e.data) > 0
        ? { remedy: 'Open Verify to see the rows that differ and repair them.', section: 'verify' }
        : undefined;
    default:
      return undefined;
  }
}

/** Events that close a problem reported before them. */
const CLEARS: Record<string, (e: EventLike) => boolean> = {
  failed: (e) => ['started', 'resumed', 'resumed-after-restart'].includes(e.kind),
  retrying: (e) => e.kind === 'batch-applied' || e.kind === 'started',
  'verify-finished': (e) => e.kind === 'verify-finished' && differences(e.data) === 0,
  'table-stopped': (e) => e.kind === 'snapshot-done' || e.kind === 'resnapshot',
  'table-suspended': (e) => e.kind === 'table-resumed' || e.kind === 'snapshot-done',
  'rows-refused': (e) => e.kind === 'exceptions-retried' || e.kind === 'exceptions-discarded',
  'loss-warning': (e) => e.kind === 'loss-warning',
};

/**
 * The newest problem among `events` (oldest first) not cleared by a later event; the agent's own
 * failure reason when it is failed and no event says more.
 */
export function latestProblem(
  agent: { state: string; failureReason: string | null },
  events: readonly EventLike[],
): LatestProblem | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i];
    if (!e) continue;
    const problem = problemOf(e);
    if (!problem) continue;
    const clears = CLEARS[e.kind];
    const later = events.slice(i + 1);
    const sameTable = (x: EventLike) => e.kind !== 'table-stopped' || x.data.table === e.data.table;
    if (clears && later.some((x) => clears(x) && sameTable(x))) continue;
    return { at: e.at, text: eventSentence(e.kind, e.data), ...problem };
  }
  if (agent.state !== 'failed') return null;
  // Said as its failure event would say it, with the same remedy.
  const failed = { at: '', kind: 'failed', data: { reason: agent.failureReason ?? '' } };
  const problem = problemOf(failed);
  return problem ? { at: null, text: eventSentence(failed.kind, failed.data), ...problem } : null;
}
