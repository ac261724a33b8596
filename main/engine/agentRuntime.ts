// The engine's runtime for every agent type, over the plugins: checks (the sign-on first, in plain
// words), tables, backlog and fixes (fix, then check again), each written once. Starting, pausing and
// stopping pipelines is the runner's.
import type { CheckResult, Entity } from '../../shared/controlApi';
import { problem } from '../platform/problem';
import { connectionFailed, passed } from '../agents/checkResults';
import { AgentConnectionError } from '../agents/connectionError';
import { AGENT_PLUGINS, pluginOf, type AgentPlugins } from '../agents/registry';
import { SourceCache, withAgentSource } from '../agents/sourceCache';
import type { AgentRuntime, ResolvedAgent, SourceAdmin, SourceRole } from '../agents/spi';
import { runnerRuntime } from '../runner/runtime';

/**
 * `sourceIdleMs`: how long a source opened for the backlog or the table view stays open unused, for the
 * next read (checks and fixes always sign on afresh: the connection is what they check).
 * `plugins`: the agent types this engine runs (the registry's, unless a test brings its own).
 */
export function agentsRuntime(options: { sourceIdleMs?: number; plugins?: AgentPlugins } = {}): AgentRuntime {
  const plugins = options.plugins ?? AGENT_PLUGINS;
  const runner = runnerRuntime(plugins);
  const admins = new SourceCache<SourceAdmin>(options.sourceIdleMs);

  const sourceRoleOf = (agent: ResolvedAgent): SourceRole | undefined => pluginOf(plugins, agent.type).source;
  /** The agent's source role for a read of its tables; a target is refused (409). */
  const readingRoleOf = (agent: ResolvedAgent): SourceRole => {
    const role = sourceRoleOf(agent);
    if (!role) throw problem.conflict(`A ${agent.type} agent is a target: it reads no tables.`);
    return role;
  };

  /** Runs `work` on the agent's source: signed on for it alone, or kept open when `kept`. */
  const withAdmin = <T>(
    agent: ResolvedAgent,
    role: SourceRole,
    entities: readonly Entity[],
    work: (admin: SourceAdmin) => Promise<T>,
    kept = false,
  ): Promise<T> =>
    withAgentSource(
      agent,
      [agent.type, agent.hostCredentials, agent.configuration, entities],
      () => role.openAdmin(agent, entities),
      work,
      kept ? admins : undefined,
    );

  const checkSource = async (agent: ResolvedAgent, role: SourceRole, entities: readonly Entity[]) => {
    try {
      return await withAdmin(agent, role, entities, async (admin): Promise<CheckResult[]> => [
        passed('connection', role.connected(agent)),
        ...(await admin.check(entities)),
      ]);
    } catch (error) {
      if (!(error instanceof AgentConnectionError)) throw error;
      return [connectionFailed(error)];
    }
  };

  return {
    ...runner,
    close: async () => {
      await Promise.all([runner.close?.(), admins.closeAll()]);
    },

    check: async (agent, entities) => {
      const plugin = pluginOf(plugins, agent.type);
      if (agent.role === 'target') return plugin.target ? plugin.target.check(agent) : [];
      return plugin.source ? checkSource(agent, plugin.source, entities) : [];
    },

    tables: async (agent, entities) => {
      return withAdmin(agent, readingRoleOf(agent), entities, (admin) => admin.tables(entities), true);
    },

    catalog: async (agent, entities) => {
      const role = sourceRoleOf(agent);
      if (!role) throw problem.conflict(`A ${agent.type} agent is a target: it has no tables to choose.`);
      return withAdmin(agent, role, entities, (admin) => admin.catalog(), true);
    },

    columns: async (agent, entities, refs) => {
      return withAdmin(
        agent,
        readingRoleOf(agent),
        entities,
        async (admin) => (admin.columns ? admin.columns(refs) : []),
        true,
      );
    },

    sample: async (agent, entities, ref, limit, rowFilter) => {
      return withAdmin(
        agent,
        readingRoleOf(agent),
        entities,
        async (admin) => (admin.sample ? admin.sample(ref, limit, rowFilter) : []),
        true,
      );
    },

    largestValues: async (agent, entities, asked) => {
      return withAdmin(agent, readingRoleOf(agent), entities, async (admin) =>
        admin.largestValues ? admin.largestValues(asked) : [],
      );
    },

    backlog: async (agent, entities) => {
      const role = sourceRoleOf(agent);
      if (!role) return { unavailable: `A ${agent.type} agent is a target: it has no backlog.` };
      try {
        return await withAdmin(
          agent,
          role,
          entities,
          async (admin) => {
            const checkpoint = await admin.loadCheckpoint();
            if (Object.keys(checkpoint).length === 0)
              return {
                unavailable: 'No checkpoint at the source yet: the agent has not finished a snapshot.',
              };
            return admin.backlog(entities, checkpoint);
          },
          true,
        );
      } catch (error) {
        if (error instanceof AgentConnectionError) return { unavailable: `${error.message} ${error.remedy}` };
        // The database's refusal (a table without change tracking, no authority…) is the answer.
        const refused = role.refusal(error, 'the backlog query');
        if (refused) return { unavailable: refused };
        throw error;
      }
    },

    applyFix: async (agent, entities, checkId) => {
      const role = sourceRoleOf(agent);
      if (!role || !role.fixes.checkIds.includes(checkId))
        throw problem.notFound(
          `No fix for "${checkId}"${role ? `: this engine applies ${role.fixes.described}` : `: a ${agent.type} agent has none`}.`,
        );
      const before = await checkSource(agent, role, entities);
      const failing = before.find((c) => c.id === checkId);
      if (!failing?.fix || failing.status === 'passed') return { applied: null, checks: before };
      // The statement is this engine's own, built from validated names, never text from the request.
      const fix = failing.fix;
      await withAdmin(agent, role, entities, (admin) => admin.applyFix(fix));
      return { applied: fix, checks: await checkSource(agent, role, entities) };
    },
  };
}
