// The one contract between the renderer and main: every method with its input and output schema.
// Main implements it (main/app/handlers.ts), the preload exposes it, web mode carries it over HTTP.
import { sandboxDetailsSchema, workloadRequestSchema, workloadStatusSchema } from './sandbox';
import { parseEngineUrl } from './engineUrl';
import { z } from 'zod';
import { agentTypeSchema, agentTypeSummarySchema, sectionIdSchema } from './agents';

export { agentTypeSummarySchema } from './agents';
import { problemSchema } from './config/problems';
import {
  agentRoleSchema,
  agentSchema,
  backlogAnswerSchema,
  catalogAnswerSchema,
  catalogQuerySchema,
  checkResultSchema,
  displayNameSchema,
  entitiesBodySchema,
  fixAnswerSchema,
  idSchema,
  pipelineEventSchema,
  pipelineSchema,
  tablesAnswerSchema,
  columnsAnswerSchema,
  columnsQuerySchema,
  testAnswerSchema,
} from './controlApi';
import { diagnosticsViewSchema, MAX_BUNDLE_BYTES } from './diagnostics';
import { snapshotRequestBodySchema, snapshotsAnswerSchema } from './snapshots';
import { rewindAnswerSchema, rewindRequestBodySchema } from './rewind';
import { verifyAnswerSchema, verifyRequestSchema } from './verify';
import {
  exceptionsAnswerSchema,
  exceptionsQuerySchema,
  exceptionsRequestSchema,
  exceptionsRetryAnswerSchema,
} from './exceptions';
import { METHOD_NAMES, type MethodName } from './ipc';
import { entitiesAnswerSchema } from './controlApiRoutes';
import { seriesAnswerSchema, seriesWindowSchema } from './liveFeed';
import { alertSettingsSchema, fleetEngineSchema } from './push';

export { IPC_CHANNEL, METHOD_NAMES, PUSH_CHANNEL, type MethodName, type RawApi, type RawPush } from './ipc';

interface MethodSpec<I extends z.ZodType, O extends z.ZodType> {
  input: I;
  output: O;
}
const method = <I extends z.ZodType, O extends z.ZodType>(input: I, output: O): MethodSpec<I, O> => ({
  input,
  output,
});

const noInput = z.strictObject({});

export const appInfoSchema = z.object({
  name: z.string(),
  version: z.string(),
  /** Where main runs: inside Electron, or in plain Node serving a browser. */
  mode: z.enum(['electron', 'web']),
  versions: z.record(z.string(), z.string()),
});

export const validationResultSchema = z.discriminatedUnion('ok', [
  /** The parsed object with defaults filled in and secrets redacted. */
  z.object({ ok: z.literal(true), value: z.record(z.string(), z.unknown()) }),
  z.object({ ok: z.literal(false), problems: z.array(problemSchema) }),
]);
export type ValidationResult = z.infer<typeof validationResultSchema>;

/** An engine address: http or https, never with a user name or password in it. */
export const isEngineUrl = (text: string): boolean => parseEngineUrl(text).ok;

export const engineProfileSchema = z.object({
  id: idSchema,
  name: z.string(),
  baseUrl: z.string(),
  tokenSet: z.boolean(),
  /** The app's own engine, started with the app. */
  local: z.boolean(),
  /** An https:// engine's certificate, pinned on first use: its SHA-256 fingerprint. */
  certificateFingerprint: z.string().nullable(),
});
export type EngineProfile = z.infer<typeof engineProfileSchema>;

export const saveEngineProfileInputSchema = z.strictObject({
  id: idSchema,
  name: z.string().min(1).max(64),
  baseUrl: z
    .string()
    .max(2048)
    .refine(isEngineUrl, 'must be an http:// or https:// address, with no user name or password in it'),
  /** Left out: keep the stored token. */
  token: z.string().min(1).max(512).optional(),
  /** Forget the pinned certificate: the next connection pins the one the engine presents then. */
  forgetCertificate: z.boolean().optional(),
});

export const localEngineSchema = z.object({
  url: z.string().nullable(),
  running: z.boolean(),
  reason: z.string().nullable(),
  /** The admin token, answered once after it was made (first start or rotation), then never again. */
  tokenToShow: z.string().nullable(),
});

