// Verify and repair through the control API (docs/verify.md): what the running pipeline is verifying
// (or verified last), the reports kept with the pipeline, and the requests to verify, repair or cancel.
// Requests go to the running pipeline; one that does not run here answers 409.
import { parseWith } from '../../shared/config/parse';
import { verifyRequestSchema, type VerifyAction, type VerifyAnswer } from '../../shared/verify';
import type { ResolvedAgent } from '../agents/spi';
import { problem } from '../platform/problem';
import { VerifyRefused } from '../runner/verify/verifications';
import { ok, parsedOr422, sourceAgentOr409, type EngineDeps, type Operations } from './operationKit';

const sourceAgent = (deps: EngineDeps, params: Record<string, string>) =>
  sourceAgentOr409(deps, params, 'verifies the tables');

function answer(deps: EngineDeps, params: Record<string, string>, agent: ResolvedAgent | null): VerifyAnswer {
  const current = agent ? deps.runtime.verifyReport(agent) : 'not-running';
  return {
    agentId: params.agentId ?? '',
    running: current !== 'not-running',
    current: current === 'not-running' ? null : current,
    history: deps.repo.verifyReports(params.pipelineId ?? '', params.agentId ?? ''),
  };
}

async function ask(
  deps: EngineDeps,
  params: Record<string, string>,
  action: VerifyAction,
): Promise<{ status: number; body: VerifyAnswer }> {
  const agent = await sourceAgent(deps, params);
  let outcome;
  try {
    outcome = agent ? deps.runtime.verify(agent, action) : 'not-running';
  } catch (error) {
    if (error instanceof VerifyRefused) throw problem.conflict(error.message);
    throw error;
  }
  if (outcome === 'not-running')
    throw problem.conflict(
      `Agent "${params.agentId}" is not running: start it first; a verify runs beside the pipeline's own work.`,
    );
  deps.repo.addEvent(
    params.pipelineId ?? '',
    params.agentId ?? '',
    action.action === 'verify' ? 'verify-requested' : `verify-${action.action}-requested`,
    action.action === 'verify' ? { table: action.table ?? null, ...action.options } : {},
    deps.now().toISOString(),
  );
  return ok(answer(deps, params, agent));
}

export const verifyOperations: Pick<
  Operations,
  'getVerify' | 'requestVerify' | 'repairVerify' | 'cancelVerify'
> = {
  getVerify: async ({ params }, deps) => ok(answer(deps, params, await sourceAgent(deps, params))),
  requestVerify: ({ params, body }, deps) => {
    const { table, ...options } = parsedOr422(parseWith(verifyRequestSchema, body ?? {}));
    return ask(
      deps,
      params,
      table === undefined ? { action: 'verify', options } : { action: 'verify', table, options },
    );
  },
  repairVerify: ({ params }, deps) => ask(deps, params, { action: 'repair' }),
  cancelVerify: ({ params }, deps) => ask(deps, params, { action: 'cancel' }),
};
