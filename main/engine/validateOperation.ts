// POST …/config/validate: an agent's two settings objects checked as the PUTs would check them, and
// nothing stored — for an agent that exists (its stored password fills a left-out one) or one that
// does not yet (its type and role given, its pipeline perhaps not made yet).
import { agentTypes } from '../../shared/agents';
import { parseWith } from '../../shared/config/parse';
import { ID_PATTERN, ID_RULE, validateConfigBodySchema } from '../../shared/controlApi';
import { problem } from '../platform/problem';
import { pluginOf } from '../agents/registry';
import { signOnResult } from '../agents/checkResults';
import type { StoredAgent } from './store/repo';
import { ok, parsedOr422, type EngineDeps, type Operations } from './operationKit';
import { checkBothSections, splitSecrets } from './configRules';

type Body = ReturnType<typeof validateConfigBodySchema.parse>;

const idProblem = (pointer: string, received: string) => ({
  pointer,
  received,
  rule: ID_RULE,
  message: `${pointer.slice(1)} must be ${ID_RULE}; got "${received.slice(0, 64)}".`,
});

/** The agent as stored, or as POST …/agents would make it from the body (422/409 as that would). */
function storedOrProposed(
  deps: EngineDeps,
  params: Record<string, string>,
  body: Body,
): { row: StoredAgent; exists: boolean } {
  const pipelineId = params.pipelineId ?? '';
  const agentId = params.agentId ?? '';
  const bad = [
    ...(ID_PATTERN.test(pipelineId) ? [] : [idProblem('/pipelineId', pipelineId)]),
    ...(ID_PATTERN.test(agentId) ? [] : [idProblem('/agentId', agentId)]),
  ];
  if (bad.length > 0) throw problem.invalid(bad);
  const stored = deps.repo.storedAgent(pipelineId, agentId);
  if (stored) {
    if (body.type && body.type !== stored.type)
      throw problem.conflict(
        `Agent "${agentId}" of pipeline "${pipelineId}" is a ${stored.type} agent, not ${body.type}.`,
        '/type',
      );
    return { row: stored, exists: true };
  }
  if (!body.type)
    throw problem.invalid([
      {
        pointer: '/type',
        received: '',
        rule: 'the agent type, for an agent that does not exist yet',
        message: `Agent "${agentId}" of pipeline "${pipelineId}" does not exist yet: give its type (and role) to check settings for it.`,
      },
    ]);
  const { roles } = agentTypes[body.type];
  const role = body.role ?? roles[0] ?? 'source';
  if (!roles.includes(role))
    throw problem.invalid([
      {
        pointer: '/role',
        received: role,
        rule: `${roles.join(' or ')} for a ${body.type} agent`,
        message: `role must be ${roles.join(' or ')} for a ${body.type} agent; got "${role}".`,
      },
    ]);
  if (role === 'target' && deps.repo.storedAgents(pipelineId).some((a) => a.role === 'target'))
    throw problem.conflict(
      `Pipeline "${pipelineId}" has a target agent already; a pipeline writes to one target.`,
      '/role',
    );
  const at = deps.now().toISOString();
  return {
    exists: false,
    row: {
      pipelineId,
      id: agentId,
      name: agentId,
      type: body.type,
      role,
      state: 'new',
      failureReason: null,
      hostCredentials: null,
      secretsSealed: null,
      configuration: null,
      createdAt: at,
      updatedAt: at,
    },
  };
}

export const validateOperation: Pick<Operations, 'validateConfig'> = {
  validateConfig: async ({ params, body }, deps) => {
    const input = parsedOr422(parseWith(validateConfigBodySchema, body));
    const { row, exists } = storedOrProposed(deps, params, input);
    const checked = await checkBothSections(deps, row, input, !exists);
    const signOn = input.signOn
      ? await signOnResult(() => pluginOf(deps.plugins, row.type).testConnection(checked.hostCredentials))
      : null;
    if (signOn) deps.signOns.remember(row.pipelineId, row.id, checked.hostCredentials, signOn);
    return ok({
      exists,
      hostCredentials: splitSecrets(row, checked.hostCredentials).plain,
      configuration: checked.configuration,
      signOn,
    });
  },
};
