// An agent's checks as POST …/test and the readiness report run them: stored settings, names, the port,
// then the agent type's own checks against its database. They only read the source; the results are
// kept as a `checked` event (they hold no secrets), which diagnostics bundles show.
import type { CheckResult } from '../../shared/controlApi';
import { unchecked } from '../agents/checkResults';
import { reachabilityCheck } from '../agents/reachability';
import { pluginOf } from '../agents/registry';
import type { ColumnsOf, ResolvedAgent } from '../agents/spi';
import type { StoredAgent } from './store/repo';
import { resolve, type EngineDeps } from './operationKit';
import { nameClash, NAMES_REMEDY } from './nameRules';

/** A target's checks of the pipeline's tables, described by the pipeline's source agent. */
async function tableChecks(deps: EngineDeps, row: StoredAgent, agent: ResolvedAgent): Promise<CheckResult[]> {
  const checkTables = pluginOf(deps.plugins, agent.type).target?.checkTables;
  if (agent.role !== 'target' || !checkTables) return [];
  const entities = deps.repo.entities(row.pipelineId);
  const sourceRow = deps.repo.storedAgents(row.pipelineId).find((a) => a.role === 'source');
  const source = sourceRow ? await resolve(deps, sourceRow).catch(() => undefined) : undefined;
  if (!source || entities.length === 0) return [];
  try {
    const shapes =
      (await deps.runtime.columns?.(
        source,
        entities,
        entities.map((e) => e.source),
      )) ?? [];
    const measure = async (asked: readonly ColumnsOf[]) =>
      (await deps.runtime.largestValues?.(source, entities, asked)) ?? [];
    return await checkTables(agent, shapes, measure);
  } catch (error) {
    return [
      unchecked(
        'table-widths',
        `The pipeline's tables could not be described for this check: ${(error as Error).message}`,
        'Run the source agent’s checks, then this one again.',
      ),
    ];
  }
}

export async function runAgentChecks(
  deps: EngineDeps,
  row: StoredAgent,
): Promise<{ checks: CheckResult[]; agent: ResolvedAgent | undefined; checkedAt: string }> {
  const checks: CheckResult[] = [
    row.hostCredentials
      ? { id: 'credentials-set', status: 'passed', message: 'Host credentials are stored.', remedy: null }
      : {
          id: 'credentials-set',
          status: 'failed',
          message: 'No host credentials yet.',
          remedy:
            'Set the host credentials: Edit agent… in the app (its first step), or PUT …/config/credentials.',
        },
    row.configuration
      ? { id: 'configuration-set', status: 'passed', message: 'Agent settings are stored.', remedy: null }
      : {
          id: 'configuration-set',
          status: 'failed',
          message: 'No agent settings yet.',
          remedy:
            'Set the agent settings: Edit agent… in the app (its second step), or PUT …/config/specific.',
        },
  ];
  // Names stored before these rules (or around them) are said first; nothing past them is checked,
  // so no fix is offered for a table that is the agent's own.
  const clash = nameClash(deps, row.pipelineId);
  if (clash) checks.push({ id: 'names', status: 'failed', message: clash, remedy: NAMES_REMEDY });
  const agent = clash ? undefined : await resolve(deps, row);
  if (agent) {
    const endpoint = pluginOf(deps.plugins, agent.type).endpoint(agent.hostCredentials);
    const reachable = endpoint ? await reachabilityCheck(endpoint.host, endpoint.port) : undefined;
    if (reachable) checks.push(reachable);
    // Past an unreachable port every database check would fail for the same reason: one result says it.
    if (!reachable || reachable.status === 'passed') {
      checks.push(...(await deps.runtime.check(agent, deps.repo.entities(row.pipelineId))));
      if (checks.every((c) => c.status === 'passed')) checks.push(...(await tableChecks(deps, row, agent)));
    }
  }
  const checkedAt = deps.now().toISOString();
  deps.repo.addEvent(row.pipelineId, row.id, 'checked', { checks }, checkedAt);
  return { checks, agent, checkedAt };
}
