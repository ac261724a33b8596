// What an engine tells about its pipelines as they run: each agent's status in figures (the home screen's
// row), the engine's overview of every pipeline, the messages of its event stream (GET /events/stream,
// server-sent events) and the charts' series. Shared by the engine, the client and the renderer.
import { z } from 'zod';
import {
  agentRoleSchema,
  agentSchema,
  agentStateSchema,
  idSchema,
  pipelineEventSchema,
  pipelineSchema,
} from './controlApi';

const timestamp = z.string();
const figure = z.number().nullable();

/** A pipeline writing to a stream (the NATS JetStream target): what it published and what the stream holds. */
export const streamFiguresSchema = z.object({
  stream: z.string(),
  /** Events acknowledged by the stream per second over the last minute. */
  eventsPerSecond: z.number(),
  /** The source position of the newest event the stream acknowledged. */
  newestAcknowledged: z.string().nullable(),
  messages: z.number(),
  bytes: z.number(),
  /** The stream's size limit; null when it has none. */
  maxBytes: figure,
  /** How long it keeps messages; null for ever. */
  maxAgeSeconds: figure,
});
export type StreamFigures = z.infer<typeof streamFiguresSchema>;

/** The end-to-end latency of the batches committed in a window: how many, and their p50 and p99. */
const freshnessWindowSchema = z.object({
  batches: z.number().int(),
  p50Seconds: figure,
  p99Seconds: figure,
});

/** A batch's latency by where the time went; the three add up to its end-to-end latency. */
export const latencySplitSchema = z.object({
  /** From the newest change's commit at the source until the engine had read it. */
  sourceSeconds: z.number(),
  /** From the read until the target was handed the batch: the engine's own work and waits. */
  engineSeconds: z.number(),
  /** The target's apply, up to its commit. */
  targetSeconds: z.number(),
});
export type LatencySplit = z.infer<typeof latencySplitSchema>;

/** Freshness over the last minute, hour and day (within 1%; since the engine started). */
export const freshnessSchema = z.object({
  minute: freshnessWindowSchema,
  hour: freshnessWindowSchema,
  day: freshnessWindowSchema,
});
export type Freshness = z.infer<typeof freshnessSchema>;

/** An agent as a DBA watches it: its state and what it is doing, from the engine's latest figures. */
export const agentStatusSchema = z.object({
  state: agentStateSchema,
  failureReason: z.string().nullable(),
  /**
   * From the newest change's commit at the source to its commit at the target, at the last batch; null
   * while idle (caught up, nothing new since): that lag is history, not how far behind it is.
   */
  lagSeconds: figure,
  /**
   * Set when lagSeconds is the age of the oldest change still waiting, at least: a paused or stopped
   * pipeline with rows waiting, which no batch measures. The time of the first backlog point that saw
   * them (the oldest was committed at or before it). Absent otherwise.
   */
  waitingSince: timestamp.optional(),
  /** Caught up with nothing new at the source since then; absent from engines that do not say. */
  idleSince: timestamp.nullable().optional(),
  /**
   * With the source's heartbeat on, the newest heartbeat applied at the target: when it was written
   * at the source, and how long ago that is (the engine's clock, never below 0), so a quiet pipeline
   * shows how fresh its target is, and that heartbeat's latency by part. Null before the first (or
   * when off); absent from older engines.
   */
  heartbeat: z
    .object({
      at: timestamp,
      freshToSeconds: z.number().nonnegative(),
      latency: latencySplitSchema.nullable(),
    })
    .nullable()
    .optional(),
  /** Rows (journal entries or changed rows) the source holds that the pipeline has not read yet. */
  backlogRows: figure,
  /** Time to read them at the rate measured lately, else the agent type's own estimate. */
  secondsLeft: figure,
  /** Changes applied per second over the last minute; 0 while idle, null while the agent does not run. */
  changesPerSecond: figure,
  lastBatchAt: timestamp.nullable(),
  /** The last batch's latency by part; null before one with a commit time, absent from older engines. */
  latency: latencySplitSchema.nullable().optional(),
  /** End-to-end latency of the batches lately; absent from engines that do not say. */
  freshness: freshnessSchema.optional(),
  /** The latest failure among the events kept, even when the agent runs again since. */
  lastFailure: z.object({ at: timestamp, reason: z.string() }).nullable(),
  /** The pipeline's tables (its entities); absent from engines that do not say. */
  tableCount: z.number().int().optional(),
  /** Tables of the running pipeline suspended or stopped on their own, with why (the others go on). */
  tablesSuspended: z.array(z.object({ table: z.string(), reason: z.string() })).optional(),
  /**
   * A source shared among engines (a JetStream stream applied by several): the tables this engine
   * applies now, by lease; the others' are applied elsewhere. Absent for any other source.
   */
  tablesHeld: z.array(z.string()).optional(),
  /** Rows the target refused, kept aside until retried or discarded. */
  exceptions: z.number().int().optional(),
  /** The latest schema change at the source: applied at the target, or withheld by the policy. */
  lastSchemaChange: z
    .object({ at: timestamp, table: z.string(), reason: z.string(), withheld: z.boolean() })
    .nullable()
    .optional(),
  /**
   * Settings stored while the pipeline was paused or stopped, which it does not hold yet: they take
   * effect when it starts or resumes. Absent when none wait (and from engines that do not say).
   */
  settingsPendingSince: timestamp.nullable().optional(),
  /**
   * With settings pending: whether the credentials stored among them signed on when stored (the
   * worst of the pipeline's agents), or "untried" when no sign-on was tried with them.
   */
  pendingSignOn: z
    .object({
      agentId: z.string(),
      at: timestamp,
      outcome: z.enum(['passed', 'failed', 'untried']),
      message: z.string(),
    })
    .nullable()
    .optional(),
  /** Warnings before loss: what the source may delete that the pipeline still needs, in words. */
  warnings: z.array(z.string()).optional(),
  /** Where the pipeline writes to a stream: what it published and what the stream holds. */
  stream: streamFiguresSchema.nullable().optional(),
});
export type AgentStatus = z.infer<typeof agentStatusSchema>;

