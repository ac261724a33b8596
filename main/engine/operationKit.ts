// What every control API operation is written with: the engine's dependencies, the request and reply
// types, and the lookups that answer 404, 409 or 422 in the same words everywhere.
import type { SignOnMemo } from './signOnMemo';
import type { Problem } from '../../shared/config/problems';
import { ID_PATTERN } from '../../shared/controlApi';
import type {
  AnsweredOperationId,
  OperationId,
  RouteAnswer,
  RouteParams,
  Routes,
} from '../../shared/controlApiRoutes';
import { pluginOf, type AgentPlugins } from '../agents/registry';
import type { AgentRuntime, ResolvedAgent } from '../agents/spi';
import type { Log } from '../platform/log';
import { problem } from '../platform/problem';
import type { SecretBox } from '../platform/secretBox';
import type { Repo, StoredAgent } from './store/repo';
import type { TokenKeeper } from './tokens';
import type { EngineFeed } from './feed';
import type { ExceptionsStore } from './store/exceptions';
import type { SeriesStore } from './store/series';
import type { EngineMetrics } from './metrics';

export interface EngineDeps {
  repo: Repo;
  secrets: SecretBox;
  runtime: AgentRuntime;
  /** The agent types' database side (the registry's; a test may add a type of its own). */
  plugins: AgentPlugins;
  tokens: TokenKeeper;
  /** What the runners reported since the engine started, for GET /metrics and the statuses. */
  metrics: EngineMetrics;
  /** The charts' figures, a row a minute per agent and table, kept a day. */
  series: SeriesStore;
  /** Rows the targets refused, kept until retried or discarded. */
  exceptions: ExceptionsStore;
  /** The event stream's subscribers (GET /events/stream). */
  feed: EngineFeed;
  /** The latest sign-on tried with each agent's credentials, told when those credentials are stored. */
  signOns: SignOnMemo;
  log: Log;
  /** Seam: the clock, fixed by tests. */
  now: () => Date;
  /** Seam: new ids for pipelines and agents created without one. */
  newId: () => string;
  /** The engine's data folder (the default SQLite replicas live in it). */
  dataDir: string;
  /** The engine's files outside its data folder (a TLS certificate and key given by path). */
  ownFiles?: readonly string[];
  /** What diagnostics report as versions: the engine's and its runtime's. */
  versions: Record<string, string>;
}

/** A request as the server hands it over: the route's path parameters, and the body still unparsed. */
export interface OperationRequest<O extends OperationId = OperationId> {
  params: RouteParams<Routes[O]['path']> & Record<string, string>;
  body: unknown;
}
/** An answer typed by the route that declares it: its response schema's type (or bytes, or nothing). */
export interface Reply<O extends OperationId = OperationId> {
  status: number;
  body?: RouteAnswer<O>;
}
/** The engine's operations: every route answered once (the event stream is the server's own). */
export type Operations = {
  [O in AnsweredOperationId]: (req: OperationRequest<O>, deps: EngineDeps) => Promise<Reply<O>> | Reply<O>;
};

export const ok = <T>(body: T, status = 200) => ({ status, body });
export function parsedOr422<T>(result: { ok: true; value: T } | { ok: false; problems: Problem[] }): T {
  if (!result.ok) throw problem.invalid(result.problems);
  return result.value;
}

export function pipelineOr404(deps: EngineDeps, pipelineId: string | undefined) {
  const pipeline =
    pipelineId !== undefined && ID_PATTERN.test(pipelineId) ? deps.repo.pipeline(pipelineId) : undefined;
  if (!pipeline) throw problem.notFound(`There is no pipeline "${String(pipelineId).slice(0, 64)}".`);
  return pipeline;
}

export function agentOr404(deps: EngineDeps, params: Record<string, string>): StoredAgent {
  const pipeline = pipelineOr404(deps, params.pipelineId);
  const agentId = params.agentId ?? '';
  const row = ID_PATTERN.test(agentId) ? deps.repo.storedAgent(pipeline.id, agentId) : undefined;
  if (!row) throw problem.notFound(`Pipeline "${pipeline.id}" has no agent "${agentId.slice(0, 64)}".`);
  return row;
}

/**
 * A pipeline's source agent, resolved when configured (null when not): a target is refused with 409,
 * naming what its source agent does (`does`, e.g. "copies the tables").
 */
export async function sourceAgentOr409(
  deps: EngineDeps,
  params: Record<string, string>,
  does: string,
): Promise<ResolvedAgent | null> {
  const row = agentOr404(deps, params);
  if (row.role !== 'source')
    throw problem.conflict(`Agent "${row.id}" is a target: its pipeline's source agent ${does}.`);
  return (await resolve(deps, row)) ?? null;
}

export async function configured(deps: EngineDeps, row: StoredAgent): Promise<ResolvedAgent> {
  const agent = await resolve(deps, row);
  if (!agent)
    throw problem.conflict(
      `Agent "${row.id}" is not configured: PUT both config/credentials and config/specific first.`,
    );
  return agent;
}

export const secretContext = (row: StoredAgent) => `agent:${row.pipelineId}/${row.id}:hostCredentials`;

export async function resolve(
  deps: Pick<EngineDeps, 'plugins' | 'secrets'>,
  row: StoredAgent,
): Promise<ResolvedAgent | undefined> {
  if (row.hostCredentials === null || row.secretsSealed === null || row.configuration === null)
    return undefined;
  const secrets = JSON.parse(await deps.secrets.open(row.secretsSealed, secretContext(row))) as Record<
    string,
    unknown
  >;
  // Parsed by the type's own schemas, defaults filled in: its plugin reads typed settings.
  const { sections } = pluginOf(deps.plugins, row.type).definition;
  const parsed = (section: 'hostCredentials' | 'configuration', value: Record<string, unknown>) => {
    const result = sections[section].schema.safeParse(value);
    if (result.success) return result.data as Record<string, unknown>;
    throw new Error(
      `The stored ${section} of agent ${row.pipelineId}/${row.id} no longer meet its type's rules; ` +
        `put them again (${result.error.issues.map((i) => i.path.join('.') || '(the object)').join(', ')}).`,
    );
  };
  return {
    pipelineId: row.pipelineId,
    id: row.id,
    type: row.type,
    role: row.role,
    hostCredentials: parsed('hostCredentials', { ...row.hostCredentials, ...secrets }),
    configuration: parsed('configuration', row.configuration),
  };
}
