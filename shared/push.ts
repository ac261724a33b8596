// What main pushes to the renderer, unasked: each engine's picture (every pipeline with its agents'
// statuses, and whether the engine answers), the events and statuses its stream carries, the alerts the
// user's thresholds raise, and "open this pipeline" when a desktop notification is clicked. Carried by
// IPC events on the desktop and one server-sent-event stream in web mode (GET /api/push).
import { z } from 'zod';
import { idSchema, pipelineEventSchema } from './controlApi';
import { agentStatusSchema, overviewSchema } from './liveFeed';
import { pipelineSectionSchema } from './route';

const timestamp = z.string();

/**
 * How main knows an engine: `live` (its event stream is open), `polling` (an engine without the stream,
 * read every few seconds), `connecting`, or `unreachable` (with the problem in words).
 */
export const engineConnectionSchema = z.enum(['live', 'polling', 'connecting', 'unreachable']);

/** How each connection state reads on screen. */
export const CONNECTION_WORDS: Record<z.infer<typeof engineConnectionSchema>, string> = {
  live: 'live',
  polling: 'read every 5 s (this engine has no event stream)',
  connecting: 'connecting…',
  unreachable: 'not answering',
};

export const fleetEngineSchema = z.object({
  profileId: idSchema,
  name: z.string(),
  local: z.boolean(),
  connection: engineConnectionSchema,
  problem: z.string().nullable(),
  /** When the pipelines below were read; null before the first answer. */
  readAt: timestamp.nullable(),
  pipelines: overviewSchema.shape.pipelines,
});
export type FleetEngine = z.infer<typeof fleetEngineSchema>;

export const alertKindSchema = z.enum([
  'failed',
  'stopped',
  'suspended',
  'at-risk',
  'schema-change',
  'lag',
  'backlog',
  'unreachable',
]);
export type AlertKind = z.infer<typeof alertKindSchema>;

export const pipelineAddressSchema = z.object({
  profileId: idSchema,
  pipelineId: idSchema,
  agentId: idSchema,
});

export const alertSchema = z.object({
  profileId: idSchema,
  /** The pipeline it is about; both null for the engine as a whole (`unreachable`). */
  pipelineId: idSchema.nullable(),
  agentId: idSchema.nullable(),
  kind: alertKindSchema,
  title: z.string(),
  body: z.string(),
  at: timestamp,
});
export type Alert = z.infer<typeof alertSchema>;

export const pushMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('engine'), engine: fleetEngineSchema }),
  z.object({ type: z.literal('engine-removed'), profileId: idSchema }),
  z.object({
    type: z.literal('event'),
    profileId: idSchema,
    pipelineId: idSchema,
    event: pipelineEventSchema,
  }),
  pipelineAddressSchema.extend({ type: z.literal('status'), at: timestamp, status: agentStatusSchema }),
  z.object({ type: z.literal('alert'), alert: alertSchema }),
  /** A click on a pipeline's alert: that pipeline's section (every alert so far is about its Status). */
  pipelineAddressSchema.extend({
    type: z.literal('open-pipeline'),
    section: pipelineSectionSchema.default('status'),
  }),
  /** A click on an engine's alert: the home screen, where each engine shows whether it answers. */
  z.object({ type: z.literal('open-engine'), profileId: idSchema }),
]);
export type PushMessage = z.infer<typeof pushMessageSchema>;

/** What a click on an alert opens: its pipeline, or Home for an engine's alert. */
export function openedBy(alert: Alert): Extract<PushMessage, { type: 'open-pipeline' | 'open-engine' }> {
  const { profileId, pipelineId, agentId } = alert;
  return pipelineId !== null && agentId !== null
    ? { type: 'open-pipeline', profileId, pipelineId, agentId, section: 'status' }
    : { type: 'open-engine', profileId };
}

/** Web mode: the push stream's path and its server-sent-event name. */
export const WEB_PUSH_PATH = '/api/push';
export const PUSH_EVENT = 'push';

/** When to tell the user, set by the user: each threshold null when off. */
export const alertSettingsSchema = z.strictObject({
  failed: z.boolean().default(true),
  stopped: z.boolean().default(true),
  /** A table of a running pipeline suspended (or stopped) on its own while the others go on. */
  suspended: z.boolean().default(true),
  /** The source may delete what the pipeline still needs (a receiver, changes near their retention's end). */
  atRisk: z.boolean().default(true),
  /** Columns changed at the source: applied at the target, or withheld as the schema-change policy says. */
  schemaChanges: z.boolean().default(true),
  /** An engine that answered stops answering for ENGINE_SILENCE_SECONDS. */
  unreachable: z.boolean().default(true),
  lagSeconds: z.number().int().min(1).max(604_800).nullable().default(300),
  backlogRows: z.number().int().min(1).max(1e12).nullable().default(100_000),
});
export type AlertSettings = z.infer<typeof alertSettingsSchema>;

/**
 * How long an engine that answered may go without answering before the `unreachable` alert rings: its
 * event stream reconnecting, or the engine restarting for an upgrade, is not worth a notification.
 */
export const ENGINE_SILENCE_SECONDS = 60;
