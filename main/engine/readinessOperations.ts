// POST …/readiness-report: the checks run now (they only read), the tables read now, and the page made
// from them on the engine — so a remote engine's report is the same as the local one's.
import { agentTypes } from '../../shared/agents';
import type { TableState } from '../../shared/controlApi';
import { provenanceOf } from '../../shared/shaping';
import { pluginOf } from '../agents/registry';
import { problem } from '../platform/problem';
import { runAgentChecks } from './agentChecks';
import { engineSecrets, scrubSecrets } from './diagnostics';
import { agentOr404, pipelineOr404, type EngineDeps, type Operations } from './operationKit';
import { agentStatus } from './liveOperations';
import { readinessReportHtml, type ReadinessFacts } from './readinessReport';
import { toAgent } from './store/repo';

/** Where the pipeline writes, in words: its target agent's kind and place, or the default file. */
function targetOf(deps: EngineDeps, pipelineId: string): string {
  const target = deps.repo.storedAgents(pipelineId).find((a) => a.role === 'target');
  if (!target) return `The default SQLite file, replicas/${pipelineId}.sqlite in the engine's data folder.`;
  const { title, database } = agentTypes[target.type];
  const c = target.hostCredentials ?? {};
  const text = (key: string) => (typeof c[key] === 'string' ? (c[key] as string) : undefined);
  const port = typeof c.port === 'number' ? `, port ${c.port}` : '';
  const schema = target.configuration?.schema;
  const place = [
    text('path'),
    text('host') && `${text('host')}${port}`,
    text('databaseName') && `database ${text('databaseName')}`,
    typeof schema === 'string' && schema !== '' && `schema ${schema}`,
  ].filter(Boolean);
  const kind = title === database ? title : `${title}, ${database}`;
  return `${kind}: agent ${target.id}${place.length > 0 ? `, ${place.join(', ')}` : ' (not configured yet)'}.`;
}

/** The agent's latency figures as Status shows them; null when the agent is gone from the store. */
function freshnessOf(deps: EngineDeps, pipelineId: string, agentId: string): ReadinessFacts['freshness'] {
  const status = agentStatus(deps, pipelineId, agentId);
  return status?.freshness ? { latency: status.latency ?? null, windows: status.freshness } : null;
}

export const readinessOperations: Pick<Operations, 'createReadinessReport'> = {
  createReadinessReport: async ({ params }, deps) => {
    const row = agentOr404(deps, params);
    if (row.role !== 'source')
      throw problem.conflict(
        `Agent "${row.id}" is a target: the report is made for its pipeline's source agent.`,
      );
    const pipeline = pipelineOr404(deps, row.pipelineId);
    const { checks, agent, checkedAt: madeAt } = await runAgentChecks(deps, row);
    let tables: TableState[] | string = 'the agent is not configured, or its names clash (see the checks).';
    if (agent)
      tables = await deps.runtime
        .tables(agent, deps.repo.entities(row.pipelineId))
        .catch((error: unknown) => (error instanceof Error ? error.message : 'the source did not answer.'));
    const html = readinessReportHtml({
      pipeline,
      agent: toAgent(row),
      agentTypeTitle: `${agentTypes[row.type].title}, ${agentTypes[row.type].database}`,
      endpoint: (agent && pluginOf(deps.plugins, agent.type).endpoint(agent.hostCredentials)) ?? null,
      target: targetOf(deps, row.pipelineId),
      checks,
      tables,
      entities: deps.repo.entities(row.pipelineId),
      provenance: provenanceOf(row.configuration ?? {}),
      freshness: freshnessOf(deps, row.pipelineId, row.id),
      madeAt,
      versions: deps.versions,
    });
    // Nothing above holds a secret; as a second net every secret the engine holds is scrubbed.
    const body = new TextEncoder().encode(scrubSecrets(html, await engineSecrets(deps)));
    deps.log.info('engine.readiness-report', { agent: row.id, bytes: body.length });
    return { status: 200, body };
  },
};
