// Rows the target refused, through the control API: kept by the running pipeline (keepExceptions),
// listed, retried from the source by key, discarded; and a suspended table resumed. A retry goes to the
// running pipeline (it holds the source and the target); one that does not run here answers 409.
import { parseWith } from '../../shared/config/parse';
import {
  exceptionsQuerySchema,
  exceptionsRequestSchema,
  fromExact,
  toExact,
  type ExactRow,
  type ExceptionsAnswer,
} from '../../shared/exceptions';
import { snapshotRequestBodySchema } from '../../shared/snapshots';
import type { Row } from '../agents/source';
import type { RefusedRow, ResolvedAgent } from '../agents/spi';
import { snapshotsAnswer } from './snapshotOperations';
import { problem } from '../platform/problem';
import type { StoredAgent } from './store/repo';
import {
  agentOr404,
  ok,
  parsedOr422,
  sourceAgentOr409,
  type EngineDeps,
  type Operations,
} from './operationKit';

/** The rows a retry or a discard takes when the request names neither ids nor a table. */
const MOST_AT_ONCE = 10_000;

const exact = (row: Row): ExactRow =>
  Object.fromEntries(Object.entries(row).map(([k, v]) => [k, toExact(v)]));

/** The running pipeline's refused rows, to the store: answers each of their tables' rows kept now. */
export function keepExceptions(
  deps: EngineDeps,
  agent: StoredAgent,
  rows: readonly RefusedRow[],
): Record<string, number> {
  // An agent deleted while its last batch was applied has nowhere to keep them.
  if (!deps.repo.storedAgent(agent.pipelineId, agent.id)) return {};
  const kept = deps.exceptions.keep(
    agent.pipelineId,
    agent.id,
    rows.map(({ raw, ...r }) => ({
      ...r,
      key: exact(r.key),
      values: r.values && exact(r.values),
      ...(raw && { raw: Buffer.from(raw).toString('hex') }),
    })),
    deps.now().toISOString(),
  );
  return kept;
}

function answer(
  deps: EngineDeps,
  params: Record<string, string>,
  table?: string,
  limit = 1000,
): ExceptionsAnswer {
  const [pipelineId, agentId] = [params.pipelineId ?? '', params.agentId ?? ''];
  return {
    agentId,
    counts: deps.exceptions.counts(pipelineId, agentId),
    rows: deps.exceptions.list(pipelineId, agentId, table ?? null, limit),
  };
}

export const exceptionOperations: Pick<
  Operations,
  'listExceptions' | 'retryExceptions' | 'discardExceptions' | 'resumeTable'
> = {
  listExceptions: ({ params, body }, deps) => {
    agentOr404(deps, params);
    const { table, limit } = parsedOr422(parseWith(exceptionsQuerySchema, body ?? {}));
    return ok(answer(deps, params, table, limit));
  },

  retryExceptions: async ({ params, body }, deps) => {
    const which = parsedOr422(parseWith(exceptionsRequestSchema, body ?? {}));
    const agent = await sourceAgentOr409(deps, params, 'retries the rows kept');
    const [pipelineId, agentId] = [params.pipelineId ?? '', params.agentId ?? ''];
    const kept = deps.exceptions.select(pipelineId, agentId, which, MOST_AT_ONCE);
    const items = kept.map((e) => ({
      id: e.id,
      table: e.table,
      key: Object.fromEntries(Object.entries(e.key).map(([k, v]) => [k, fromExact(v)])),
    }));
    const asked = agent ? deps.runtime.retryRows(agent, items) : 'not-running';
    if (asked === 'not-running')
      throw problem.conflict(
        `Agent "${agentId}" is not running: start it (or resume it) first; a retry reads each row from the source and writes it to the target.`,
      );
    const outcomes = await asked;
    const applied = outcomes.flatMap((o) => (o.status === 'applied' ? [o.id] : []));
    const refused = outcomes.flatMap((o) => (o.status === 'refused' ? [{ id: o.id, error: o.error }] : []));
    const at = deps.now().toISOString();
    deps.exceptions.retried(pipelineId, agentId, { applied, refused }, at);
    const waiting = outcomes.flatMap((o) => (o.status === 'waiting' ? [o.reason] : []));
    deps.repo.addEvent(
      pipelineId,
      agentId,
      'exceptions-retried',
      { applied: applied.length, refusedAgain: refused.length, ...(waiting[0] && { waiting: waiting[0] }) },
      at,
    );
    return ok({ ...answer(deps, params), applied: applied.length, refusedAgain: refused.length });
  },

  discardExceptions: ({ params, body }, deps) => {
    const which = parsedOr422(parseWith(exceptionsRequestSchema, body ?? {}));
    agentOr404(deps, params);
    const [pipelineId, agentId] = [params.pipelineId ?? '', params.agentId ?? ''];
    const discarded = deps.exceptions.discard(pipelineId, agentId, which);
    deps.repo.addEvent(
      pipelineId,
      agentId,
      'exceptions-discarded',
      { count: discarded },
      deps.now().toISOString(),
    );
    return ok({ ...answer(deps, params), discarded });
  },

  resumeTable: async ({ params, body }, deps) => {
    const { table } = parsedOr422(parseWith(snapshotRequestBodySchema, body));
    const agent = await sourceAgentOr409(deps, params, 'resumes its tables');
    const outcome = agent ? deps.runtime.requestSnapshot(agent, table, 'resume') : 'not-running';
    if (outcome === 'not-running')
      throw problem.conflict(
        `Agent "${params.agentId}" is not running: start it first, then resume ${table}.`,
      );
    if (outcome === 'unknown-table')
      throw problem.conflict(
        `${table} is not suspended or stopped in pipeline "${params.pipelineId}": nothing to resume.`,
      );
    deps.repo.addEvent(
      params.pipelineId ?? '',
      params.agentId ?? '',
      'snapshot-resume-requested',
      { table },
      deps.now().toISOString(),
    );
    return ok(snapshotsAnswer(deps, agent as ResolvedAgent));
  },
};