/** The pipelines of an engine with their agents, for the checker to pick from. */
export const engineAgentsSchema = z.object({
  pipelines: z.array(pipelineSchema.extend({ agents: z.array(agentSchema) })),
});
const agentAddress = z.strictObject({ profileId: idSchema, pipelineId: idSchema, agentId: idSchema });

/** One request the app sent an engine for the user, and what the engine answered. */
export const appliedStepSchema = z.object({
  request: z.string(),
  status: z.number().int(),
  detail: z.string(),
});
export const applyAnswerSchema = z.object({
  steps: z.array(appliedStepSchema),
  /** Field problems the engine named (422), for the form to show beside the fields. */
  problems: z.array(problemSchema),
  /** The stored agent, secrets redacted; null when a step was refused or nothing was sent. */
  agent: agentSchema.nullable(),
  /**
   * Set when the pipeline exists and `joinExisting` was not given: what it holds, for the DBA to
   * confirm. Nothing was sent.
   */
  existing: z
    .object({
      pipelineId: idSchema,
      agents: z.array(z.object({ id: idSchema, type: agentTypeSchema, role: agentRoleSchema })),
    })
    .optional(),
  /**
   * Set when the settings passed every rule but signing on with them failed, and
   * `applyDespiteSignOn` was not given: the sign-on's result, for the DBA to decide. Nothing stored.
   */
  signOn: checkResultSchema.optional(),
});
const sectionBody = z.record(z.string(), z.unknown());

