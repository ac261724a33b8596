// The control API's operations as plain functions of (request, deps): the HTTP server calls them, and
// so can tests. States, storage and validation live here; database work goes to the runtime.
import { agentTypeSummaries, agentTypes, agentTypeSchema, AGENT_TYPES } from '../../shared/agents';
import { parseSection, parseWith } from '../../shared/config/parse';
import { sectionJsonSchema } from '../../shared/config/jsonSchema';
import {
  createAgentBodySchema,
  createPipelineBodySchema,
  entitiesBodySchema,
  type AgentState,
  type Entity,
} from '../../shared/controlApi';
import { problem } from '../platform/problem';
import { tableText } from '../../shared/names';
import { reshapedTables, SHAPING_CHANGED } from '../../shared/shaping';
import type { EventKind } from '../../shared/eventText';
import { pluginOf } from '../agents/registry';
import { signOnResult } from '../agents/checkResults';
import type { BacklogFigure, ResolvedAgent } from '../agents/spi';
import type { StoredAgent } from './store/repo';
import { toAgent } from './store/repo';
import { buildDiagnosticsBundle } from './diagnostics';
import { openApiDocument } from './openapi';
import {
  agentOr404,
  configured,
  ok,
  parsedOr422,
  pipelineOr404,
  resolve,
  secretContext,
  type EngineDeps,
  type Operations,
  type Reply,
} from './operationKit';
import { snapshotOperations } from './snapshotOperations';
import { rewindOperations } from './rewindOperations';
import { exceptionOperations, keepExceptions } from './exceptionOperations';
import { verifyOperations } from './verifyOperations';
import { liveOperations } from './liveOperations';
import { catalogOperations } from './catalogOperations';
import { readinessOperations } from './readinessOperations';
import { columnOperations } from './columnOperations';
import { checkNames } from './nameRules';
import {
  credentialsWithStoredSecrets,
  refuseSharedSource,
  refuseWhileRunning,
  splitSecrets,
  unwrap,
} from './configRules';
import { runAgentChecks } from './agentChecks';
import { validateOperation } from './validateOperation';

export type { EngineDeps } from './operationKit';

const BACKLOG_WINDOW_MS = 60 * 60 * 1000;

/** Both PUTs done → configured; a new configuration also lifts a failure, since it may be the fix. */
function stateAfterConfiguring(
  row: StoredAgent,
  hasCredentials: boolean,
  hasConfiguration: boolean,
): AgentState {
  // Paused or stopped, it stays so: a new setting does not change what the DBA last did.
  if (row.state === 'paused' || row.state === 'stopped') return row.state;
  return hasCredentials && hasConfiguration ? 'configured' : 'new';
}

/** The agent with its settings, or 409 when either PUT is still missing. */
/**
 * After a restart, the pipelines that were running run again, from their checkpoints; one that cannot
 * start is marked failed with the reason.
 */
export async function resumeRunning(deps: EngineDeps): Promise<void> {
  for (const row of deps.repo.runningAgents()) {
    try {
      const agent = await resolve(deps, row);
      if (!agent) throw new Error('its configuration is incomplete');
      await startRuntime(deps, row, agent);
      deps.repo.addEvent(row.pipelineId, row.id, 'resumed-after-restart', {}, deps.now().toISOString());
    } catch (error) {
      const reason = `It did not resume after the engine restarted: ${error instanceof Error ? error.message : String(error)}`;
      deps.repo.setState(row, 'failed', reason, deps.now().toISOString());
    }
  }
}

