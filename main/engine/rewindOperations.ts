// A rewind through the control API: the point checked against the source type's own `startAt` rule
// (the same field a configuration takes), then handed to the running pipeline; its outcome comes as a
// `rewound` or `rewind-refused` event. A pipeline that does not run here answers 409.
import { parseWith } from '../../shared/config/parse';
import { showValue } from '../../shared/config/problems';
import { rewindRequestBodySchema, startAtRuleOf } from '../../shared/rewind';
import { pluginOf } from '../agents/registry';
import { problem } from '../platform/problem';
import { ok, parsedOr422, sourceAgentOr409, type Operations } from './operationKit';

export const rewindOperations: Pick<Operations, 'rewindPipeline'> = {
  rewindPipeline: async ({ params, body }, deps) => {
    const { to } = parsedOr422(parseWith(rewindRequestBodySchema, body));
    const agent = await sourceAgentOr409(deps, params, 'is rewound');
    if (!agent)
      throw problem.conflict(`Agent "${params.agentId}" is not configured: there is nothing to rewind.`);
    const startAt = startAtRuleOf(pluginOf(deps.plugins, agent.type).definition.sections.configuration);
    if (!startAt)
      throw problem.conflict(`Agent type "${agent.type}" cannot be rewound: it names no start point.`);
    if (!startAt.field.safeParse(to).success) {
      const named = startAt.rule;
      throw problem.invalid([
        {
          pointer: '/to',
          received: showValue(to),
          rule: named,
          message: `to must be ${named}, as the agent's Start at setting takes it; got ${showValue(to)}.`,
        },
      ]);
    }
    if (deps.runtime.rewind(agent, to) === 'not-running')
      throw problem.conflict(
        `Agent "${params.agentId}" is not running: start it first; a rewind is asked of a running pipeline.`,
      );
    deps.repo.addEvent(
      params.pipelineId ?? '',
      params.agentId ?? '',
      'rewind-requested',
      { to },
      deps.now().toISOString(),
    );
    return ok({ agentId: agent.id, to, status: 'requested' as const });
  },
};