export const overviewAgentSchema = agentSchema
  .pick({ id: true, name: true, type: true })
  .extend({ role: agentRoleSchema, status: agentStatusSchema });
export type OverviewAgent = z.infer<typeof overviewAgentSchema>;

/** GET /overview: every pipeline with its agents' statuses, in one answer. */
export const overviewSchema = z.object({
  at: timestamp,
  pipelines: z.array(pipelineSchema.extend({ agents: z.array(overviewAgentSchema) })),
});
export type Overview = z.infer<typeof overviewSchema>;
export type OverviewPipeline = Overview['pipelines'][number];

/**
 * A message of the event stream. `event`: an event the engine recorded; `status`: an agent's status
 * changed (a state, a batch, a backlog point; at most once a second per agent); `pipelines`: pipelines or
 * agents were added, renamed or deleted (read GET /overview again).
 */
export const feedMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('event'), pipelineId: idSchema, event: pipelineEventSchema }),
  z.object({
    type: z.literal('status'),
    pipelineId: idSchema,
    agentId: idSchema,
    at: timestamp,
    status: agentStatusSchema,
  }),
  z.object({ type: z.literal('pipelines'), at: timestamp }),
]);
export type FeedMessage = z.infer<typeof feedMessageSchema>;

/** The server-sent-event name each message travels under. */
export const FEED_EVENT = 'feed';

/** The charts' windows: the last hour in minutes, the last day in ten-minute steps. */
export const SERIES_WINDOWS = { hour: { seconds: 3_600, step: 60 }, day: { seconds: 86_400, step: 600 } };
export const seriesWindowSchema = z.enum(['hour', 'day']);
export type SeriesWindow = z.infer<typeof seriesWindowSchema>;

/** One step of a chart: changes applied in it; the peak lag and backlog seen in it (null: none seen). */
export const seriesPointSchema = z.object({
  at: timestamp,
  changes: z.number().int(),
  lagSeconds: figure,
  backlogRows: figure,
  /** Where the peak lag's time went: the split of the step's slowest batch; absent from older engines. */
  latency: latencySplitSchema.nullable().optional(),
});
export type SeriesPoint = z.infer<typeof seriesPointSchema>;

/** GET …/series/{window}: the agent's steps over the window, and each source table's. */
export const seriesAnswerSchema = z.object({
  agentId: idSchema,
  window: seriesWindowSchema,
  stepSeconds: z.number().int(),
  points: z.array(seriesPointSchema),
  tables: z.array(z.object({ table: z.string(), points: z.array(seriesPointSchema) })),
});
export type SeriesAnswer = z.infer<typeof seriesAnswerSchema>;
