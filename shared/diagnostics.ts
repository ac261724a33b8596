// The diagnostics bundle: what a DBA attaches to a support ticket or reads offline later. Every file of
// a bundle is parsed with these schemas when it is opened: a bundle is input from outside.
import { rowExceptionSchema } from './exceptions';
import { z } from 'zod';
import { verifyReportSchema } from './verify';
import { backlogPointSchema, checkResultSchema } from './controlApi';
import { pipelineDetailSchema } from './controlApiRoutes';

export const DIAGNOSTICS_FORMAT = 'cdc-admin-diagnostics';
/** Largest bundle the app opens; a real one is a few hundred kilobytes. */
export const MAX_BUNDLE_BYTES = 25 * 1024 * 1024;

export const diagnosticsManifestSchema = z.object({
  format: z.literal(DIAGNOSTICS_FORMAT),
  version: z.literal(1),
  createdAt: z.string(),
  source: z.enum(['app', 'engine']),
  versions: z.record(z.string(), z.string()),
});

export const diagnosticsConfigurationSchema = z.object({ pipelines: z.array(pipelineDetailSchema) });
export const diagnosticsChecksSchema = z.array(
  z.object({
    pipelineId: z.string(),
    agentId: z.string(),
    checkedAt: z.string(),
    checks: z.array(checkResultSchema),
  }),
);
export const diagnosticsEventsSchema = z.array(
  z.object({
    id: z.number(),
    pipelineId: z.string(),
    agentId: z.string().nullable(),
    at: z.string(),
    kind: z.string(),
    data: z.unknown(),
  }),
);
export const diagnosticsBacklogSchema = z.array(
  z.object({ pipelineId: z.string(), agentId: z.string(), points: z.array(backlogPointSchema) }),
);
export const diagnosticsProfilesSchema = z.array(
  z.object({ id: z.string(), name: z.string(), baseUrl: z.string(), tokenSet: z.boolean() }),
);

/** The verifies and repairs kept with each agent (docs/verify.md), newest first. */
export const diagnosticsVerifySchema = z.array(
  z.object({ pipelineId: z.string(), agentId: z.string(), reports: z.array(verifyReportSchema) }),
);

/** Rows kept aside per agent: counts per table, and the newest rows with every value masked. */
export const diagnosticsExceptionsSchema = z.array(
  z.object({
    pipelineId: z.string(),
    agentId: z.string(),
    counts: z.record(z.string(), z.number().int()),
    rows: z.array(rowExceptionSchema),
  }),
);

export const diagnosticsViewSchema = z.object({
  manifest: diagnosticsManifestSchema,
  configuration: diagnosticsConfigurationSchema,
  checks: diagnosticsChecksSchema,
  events: diagnosticsEventsSchema,
  backlog: diagnosticsBacklogSchema,
  verify: diagnosticsVerifySchema,
  exceptions: diagnosticsExceptionsSchema,
  profiles: diagnosticsProfilesSchema.nullable(),
  logs: z.array(z.object({ name: z.string(), text: z.string() })),
  files: z.array(z.object({ name: z.string(), size: z.number() })),
});
export type DiagnosticsView = z.infer<typeof diagnosticsViewSchema>;

/** The bundle's file names, with the schema each one is read with. */
export const DIAGNOSTICS_FILES = {
  manifest: 'manifest.json',
  configuration: 'configuration.json',
  checks: 'checks.json',
  events: 'events.json',
  backlog: 'backlog.json',
  verify: 'verify.json',
  exceptions: 'exceptions.json',
  profiles: 'profiles.json',
} as const;
export const LOGS_FOLDER = 'logs/';