/** A backlog point of an agent (its runner's, or measured while it does not run): kept, charted, told. */
export function recordBacklog(deps: EngineDeps, row: StoredAgent, point: BacklogFigure): void {
  const at = deps.now();
  const before = deps.metrics.figures(row.pipelineId, row.id).warnings;
  const warnings = point.warnings ?? [];
  deps.metrics.backlog(row.pipelineId, row.id, point);
  // Told when they change: a warning that holds is not repeated every ten seconds.
  if (warnings.join('\n') !== before.join('\n'))
    deps.repo.addEvent(row.pipelineId, row.id, 'loss-warning', { warnings }, at.toISOString());
  // The chart's row and the backlog history in one commit of the store, not two.
  deps.repo.transaction(() => {
    deps.series.addBacklog(row.pipelineId, row.id, at.getTime(), point.rowsToRead, point.perTable);
    deps.repo.addBacklog(row.pipelineId, row.id, at.toISOString(), point);
  });
  deps.feed.agentChanged(row.pipelineId, row.id);
}

/** Hands a source agent to the runtime with its pipeline: entities, target, and where its events go. */
export async function startRuntime(deps: EngineDeps, row: StoredAgent, agent: ResolvedAgent): Promise<void> {
  // What was stored before these rules (or around them) is checked again before a row moves.
  checkNames(deps, { pipelineId: row.pipelineId });
  const targetRow = deps.repo.storedAgents(row.pipelineId).find((a) => a.role === 'target');
  const target = targetRow ? await resolve(deps, targetRow) : undefined;
  if (targetRow && !target)
    throw problem.conflict(
      `The target agent "${targetRow.id}" is not configured: PUT both of its config objects first.`,
    );
  // Pipelines whose target writes into the database this source reads: the other half of a two-way setup.
  const sameDatabase = pluginOf(deps.plugins, agent.type).target?.sameDatabase;
  const peerPipelines = sameDatabase
    ? deps.repo
        .configuredAgentsOfType(row.type)
        .filter(
          (t) =>
            t.role === 'target' &&
            t.pipelineId !== row.pipelineId &&
            sameDatabase(t.hostCredentials ?? {}, agent.hostCredentials),
        )
        .map((t) => t.pipelineId)
    : [];
  await deps.runtime.start(agent, {
    entities: deps.repo.entities(row.pipelineId),
    copyAtStart: deps.repo.pendingCopies(row.pipelineId),
    target,
    dataDir: deps.dataDir,
    peerPipelines,
    report: (kind, data) => {
      deps.metrics.event(row.pipelineId, row.id, kind, data);
      // A heartbeat every few seconds is a figure, not history: it feeds freshness and Status only.
      if (kind === 'heartbeat-applied') return;
      const at = deps.now();
      // A batch's chart row and its event in one commit of the store, not two.
      deps.repo.transaction(() => {
        if (kind === 'batch-applied') deps.series.addBatch(row.pipelineId, row.id, at.getTime(), data);
        deps.repo.addEvent(row.pipelineId, row.id, kind, data, at.toISOString());
      });
    },
    backlog: (point) => recordBacklog(deps, row, point),
    streamFigures: (figures) => deps.metrics.stream(row.pipelineId, row.id, figures),
    keepExceptions: (rows) => keepExceptions(deps, row, rows),
    verified: (report) => {
      // Kept only while the agent is: a report arriving after it was deleted has nowhere to go.
      if (deps.repo.storedAgent(row.pipelineId, row.id))
        deps.repo.addVerifyReport(row.pipelineId, row.id, report);
    },
    stoppedAtPoint: () => {
      const current = deps.repo.storedAgent(row.pipelineId, row.id);
      // Its stop-point-reached and stopped events are the runner's; the state follows them.
      if (current) deps.repo.setState(current, 'stopped', null, deps.now().toISOString());
    },
    failed: (reason) => {
      const at = deps.now().toISOString();
      const current = deps.repo.storedAgent(row.pipelineId, row.id);
      if (!current) return;
      deps.repo.transaction(() => {
        deps.repo.setState(current, 'failed', reason, at);
        deps.repo.addEvent(row.pipelineId, row.id, 'failed', { reason }, at);
      });
      deps.metrics.event(row.pipelineId, row.id, 'failed', {});
      deps.log.warn('engine.agent_failed', { pipeline: row.pipelineId, agent: row.id });
    },
  });
  // The runner holds them now: it copies each before its stream reads on.
  deps.repo.clearPendingCopies(row.pipelineId);
}

