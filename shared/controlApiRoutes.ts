// Every control API operation, declared once: method, path, body and answer schemas. The engine binds
// its handlers to these, the client builds its typed functions from them, the OpenAPI document too.
import { rewindAnswerSchema, rewindRequestBodySchema } from './rewind';
import { z } from 'zod';
import { agentTypeSchema, agentTypeSummarySchema } from './agents';
import {
  agentSchema,
  backlogAnswerSchema,
  catalogAnswerSchema,
  catalogQuerySchema,
  checkResultSchema,
  columnsAnswerSchema,
  columnsQuerySchema,
  createAgentBodySchema,
  createPipelineBodySchema,
  entitiesBodySchema,
  entitySchema,
  fixAnswerSchema,
  pipelineEventSchema,
  pipelineSchema,
  tablesAnswerSchema,
  testAnswerSchema,
  tokenAnswerSchema,
  validateConfigAnswerSchema,
  validateConfigBodySchema,
} from './controlApi';
import { feedMessageSchema, overviewSchema, seriesAnswerSchema } from './liveFeed';
import { snapshotRequestBodySchema, snapshotsAnswerSchema } from './snapshots';
import { verifyAnswerSchema, verifyRequestSchema } from './verify';
import {
  exceptionsAnswerSchema,
  exceptionsDiscardAnswerSchema,
  exceptionsQuerySchema,
  exceptionsRequestSchema,
  exceptionsRetryAnswerSchema,
} from './exceptions';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface RouteSpec {
  method: HttpMethod;
  path: string;
  summary: string;
  /** The body's outer shape; the PUTs' inner objects are parsed by agent type. */
  body?: z.ZodType;
  status: 200 | 201 | 204;
  response?: z.ZodType;
  /** A stream of server-sent events, each message of this shape (held open until the client leaves). */
  stream?: z.ZodType;
  /** A file answered as bytes of this type instead of JSON. */
  binary?: 'application/zip' | typeof METRICS_TYPE | typeof HTML_TYPE;
}

/** A page for people (the readiness report). */
export const HTML_TYPE = 'text/html; charset=utf-8';

/** Prometheus's text exposition format, version 0.0.4. */
export const METRICS_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const route = <R extends RouteSpec>(r: R) => r;

const A = '/pipelines/{pipelineId}/agents/{agentId}';
const jsonObject = z.record(z.string(), z.unknown());

export const pipelineDetailSchema = pipelineSchema.extend({
  agents: z.array(agentSchema),
  entities: z.array(entitySchema),
});
export const entitiesAnswerSchema = z.object({
  entities: z.array(entitySchema),
  warnings: z.array(z.string()),
});
export const agentTypeSchemasSchema = z.object({
  type: agentTypeSchema,
  hostCredentials: jsonObject,
  configuration: jsonObject,
});