export const contract = {
  getAppInfo: method(noInput, appInfoSchema),
  listAgentTypes: method(noInput, z.array(agentTypeSummarySchema)),
  /** `keepSecrets`: an edit, where a secret left out keeps the one the engine stored. */
  validateAgentSection: method(
    z.strictObject({
      agentType: agentTypeSchema,
      section: sectionIdSchema,
      body: z.unknown(),
      keepSecrets: z.boolean().optional(),
    }),
    validationResultSchema,
  ),
  /**
   * "Test connection": signs on with the host credentials and off again; stores nothing. From this app,
   * or, for `editing` an agent an engine holds, from that engine, a left-out password its stored one.
   */
  testHostCredentials: method(
    z.strictObject({
      agentType: agentTypeSchema,
      hostCredentials: sectionBody,
      editing: agentAddress.optional(),
    }),
    checkResultSchema,
  ),
  /**
   * "Apply": on the profile's engine, creates the pipeline and the agent when absent, then sends the
   * spec's two PUTs in order; answers each request with the engine's answer, stopping at a refusal.
   */
  applyAgentConfig: method(
    z.strictObject({
      profileId: idSchema,
      pipelineId: idSchema,
      agentId: idSchema,
      agentType: agentTypeSchema,
      /** Source or target; the type's first role when left out. */
      role: z.enum(['source', 'target']).optional(),
      hostCredentials: sectionBody,
      configuration: sectionBody,
      /** The DBA agreed to add to (or change) a pipeline the engine already holds. */
      joinExisting: z.boolean().optional(),
      /** The DBA saw signing on with these settings fail, and applies them all the same. */
      applyDespiteSignOn: z.boolean().optional(),
      /** The name of a pipeline this Apply creates; its id when left out. An existing one keeps its own. */
      pipelineName: displayNameSchema.optional(),
    }),
    applyAnswerSchema,
  ),
  listEngineProfiles: method(noInput, z.array(engineProfileSchema)),
  saveEngineProfile: method(saveEngineProfileInputSchema, engineProfileSchema),
  deleteEngineProfile: method(z.strictObject({ id: idSchema }), z.object({ deleted: z.boolean() })),
  checkEngine: method(z.strictObject({ id: idSchema }), z.object({ ok: z.boolean(), message: z.string() })),
  listEngineAgents: method(z.strictObject({ profileId: idSchema }), engineAgentsSchema),
  /** POST …/test on the profile's engine: the agent's connection and permission checks. */
  testEngineAgent: method(agentAddress, testAnswerSchema),
  /** POST …/fixes/{checkId}: the engine applies the fix that check offers, then checks again. */
  applyEngineFix: method(
    agentAddress.extend({ checkId: z.string().regex(/^[a-z][a-z0-9-]{0,63}$/) }),
    fixAnswerSchema,
  ),
  /** POST …/start, …/pause or …/stop on the profile's engine: the agent as it is afterwards. */
  controlEngineAgent: method(
    agentAddress.extend({ action: z.enum(['start', 'pause', 'stop']) }),
    agentSchema,
  ),
  listPipelineEvents: method(
    z.strictObject({ profileId: idSchema, pipelineId: idSchema }),
    z.array(pipelineEventSchema),
  ),
  /** GET …/backlog on the profile's engine: now, and the last hour. */
  getEngineBacklog: method(agentAddress, backlogAnswerSchema),
  /** GET …/tables on the profile's engine: each entity's source table as the source sees it. */
  listEngineTables: method(agentAddress, tablesAnswerSchema),
  /** POST …/tables/columns on the profile's engine: tables' columns on both sides (a table's story). */
  describeEngineTableColumns: method(agentAddress.extend(columnsQuerySchema.shape), columnsAnswerSchema),
  /** POST …/catalog on the profile's engine: a page of the source's tables, to choose entities from. */
  searchEngineCatalog: method(agentAddress.extend({ query: catalogQuerySchema }), catalogAnswerSchema),
  /** GET …/entities on the profile's engine: the pipeline's entities as stored. */
  getEngineEntities: method(
    z.strictObject({ profileId: idSchema, pipelineId: idSchema }),
    entitiesAnswerSchema,
  ),
  /** DELETE /pipelines/{id} on the profile's engine: the pipeline with its agents, entities and events. */
  deleteEnginePipeline: method(
    z.strictObject({ profileId: idSchema, pipelineId: idSchema }),
    z.object({ deleted: z.boolean() }),
  ),
  /** DELETE …/agents/{agentId} on the profile's engine: one agent, its pipeline and the others kept. */
  deleteEngineAgent: method(agentAddress, z.object({ deleted: z.boolean() })),
  /** PUT …/entities on the profile's engine: the chosen tables; a refusal says which names clash. */
  saveEngineEntities: method(
    z.strictObject({
      profileId: idSchema,
      pipelineId: idSchema,
      entities: entitiesBodySchema.shape.entities,
    }),
    entitiesAnswerSchema,
  ),
  /** GET …/snapshots on the profile's engine: the running pipeline's table copies. */
  listEngineSnapshots: method(agentAddress, snapshotsAnswerSchema),
  /**
   * POST …/snapshots (copy a table again), …/snapshots/cancel or …/snapshots/resume (a suspended table
   * reads on from its position) on the profile's engine.
   */
  requestEngineSnapshot: method(
    agentAddress.extend({
      table: snapshotRequestBodySchema.shape.table,
      action: z.enum(['copy', 'cancel', 'resume']),
    }),
    snapshotsAnswerSchema,
  ),
  /** POST …/rewind on the profile's engine: every table back to a point, its changes since applied again. */
  rewindEnginePipeline: method(
    agentAddress.extend({ to: rewindRequestBodySchema.shape.to }),
    rewindAnswerSchema,
  ),
  /** POST …/exceptions/query on the profile's engine: rows kept aside, counted per table, newest first. */
  listEngineExceptions: method(agentAddress.extend({ query: exceptionsQuerySchema }), exceptionsAnswerSchema),
  /** POST …/exceptions/retry or …/exceptions/discard on the profile's engine. */
  actOnEngineExceptions: method(
    agentAddress.extend({ action: z.enum(['retry', 'discard']), which: exceptionsRequestSchema }),
    exceptionsRetryAnswerSchema.partial({ applied: true, refusedAgain: true }).extend({
      discarded: z.number().int().optional(),
    }),
  ),
  /** GET …/verify on the profile's engine: the running verify or repair, and the reports kept. */
  getEngineVerify: method(agentAddress, verifyAnswerSchema),
  /** POST …/verify (with its options), …/verify/repair or …/verify/cancel on the profile's engine. */
  requestEngineVerify: method(
    agentAddress.extend({
      action: z.enum(['verify', 'repair', 'cancel']),
      request: verifyRequestSchema.optional(),
    }),
    verifyAnswerSchema,
  ),
  /**
   * Sandbox mode: starts the simulated SQL Server (sample Sales database) and the simulated IBM i
   * (sample SHOP and LEGACY libraries) once, and sets up a pipeline for each on the local engine that
   * reads it into a SQLite file.
   */
  startSandbox: method(
    noInput,
    z.object({
      pipelineId: idSchema,
      agentId: idSchema,
      port: z.number().int(),
      ibmi: z.object({ pipelineId: idSchema, agentId: idSchema, host: z.string() }),
    }),
  ),
  /** The simulated servers' addresses and sample logins, and the workload; null before the sandbox starts. */
  getSandboxDetails: method(noInput, sandboxDetailsSchema.nullable()),
  /** Sets the sandbox workload's rate of changes on both sample sources (0 switches it off). */
  setSandboxWorkload: method(workloadRequestSchema, workloadStatusSchema),
  getLocalEngine: method(noInput, localEngineSchema),
  rotateLocalEngineToken: method(noInput, z.object({ token: z.string() })),
  /** The bundle as base64, for the renderer to save where the user chooses. */
  /** Of the local engine (with the app's logs) unless a remote engine's profile is named (its own bundle). */
  createDiagnostics: method(
    z.strictObject({ profileId: idSchema.optional() }),
    z.object({ fileName: z.string(), base64: z.string() }),
  ),
  /**
   * POST …/readiness-report on the profile's engine: the page as the engine made it, and in the desktop
   * app the same page printed to PDF (null in web mode, where the browser prints it).
   */
  createReadinessReport: method(
    agentAddress,
    z.object({ fileName: z.string(), html: z.string(), pdfBase64: z.string().nullable() }),
  ),
  /** Reads a bundle the user picked, offline: no engine needed. */
  openDiagnostics: method(
    z.strictObject({ base64: z.string().max(Math.ceil((MAX_BUNDLE_BYTES * 4) / 3) + 4) }),
    diagnosticsViewSchema,
  ),
  /** Every engine's picture now (each saved profile's); changes come pushed (shared/push.ts). */
  getFleet: method(noInput, z.array(fleetEngineSchema)),
  /** GET …/series/{window} on the profile's engine: the agent's and its tables' charts. */
  getEngineSeries: method(agentAddress.extend({ window: seriesWindowSchema }), seriesAnswerSchema),
  getAlertSettings: method(noInput, alertSettingsSchema),
  saveAlertSettings: method(alertSettingsSchema, alertSettingsSchema),
} satisfies Record<MethodName, MethodSpec<z.ZodType, z.ZodType>>;

