// The engine's runtime for every agent type: each source agent's checks, backlog and fixes.
// Starting, pausing and stopping pipelines is the runner's.
import type { AgentRuntime } from '../connectors/spi';
import { runnerRuntime } from '../runner/runtime';
import { checkTarget } from '../runner/targetChecks';
import { problem } from '../platform/problem';
import { FIXABLE_CHECK_IDS } from '../../shared/controlApi';
import {
  applyChangeTrackingFix,
  changeTrackingBacklog,
  changeTrackingTableStates,
  checkChangeTracking,
} from '../connectors/changeTracking/runtime';
import {
  applyJournalFix,
  checkJournal,
  journalBacklog,
  journalTableStates,
} from '../connectors/journal/runtime';
import { SourceCache } from '../connectors/sourceCache';
import type { ChangeTrackingSource } from '../connectors/changeTracking/source';
import type { JournalSource } from '../connectors/journal/source';

/**
 * `sourceIdleMs`: how long a source opened for the backlog or the table view stays open unused, for the
 * next read (checks and fixes always sign on afresh: the connection is what they check).
 */
export function agentsRuntime(options: { sourceIdleMs?: number } = {}): AgentRuntime {
  const runner = runnerRuntime();
  const journalSources = new SourceCache<JournalSource>(options.sourceIdleMs);
  const changeTrackingSources = new SourceCache<ChangeTrackingSource>(options.sourceIdleMs);
  return {
    ...runner,
    close: async () => {
      await Promise.all([runner.close?.(), journalSources.closeAll(), changeTrackingSources.closeAll()]);
    },
    check: (agent, entities) =>
      agent.role === 'target'
        ? checkTarget(agent)
        : agent.type === 'change-tracking'
          ? checkChangeTracking(agent, entities)
          : checkJournal(agent, entities),
    tables: (agent, entities) =>
      agent.type === 'journal'
        ? journalTableStates(agent, entities, journalSources)
        : agent.type === 'change-tracking'
          ? changeTrackingTableStates(agent, entities, changeTrackingSources)
          : Promise.reject(problem.conflict(`A ${agent.type} agent is a target: it reads no tables.`)),
    backlog: async (agent, entities) =>
      agent.type === 'change-tracking'
        ? changeTrackingBacklog(agent, entities, changeTrackingSources)
        : agent.type === 'journal'
          ? journalBacklog(agent, entities, journalSources)
          : { unavailable: `A ${agent.type} agent is a target: it has no backlog.` },
    applyFix: async (agent, entities, checkId) => {
      if (agent.type === 'journal') return applyJournalFix(agent, entities, checkId);
      if (!(FIXABLE_CHECK_IDS as readonly string[]).includes(checkId))
        throw problem.notFound(
          `No fix for "${checkId}": this engine applies ${FIXABLE_CHECK_IDS.join(', ')}.`,
        );
      return applyChangeTrackingFix(agent, entities, checkId);
    },
  };
}
