// Sandbox mode as the app shows it: how to reach the simulated servers (their sample logins' passwords
// included — public sample values, shown in the sandbox panel and nowhere else) and the workload.
import { z } from 'zod';

export const workloadStatusSchema = z.object({
  changesPerSecond: z.number().int().min(0),
  written: z.number().int().min(0),
  lastError: z.string().nullable(),
});
export type WorkloadStatus = z.infer<typeof workloadStatusSchema>;

const sampleLogin = z.object({ user: z.string(), password: z.string(), role: z.string() });

export const sandboxDetailsSchema = z.object({
  sqlServer: z.object({
    host: z.string(),
    port: z.number().int(),
    database: z.string(),
    logins: z.array(sampleLogin),
  }),
  ibmi: z.object({
    host: z.string(),
    database: z.string(),
    libraries: z.array(z.string()),
    users: z.array(sampleLogin),
  }),
  workload: workloadStatusSchema,
});
export type SandboxDetails = z.infer<typeof sandboxDetailsSchema>;

export const MAX_WORKLOAD_RATE = 500;
export const workloadRequestSchema = z.strictObject({
  changesPerSecond: z.number().int().min(0).max(MAX_WORKLOAD_RATE),
});
