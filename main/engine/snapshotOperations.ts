// Table copies through the control API: what a running pipeline is copying, a re-snapshot of one
// entity's table, and the cancel of a copy. Requests go to the running pipeline; a pipeline that does
// not run here answers 409 (its copies resume from the target when it starts).
import { parseWith } from '../../shared/config/parse';
import { snapshotRequestBodySchema, type SnapshotsAnswer } from '../../shared/snapshots';
import type { ResolvedAgent } from '../agents/spi';
import { problem } from '../platform/problem';
import { ok, parsedOr422, sourceAgentOr409, type EngineDeps, type Operations } from './operationKit';

/** The running pipeline's copies, and the tables stopped or suspended, as GET …/snapshots answers them. */
export function snapshotsAnswer(deps: EngineDeps, agent: ResolvedAgent): SnapshotsAnswer {
  const tables = deps.runtime.snapshots(agent);
  return { agentId: agent.id, running: tables !== null, tables: tables ?? [] };
}

const sourceAgent = (deps: EngineDeps, params: Record<string, string>) =>
  sourceAgentOr409(deps, params, 'copies the tables');

async function request(
  deps: EngineDeps,
  params: Record<string, string>,
  body: unknown,
  kind: 'copy' | 'cancel',
): Promise<{ status: number; body: SnapshotsAnswer }> {
  const { table } = parsedOr422(parseWith(snapshotRequestBodySchema, body));
  const agent = await sourceAgent(deps, params);
  const outcome = agent ? deps.runtime.requestSnapshot(agent, table, kind) : 'not-running';
  if (outcome === 'not-running')
    throw problem.conflict(
      `Agent "${params.agentId}" is not running: start it first; a copy is asked of a running pipeline.`,
    );
  if (outcome === 'unknown-table')
    throw problem.conflict(
      kind === 'copy'
        ? `No entity of pipeline "${params.pipelineId}" reads ${table}: name it as schema.table, as in the entity.`
        : `${table} is not being copied: there is no copy to cancel.`,
    );
  const at = deps.now().toISOString();
  deps.repo.addEvent(
    params.pipelineId ?? '',
    params.agentId ?? '',
    `snapshot-${kind}-requested`,
    { table },
    at,
  );
  return ok(snapshotsAnswer(deps, agent as ResolvedAgent));
}

export const snapshotOperations: Pick<Operations, 'listSnapshots' | 'requestSnapshot' | 'cancelSnapshot'> = {
  listSnapshots: async ({ params }, deps) => {
    const agent = await sourceAgent(deps, params);
    return ok(
      agent ? snapshotsAnswer(deps, agent) : { agentId: params.agentId ?? '', running: false, tables: [] },
    );
  },
  requestSnapshot: ({ params, body }, deps) => request(deps, params, body, 'copy'),
  cancelSnapshot: ({ params, body }, deps) => request(deps, params, body, 'cancel'),
};
