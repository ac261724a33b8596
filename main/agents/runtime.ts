// The engine's runtime for every agent type: the change-tracking agent's checks, backlog and fixes;
// the journal agent's once it lands. Starting, pausing and stopping pipelines is the runner's.
import { noRuntime, type AgentRuntime } from '../engine/runtime';
import { runnerRuntime } from '../runner/runtime';
import { checkTarget } from '../runner/targetChecks';
import { problem } from '../engine/problem';
import { FIXABLE_CHECK_IDS } from '../../shared/controlApi';
import { applyChangeTrackingFix, changeTrackingBacklog, checkChangeTracking } from './changeTracking/runtime';

const NO_JOURNAL_READER = 'This engine has no journal reader yet: checks stop at reachability.';

export function agentsRuntime(): AgentRuntime {
  const journal = noRuntime(NO_JOURNAL_READER);
  return {
    ...runnerRuntime(),
    check: (agent, entities) =>
      agent.role === 'target'
        ? checkTarget(agent)
        : agent.type === 'change-tracking'
          ? checkChangeTracking(agent, entities)
          : journal.check(agent, entities),
    backlog: (agent, entities) =>
      agent.type === 'change-tracking'
        ? changeTrackingBacklog(agent, entities)
        : journal.backlog(agent, entities),
    applyFix: async (agent, entities, checkId) => {
      if (agent.type !== 'change-tracking') return journal.applyFix(agent, entities, checkId);
      if (!(FIXABLE_CHECK_IDS as readonly string[]).includes(checkId))
        throw problem.notFound(
          `No fix for "${checkId}": this engine applies ${FIXABLE_CHECK_IDS.join(', ')}.`,
        );
      return applyChangeTrackingFix(agent, entities, checkId);
    },
  };
}