export type Contract = typeof contract;
export type MethodInput<M extends MethodName> = z.input<Contract[M]['input']>;
export type MethodOutput<M extends MethodName> = z.output<Contract[M]['output']>;
export const methodNames: readonly MethodName[] = METHOD_NAMES;

export function isMethodName(name: unknown): name is MethodName {
  return typeof name === 'string' && Object.hasOwn(contract, name);
}

/** Errors cross the process boundary as plain data, never as thrown objects. */
export const apiErrorSchema = z.object({
  code: z.enum(['unknown_method', 'invalid_input', 'unauthorized', 'internal']),
  message: z.string(),
});
export type ApiErrorData = z.infer<typeof apiErrorSchema>;

export const envelopeSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), value: z.unknown() }),
  z.object({ ok: z.literal(false), error: apiErrorSchema }),
]);
export type Envelope = z.infer<typeof envelopeSchema>;

/** Web mode: the HTTP path of a method, and the header carrying the per-launch token. */
export const webApiPath = (name: MethodName) => `/api/${name}`;

/**
 * Web mode's launch: the URL printed carries a one-time code in its fragment (`#code=…`), which the
 * page exchanges at this path for the per-launch token, once. The same URL from the browser's
 * history opens nothing.
 */
export const WEB_SESSION_PATH = '/session';
export const LAUNCH_CODE_PARAMETER = 'code';
export const webSessionRequestSchema = z.object({ code: z.string().min(1).max(200) }).strict();
export const webSessionAnswerSchema = z.object({ token: z.string() });