/** A start, pause or stop: the agent as it is afterwards (the three routes answer the same shape). */
function transition(
  deps: EngineDeps,
  row: StoredAgent,
  state: AgentState,
  event: EventKind,
): Reply<'startAgent' | 'pauseAgent' | 'stopAgent'> {
  const at = deps.now().toISOString();
  deps.repo.transaction(() => {
    deps.repo.setState(row, state, null, at);
    deps.repo.addEvent(row.pipelineId, row.id, event, { from: row.state, to: state }, at);
  });
  return ok(toAgent({ ...row, state, failureReason: null, updatedAt: at }));
}

/** The window of a table's applied changes in GET …/tables: the last hour. */
const ACTIVITY_WINDOW_MS = 3_600_000;

export const operations: Operations = {
  ...snapshotOperations,
  ...rewindOperations,
  ...exceptionOperations,
  ...verifyOperations,
  ...liveOperations,
  ...catalogOperations,
  ...readinessOperations,
  ...columnOperations,
  ...validateOperation,
  listAgentTypes: () => ok(agentTypeSummaries()),

  getAgentTypeSchema: ({ params }) => {
    const type = agentTypeSchema.safeParse(params.type);
    if (!type.success)
      throw problem.notFound(
        `There is no agent type "${String(params.type).slice(0, 64)}"; the types are ${AGENT_TYPES.join(', ')}.`,
      );
    const { sections } = agentTypes[type.data];
    return ok({
      type: type.data,
      hostCredentials: sectionJsonSchema(sections.hostCredentials),
      configuration: sectionJsonSchema(sections.configuration),
    });
  },

  listPipelines: (_req, deps) => ok(deps.repo.pipelines()),

  createPipeline: ({ body }, deps) => {
    const input = parsedOr422(parseWith(createPipelineBodySchema, body));
    const id = input.id ?? deps.newId();
    if (deps.repo.pipeline(id)) throw problem.conflict(`A pipeline "${id}" exists already.`);
    return ok(deps.repo.createPipeline({ id, name: input.name }, deps.now().toISOString()), 201);
  },

  getPipeline: ({ params }, deps) => {
    const pipeline = pipelineOr404(deps, params.pipelineId);
    return ok({
      ...pipeline,
      agents: deps.repo.agents(pipeline.id),
      entities: deps.repo.entities(pipeline.id),
    });
  },

  deletePipeline: ({ params }, deps) => {
    const pipeline = pipelineOr404(deps, params.pipelineId);
    const running = deps.repo.agents(pipeline.id).find((a) => a.state === 'running');
    if (running)
      throw problem.conflict(`Agent "${running.id}" of pipeline "${pipeline.id}" is running; stop it first.`);
    for (const a of deps.repo.agents(pipeline.id)) deps.metrics.forget(pipeline.id, a.id);
    deps.repo.deletePipeline(pipeline.id);
    return { status: 204 };
  },

  listAgents: ({ params }, deps) => ok(deps.repo.agents(pipelineOr404(deps, params.pipelineId).id)),

  createAgent: ({ params, body }, deps) => {
    const pipeline = pipelineOr404(deps, params.pipelineId);
    const input = parsedOr422(parseWith(createAgentBodySchema, body));
    const id = input.id ?? deps.newId();
    const roles = agentTypes[input.type].roles;
    if (!roles.includes(input.role))
      throw problem.invalid([
        {
          pointer: '/role',
          received: input.role,
          rule: `${roles.join(' or ')} for a ${input.type} agent`,
          message: `role must be ${roles.join(' or ')} for a ${input.type} agent; got "${input.role}".`,
        },
      ]);
    if (input.role === 'target' && deps.repo.agents(pipeline.id).some((a) => a.role === 'target'))
      throw problem.conflict(
        `Pipeline "${pipeline.id}" has a target agent already; a pipeline writes to one target.`,
      );
    if (deps.repo.storedAgent(pipeline.id, id))
      throw problem.conflict(`Pipeline "${pipeline.id}" has an agent "${id}" already.`);
    const at = deps.now().toISOString();
    deps.repo.createAgent(
      { pipelineId: pipeline.id, id, name: input.name ?? id, type: input.type, role: input.role },
      at,
    );
    const row = deps.repo.storedAgent(pipeline.id, id);
    if (!row) throw new Error('agent vanished after insert');
    return ok(toAgent(row), 201);
  },

  getAgent: ({ params }, deps) => ok(toAgent(agentOr404(deps, params))),

  deleteAgent: ({ params }, deps) => {
    const row = agentOr404(deps, params);
    refuseWhileRunning(row, 'deleting it');
    deps.repo.deleteAgent(row.pipelineId, row.id);
    deps.metrics.forget(row.pipelineId, row.id);
    return { status: 204 };
  },

  putCredentials: async ({ params, body }, deps) => {
    const row = agentOr404(deps, params);
    const value = await credentialsWithStoredSecrets(deps, row, unwrap(body, 'hostCredentials'));
    refuseWhileRunning(row, 'changing its credentials');
    refuseSharedSource(deps, row, value);
    const { plain, secrets } = splitSecrets(row, value);
    checkNames(deps, {
      pipelineId: row.pipelineId,
      agent: { id: row.id, settings: { hostCredentials: plain } },
    });
    const sealed = await deps.secrets.seal(JSON.stringify(secrets), secretContext(row));
    const at = deps.now().toISOString();
    const state = stateAfterConfiguring(row, true, row.configuration !== null);
    // Tried with these very credentials just before (the app's Apply validates first): said with them.
    const signOn = deps.signOns.recall(row.pipelineId, row.id, value);
    deps.repo.transaction(() => {
      const set = Object.keys(secrets).filter((k) => typeof secrets[k] === 'string' && secrets[k] !== '');
      deps.repo.putCredentials(row, plain, sealed, state, at, set);
      deps.repo.addEvent(row.pipelineId, row.id, 'credentials-replaced', { state }, at);
      if (signOn)
        deps.repo.addEvent(
          row.pipelineId,
          row.id,
          'credentials-signed-on',
          { status: signOn.status, message: signOn.message },
          at,
        );
    });
    const stored = deps.repo.storedAgent(row.pipelineId, row.id);
    // Just written in the transaction above: the stored credentials, secrets redacted.
    const hostCredentials = stored && toAgent(stored).hostCredentials;
    if (!hostCredentials) throw new Error('the credentials just stored cannot be read back');
    return ok({ hostCredentials });
  },

  testCredentials: async ({ params, body }, deps) => {
    const row = agentOr404(deps, params);
    const value = await credentialsWithStoredSecrets(deps, row, unwrap(body, 'hostCredentials'));
    const result = await signOnResult(() => pluginOf(deps.plugins, row.type).testConnection(value));
    deps.signOns.remember(row.pipelineId, row.id, value, result);
    return ok(result);
  },

  putSpecific: ({ params, body }, deps) => {
    const row = agentOr404(deps, params);
    const section = agentTypes[row.type].sections.configuration;
    const value = parsedOr422(parseSection(section, unwrap(body, 'configuration')));
    refuseWhileRunning(row, 'changing its configuration');
    checkNames(deps, {
      pipelineId: row.pipelineId,
      agent: { id: row.id, settings: { configuration: value as Record<string, unknown> } },
    });
    const at = deps.now().toISOString();
    const state = stateAfterConfiguring(row, row.hostCredentials !== null, true);
    deps.repo.transaction(() => {
      deps.repo.putConfiguration(row, value, state, at);
      deps.repo.addEvent(row.pipelineId, row.id, 'configuration-replaced', { state }, at);
    });
    return ok({ configuration: value });
  },

  listEntities: ({ params }, deps) => {
    const pipeline = pipelineOr404(deps, params.pipelineId);
    const entities = deps.repo.entities(pipeline.id);
    return ok({ entities, warnings: entityWarnings(entities) });
  },

  putEntities: async ({ params, body }, deps) => {
    const pipeline = pipelineOr404(deps, params.pipelineId);
    const { entities } = parsedOr422(parseWith(entitiesBodySchema, body));
    checkNames(deps, { pipelineId: pipeline.id, entities });
    const at = deps.now().toISOString();
    const source = deps.repo.storedAgents(pipeline.id).find((a) => a.role === 'source');
    const running = source?.state === 'running' || source?.state === 'paused';
    // A table whose shaping changed is copied again (docs/shaping.md): now when the pipeline runs,
    // at its next Start when it has run and does not now.
    const reshaped = reshapedTables(deps.repo.entities(pipeline.id), entities, (e) =>
      tableText(e.source.schema, e.source.table),
    );
    const hasRun = source?.state === 'stopped' || source?.state === 'failed';
    deps.repo.transaction(() => {
      deps.repo.replaceEntities(pipeline.id, entities);
      deps.repo.addEvent(pipeline.id, null, 'entities-replaced', { count: entities.length }, at);
      if (!running && hasRun)
        for (const table of reshaped) deps.repo.addPendingCopy(pipeline.id, table, SHAPING_CHANGED);
    });
    // A running (or paused) pipeline takes them at its next step: a table added is copied alone.
    if (source && running) {
      const agent = await resolve(deps, source);
      if (agent) deps.runtime.entitiesChanged(agent, entities);
    }
    // A pipeline that never ran has nothing at the target yet: its first copy shapes every row.
    const recopied = (running || hasRun ? reshaped : []).map(
      (t) =>
        `${t}: its shaping changed, so the rows already at the target are copied again ${running ? 'now' : 'at the next Start'}.`,
    );
    return ok({ entities, warnings: [...entityWarnings(entities), ...recopied] });
  },

  testAgent: async ({ params }, deps) => {
    const row = agentOr404(deps, params);
    const { checks, checkedAt } = await runAgentChecks(deps, row);
    return ok({ agentId: row.id, checkedAt, checks });
  },

  applyFix: async ({ params }, deps) => {
    const row = agentOr404(deps, params);
    const agent = await configured(deps, row);
    const checkId = params.checkId ?? '';
    const { applied, checks } = await deps.runtime.applyFix(
      agent,
      deps.repo.entities(row.pipelineId),
      checkId,
    );
    const at = deps.now().toISOString();
    deps.repo.addEvent(
      row.pipelineId,
      row.id,
      applied ? 'fix-applied' : 'fix-not-needed',
      { checkId, applied, checks },
      at,
    );
    deps.log.info('engine.fix', { agent: row.id, checkId, applied: applied !== null });
    return ok({ agentId: row.id, checkId, applied, checkedAt: at, checks });
  },

  listAgentTables: async ({ params }, deps) => {
    const row = agentOr404(deps, params);
    const agent = await configured(deps, row);
    if (agent.role !== 'source')
      throw problem.conflict(`Agent "${row.id}" is a target: its pipeline's source agent reads the tables.`);
    const tables = await deps.runtime.tables(agent, deps.repo.entities(row.pipelineId));
    const now = deps.now();
    const since = new Date(now.getTime() - ACTIVITY_WINDOW_MS).toISOString();
    return ok({
      agentId: row.id,
      checkedAt: now.toISOString(),
      tables,
      activity: deps.repo.tableActivity(row.pipelineId, row.id, since),
      activitySince: since,
    });
  },

  getBacklog: async ({ params }, deps) => {
    const row = agentOr404(deps, params);
    const now = deps.now();
    const history = deps.repo.backlogSince(
      row.pipelineId,
      row.id,
      new Date(now.getTime() - BACKLOG_WINDOW_MS).toISOString(),
    );
    const agent = await resolve(deps, row);
    const figure = agent
      ? await deps.runtime.backlog(agent, deps.repo.entities(row.pipelineId))
      : { unavailable: 'Configure both steps first.' };
    if ('unavailable' in figure)
      return ok({ agentId: row.id, current: null, unavailableReason: figure.unavailable, history });
    // The measured estimate comes from the running pipeline's latest point, when there is one.
    const measured = figure.measuredMinutesLeft ?? history.at(-1)?.measuredMinutesLeft ?? null;
    return ok({
      agentId: row.id,
      current: { at: now.toISOString(), ...figure, measuredMinutesLeft: measured },
      unavailableReason: null,
      history,
    });
  },

  startAgent: async ({ params }, deps) => {
    const row = agentOr404(deps, params);
    if (row.state === 'running') return ok(toAgent(row));
    if (row.role === 'target')
      throw problem.conflict(
        `Agent "${row.id}" is a target: start the pipeline's source agent, which writes to it.`,
      );
    const agent = await configured(deps, row);
    // Settings stored while paused: Resume starts the pipeline again with them, from its checkpoints,
    // so what the DBA applied is what runs (decided for issue 54: a resume on old settings hid them).
    const restart = row.state === 'paused' && deps.repo.settingsPendingSince(row.pipelineId, row.id) !== null;
    if (restart) await deps.runtime.stop(agent);
    await startRuntime(deps, row, agent);
    return transition(deps, row, 'running', row.state === 'paused' && !restart ? 'resumed' : 'started');
  },

  listEvents: ({ params }, deps) =>
    ok(deps.repo.pipelineEvents(pipelineOr404(deps, params.pipelineId).id, 500)),

  pauseAgent: async ({ params }, deps) => {
    const row = agentOr404(deps, params);
    if (row.state === 'paused') return ok(toAgent(row));
    if (row.state !== 'running')
      throw problem.conflict(`Agent "${row.id}" is ${row.state}; only a running agent can pause.`);
    const agent = await resolve(deps, row);
    if (agent) await deps.runtime.pause(agent);
    return transition(deps, row, 'paused', 'paused');
  },

  stopAgent: async ({ params }, deps) => {
    const row = agentOr404(deps, params);
    if (row.state !== 'running' && row.state !== 'paused') return ok(toAgent(row));
    const agent = await resolve(deps, row);
    if (agent) await deps.runtime.stop(agent);
    return transition(deps, row, 'stopped', 'stopped');
  },

  createDiagnostics: async (_req, deps) => ({
    status: 200,
    body: await buildDiagnosticsBundle(deps, { source: 'engine', versions: deps.versions }),
  }),

  rotateToken: (_req, deps) => {
    const token = deps.tokens.rotate();
    deps.log.info('engine.token_rotated');
    return ok({ token, note: 'Shown once: store it now. The previous token no longer works.' });
  },

  rotateMetricsToken: (_req, deps) => {
    const token = deps.tokens.rotateMetrics();
    deps.log.info('engine.metrics_token_rotated');
    return ok({
      token,
      note: 'Shown once: put it in the Prometheus scrape configuration. It reads GET /metrics only; the previous one no longer works.',
    });
  },

  getMetrics: (_req, deps) => {
    const agents = deps.repo
      .pipelines()
      .flatMap((p) => deps.repo.storedAgents(p.id))
      .map((a) => ({
        pipelineId: a.pipelineId,
        id: a.id,
        type: a.type,
        state: a.state,
        // As the running pipeline holds them (kept at its target, so across restarts).
        tablesSuspended: deps.runtime.suspendedTables?.(a.pipelineId, a.id).length ?? 0,
        exceptions: a.role === 'source' ? deps.exceptions.counts(a.pipelineId, a.id) : {},
      }));
    return ok(new TextEncoder().encode(deps.metrics.render(agents, deps.versions.engine ?? 'unknown')));
  },

  getOpenApi: () => ok(openApiDocument()),
};

function entityWarnings(entities: readonly Entity[]): string[] {
  return entities
    .filter((e) => e.rowIdentification.kind === 'rrn')
    .map(
      (e) =>
        `${e.source.schema}.${e.source.table} is identified by RRN: a reorganisation (RGZPFM) renumbers rows, so changes can ` +
        'fail or reach the wrong row. A logical key is the safer choice.',
    );
}