export const routes = {
  listAgentTypes: route({
    method: 'GET',
    path: '/agent-types',
    summary: 'List the agent types.',
    status: 200,
    response: z.array(agentTypeSummarySchema),
  }),
  getAgentTypeSchema: route({
    method: 'GET',
    path: '/agent-types/{type}/schema',
    summary: 'JSON Schema of the two configuration objects of an agent type (secrets are writeOnly).',
    status: 200,
    response: agentTypeSchemasSchema,
  }),
  listPipelines: route({
    method: 'GET',
    path: '/pipelines',
    summary: 'List pipelines.',
    status: 200,
    response: z.array(pipelineSchema),
  }),
  createPipeline: route({
    method: 'POST',
    path: '/pipelines',
    summary: 'Create a pipeline.',
    body: createPipelineBodySchema,
    status: 201,
    response: pipelineSchema,
  }),
  getPipeline: route({
    method: 'GET',
    path: '/pipelines/{pipelineId}',
    summary: 'A pipeline with its agents and entities.',
    status: 200,
    response: pipelineDetailSchema,
  }),
  deletePipeline: route({
    method: 'DELETE',
    path: '/pipelines/{pipelineId}',
    summary: 'Delete a pipeline that is not running.',
    status: 204,
  }),
  listAgents: route({
    method: 'GET',
    path: '/pipelines/{pipelineId}/agents',
    summary: "List a pipeline's agents.",
    status: 200,
    response: z.array(agentSchema),
  }),
  createAgent: route({
    method: 'POST',
    path: '/pipelines/{pipelineId}/agents',
    summary: 'Add an agent (type and role) to a pipeline.',
    body: createAgentBodySchema,
    status: 201,
    response: agentSchema,
  }),
  getAgent: route({
    method: 'GET',
    path: A,
    summary: 'An agent with its state and configuration (secrets redacted).',
    status: 200,
    response: agentSchema,
  }),
  deleteAgent: route({
    method: 'DELETE',
    path: A,
    summary: 'Delete an agent that is not running.',
    status: 204,
  }),
  putCredentials: route({
    method: 'PUT',
    path: `${A}/config/credentials`,
    summary: 'Step 1: host credentials (idempotent full replace; an absent password keeps the stored one).',
    body: z.object({ hostCredentials: z.unknown() }),
    status: 200,
    response: z.object({ hostCredentials: jsonObject }),
  }),
  testCredentials: route({
    method: 'POST',
    path: `${A}/config/credentials/test`,
    summary:
      "Sign on with these host credentials and off again, as the wizard's Test connection does; a left-out password is the stored one. Nothing is stored.",
    body: z.object({ hostCredentials: z.unknown() }),
    status: 200,
    response: checkResultSchema,
  }),
  validateConfig: route({
    method: 'POST',
    path: `${A}/config/validate`,
    summary:
      'Check host credentials and configuration together as the two PUTs would — every field problem of both at once (422); a running agent, a source another pipeline uses or a name clash (409) — and store nothing. The agent need not exist: give its type (and role) as POST …/agents takes them. A left-out password is the stored one; signOn true also signs on and off again. For an Apply, or a plan of pipelines as code, to learn every refusal before it changes anything.',
    body: validateConfigBodySchema,
    status: 200,
    response: validateConfigAnswerSchema,
  }),
  putSpecific: route({
    method: 'PUT',
    path: `${A}/config/specific`,
    summary: 'Step 2: agent-specific configuration (idempotent full replace).',
    body: z.object({ configuration: z.unknown() }),
    status: 200,
    response: z.object({ configuration: jsonObject }),
  }),
  listEntities: route({
    method: 'GET',
    path: '/pipelines/{pipelineId}/entities',
    summary: "A pipeline's entities.",
    status: 200,
    response: entitiesAnswerSchema,
  }),
  putEntities: route({
    method: 'PUT',
    path: '/pipelines/{pipelineId}/entities',
    summary:
      "Replace a pipeline's entities (source table, target table, row identification). Names are compared as each database compares them (docs/names.md): 422 for an entity on the engine's or the agent's own objects, or two entities on one table; 409 for a table another pipeline writes.",
    body: entitiesBodySchema,
    status: 200,
    response: entitiesAnswerSchema,
  }),
  listEvents: route({
    method: 'GET',
    path: '/pipelines/{pipelineId}/events',
    summary:
      "The pipeline's last 500 events, oldest first (started, snapshot progress, batches, retries, failures).",
    status: 200,
    response: z.array(pipelineEventSchema),
  }),
  testAgent: route({
    method: 'POST',
    path: `${A}/test`,
    summary: 'Run the connection and permission checks.',
    status: 200,
    response: testAnswerSchema,
  }),
  applyFix: route({
    method: 'POST',
    path: `${A}/fixes/{checkId}`,
    summary:
      'Apply the fix a failed check offers (for example the ALTER DATABASE that sets the change retention), then check again.',
    status: 200,
    response: fixAnswerSchema,
  }),
  searchCatalog: route({
    method: 'POST',
    path: `${A}/catalog`,
    summary:
      "A page of the source's tables, for choosing the entities: rows, primary key, Change Tracking or journaling, and what would stop each (with its fix). POST, as a search with a body: filter by part of the name or by schema, page after a cursor.",
    body: catalogQuerySchema,
    status: 200,
    response: catalogAnswerSchema,
  }),
  createReadinessReport: route({
    method: 'POST',
    path: `${A}/readiness-report`,
    summary:
      "A readiness report (one self-contained HTML page, printable to PDF): the source, the agent's settings without secrets, every check with what it expects and what was found, remedies and fix statements, the journals or Change Tracking settings, each table's verdict, versions and the time it was made. POST: it runs the checks (they only read the source).",
    status: 200,
    binary: HTML_TYPE,
  }),
  describeTableColumns: route({
    method: 'POST',
    path: `${A}/tables/columns`,
    summary:
      "Entity tables' columns: name, the source's type, nullability, whether it identifies the row, and the type the pipeline's target declares for it. POST, for a body naming the tables (at most 100).",
    body: columnsQuerySchema,
    status: 200,
    response: columnsAnswerSchema,
  }),
  listAgentTables: route({
    method: 'GET',
    path: `${A}/tables`,
    summary:
      "The entities' source tables as the source sees them: existence, primary key, and Change Tracking or journaling (images, journal).",
    status: 200,
    response: tablesAnswerSchema,
  }),
  getBacklog: route({
    method: 'GET',
    path: `${A}/backlog`,
    summary: 'The backlog now and over the last hour.',
    status: 200,
    response: backlogAnswerSchema,
  }),
  listSnapshots: route({
    method: 'GET',
    path: `${A}/snapshots`,
    summary:
      "The running pipeline's table copies: queued, copying (rows done of total, rows per second, time left), cancelled, done.",
    status: 200,
    response: snapshotsAnswerSchema,
  }),
  requestSnapshot: route({
    method: 'POST',
    path: `${A}/snapshots`,
    summary:
      "Copy one entity's table again (a re-snapshot) while the other tables stream on; the pipeline must be running.",
    body: snapshotRequestBodySchema,
    status: 200,
    response: snapshotsAnswerSchema,
  }),
  cancelSnapshot: route({
    method: 'POST',
    path: `${A}/snapshots/cancel`,
    summary:
      "Stop a table's copy: the rows copied so far stay, its changes keep flowing, and it is marked incomplete.",
    body: snapshotRequestBodySchema,
    status: 200,
    response: snapshotsAnswerSchema,
  }),
  resumeTable: route({
    method: 'POST',
    path: `${A}/snapshots/resume`,
    summary:
      'Resume a suspended table: it reads on from the position where it was suspended (its copy from its cursor), once the cause is fixed. A table stopped without a position (gone at the source) is copied again instead.',
    body: snapshotRequestBodySchema,
    status: 200,
    response: snapshotsAnswerSchema,
  }),
  rewindPipeline: route({
    method: 'POST',
    path: `${A}/rewind`,
    summary:
      "Rewind the running pipeline: every table with a position goes back to `to` (a position of the source's kind or a time, as its startAt takes one) and its changes since are applied again by key. A `rewound` or `rewind-refused` event tells the outcome; a point the source no longer holds, or one ahead of a table, is refused. Change Tracking keeps no history: the keys changed since are applied with their current rows.",
    body: rewindRequestBodySchema,
    status: 200,
    response: rewindAnswerSchema,
  }),
  listExceptions: route({
    method: 'POST',
    path: `${A}/exceptions/query`,
    summary:
      "Rows the target refused, kept aside with their table, key, operation, source position, values and the target's error: the count per table, and the newest rows (of one table, or all).",
    body: exceptionsQuerySchema,
    status: 200,
    response: exceptionsAnswerSchema,
  }),
  retryExceptions: route({
    method: 'POST',
    path: `${A}/exceptions/retry`,
    summary:
      'Retry kept rows (by id, a table, or all) once the cause is fixed: each row is read again from the source by its key and applied as it is there now (gone: deleted), never the values kept. Rows applied leave the store; rows refused again stay with the new error. The pipeline must be running.',
    body: exceptionsRequestSchema,
    status: 200,
    response: exceptionsRetryAnswerSchema,
  }),
  discardExceptions: route({
    method: 'POST',
    path: `${A}/exceptions/discard`,
    summary: 'Delete kept rows (by id, a table, or all) without applying them.',
    body: exceptionsRequestSchema,
    status: 200,
    response: exceptionsDiscardAnswerSchema,
  }),
  getVerify: route({
    method: 'GET',
    path: `${A}/verify`,
    summary:
      "The running pipeline's verify or repair (in progress, or its last) and the finished ones kept with the pipeline: per table rows compared, differences (missing, extra, different, with keys and columns), progress.",
    status: 200,
    response: verifyAnswerSchema,
  }),
  requestVerify: route({
    method: 'POST',
    path: `${A}/verify`,
    summary:
      'Verify the replica against its source, every table or one, while the pipeline runs: key-ordered chunks compared by digest, differences re-read once the pipeline is past them. Chunk size and a rows-per-second limit keep the source unhurt.',
    body: verifyRequestSchema,
    status: 200,
    response: verifyAnswerSchema,
  }),
  repairVerify: route({
    method: 'POST',
    path: `${A}/verify/repair`,
    summary:
      'Copy exactly the rows the last verify found different again (no re-snapshot), then verify those tables again; the pipeline must be running.',
    status: 200,
    response: verifyAnswerSchema,
  }),
  cancelVerify: route({
    method: 'POST',
    path: `${A}/verify/cancel`,
    summary: 'Stop the verify or repair in progress; what it found so far is kept.',
    status: 200,
    response: verifyAnswerSchema,
  }),
  startAgent: route({
    method: 'POST',
    path: `${A}/start`,
    summary: 'Start (or resume) a configured agent.',
    status: 200,
    response: agentSchema,
  }),
  pauseAgent: route({
    method: 'POST',
    path: `${A}/pause`,
    summary: 'Pause a running agent.',
    status: 200,
    response: agentSchema,
  }),
  stopAgent: route({
    method: 'POST',
    path: `${A}/stop`,
    summary: 'Stop an agent.',
    status: 200,
    response: agentSchema,
  }),
  createDiagnostics: route({
    method: 'POST',
    path: '/diagnostics',
    summary:
      'A diagnostics bundle (zip): versions, redacted configuration, last check results, backlog history, recent events and the verify reports kept.',
    status: 200,
    binary: 'application/zip',
  }),
  rotateToken: route({
    method: 'POST',
    path: '/admin/token/rotate',
    summary: 'Replace the admin token; the old one stops working at once. The new one is shown once.',
    status: 200,
    response: tokenAnswerSchema,
  }),
  rotateMetricsToken: route({
    method: 'POST',
    path: '/admin/metrics-token/rotate',
    summary:
      'Make a metrics token, which reads GET /metrics and nothing else (for a Prometheus scrape); the previous one stops working at once.',
    status: 200,
    response: tokenAnswerSchema,
  }),
  getOverview: route({
    method: 'GET',
    path: '/overview',
    summary:
      'Every pipeline with its agents and their status: state, lag, backlog and time left, changes per second, last failure.',
    status: 200,
    response: overviewSchema,
  }),
  getSeries: route({
    method: 'GET',
    path: `${A}/series/{window}`,
    summary:
      'The agent’s charts over the last hour (a step a minute) or day (ten minutes): changes applied, peak lag and peak backlog, for the agent and each source table.',
    status: 200,
    response: seriesAnswerSchema,
  }),
  streamEvents: route({
    method: 'GET',
    path: '/events/stream',
    summary:
      'Server-sent events (text/event-stream), each a JSON message named `feed`: every event the engine records, an agent’s status when it changes (at most once a second per agent), and `pipelines` when pipelines or agents come or go (docs/live.md).',
    status: 200,
    stream: feedMessageSchema,
  }),
  getMetrics: route({
    method: 'GET',
    path: '/metrics',
    summary:
      'Prometheus metrics: agent states, changes applied by operation, lag, backlog, copies, retries and failures (docs/metrics.md). The admin token or the metrics token.',
    status: 200,
    binary: METRICS_TYPE,
  }),
  getOpenApi: route({
    method: 'GET',
    path: '/openapi.json',
    summary: 'This API as an OpenAPI 3.1 document.',
    status: 200,
    response: jsonObject,
  }),
} satisfies Record<string, RouteSpec>;

export type Routes = typeof routes;
export type OperationId = keyof Routes;
/** Routes answered with a held-open stream (server-sent events) rather than one answer. */
export type StreamOperationId = {
  [O in OperationId]: Routes[O] extends { stream: unknown } ? O : never;
}[OperationId];
/** Routes answered once: the engine's operations and the client's typed functions. */
export type AnsweredOperationId = Exclude<OperationId, StreamOperationId>;
export const isAnswered = (id: OperationId): id is AnsweredOperationId => !('stream' in routes[id]);
export type RouteBody<O extends OperationId> = Routes[O] extends { body: z.ZodType }
  ? z.input<Routes[O]['body']>
  : undefined;
export type RouteAnswer<O extends OperationId> = Routes[O] extends { binary: string }
  ? Uint8Array
  : Routes[O] extends { response: z.ZodType }
    ? z.output<Routes[O]['response']>
    : undefined;

/** Path parameters named in a route's path template. */
export type RouteParams<P extends string> = P extends `${string}{${infer K}}${infer Rest}`
  ? { [k in K]: string } & RouteParams<Rest>
  : unknown;

export function fillPath(template: string, params: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, key: string) => encodeURIComponent(params[key] ?? ''));
}
