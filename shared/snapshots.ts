// Table copies (snapshots): what the runner keeps of a copy in progress at the target, and what the
// control API answers and accepts about them (GET/POST …/snapshots, POST …/snapshots/cancel).
import { z } from 'zod';

/**
 * A copy in progress, kept in the table's checkpoint row at the target after its stream position, so
 * a restart resumes after the last committed chunk.
 */
export const copyStateSchema = z.strictObject({
  /** Where the next chunk starts (the source's own cursor); null before the first chunk. */
  cursor: z.string().nullable(),
  rowsDone: z.number().int().nonnegative(),
  /** The table's row count when the copy started; null when the source could not count. */
  rowsTotal: z.number().int().nonnegative().nullable(),
  reason: z.string(),
  startedAt: z.string(),
  cancelled: z.boolean().optional(),
});
export type CopyState = z.infer<typeof copyStateSchema>;

/**
 * `stopped`: the table's replication ended on its own (dropped or renamed at the source): a re-snapshot
 * takes it up. `suspended`: a failure of the table's own stopped it at its position (the target refused
 * it, too many of its rows were refused, its copy failed): resumed, it reads on from there. The reason
 * says why, and what to do.
 */
export const snapshotStatusSchema = z.enum([
  'queued',
  'copying',
  'done',
  'cancelled',
  'stopped',
  'suspended',
]);

/** One table's copy as the app shows it: rows done of total, the rate, the time left. */
export const tableSnapshotSchema = z.object({
  /** `schema.table` as the entity writes it. */
  table: z.string(),
  status: snapshotStatusSchema,
  reason: z.string(),
  rowsDone: z.number().int(),
  rowsTotal: z.number().int().nullable(),
  /** Over this run of the copy; null before its first chunk. */
  rowsPerSecond: z.number().nullable(),
  /** At that rate; null when the total or the rate is unknown. */
  secondsLeft: z.number().nullable(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
});
export type TableSnapshot = z.infer<typeof tableSnapshotSchema>;

export const snapshotsAnswerSchema = z.object({
  agentId: z.string(),
  /** Whether the pipeline runs: copies advance, and requests are taken, only while it does. */
  running: z.boolean(),
  tables: z.array(tableSnapshotSchema),
});
export type SnapshotsAnswer = z.infer<typeof snapshotsAnswerSchema>;

/** One entity's table, named `schema.table` as in the entity. */
export const tableNameSchema = z
  .string()
  .min(3)
  .max(300)
  .regex(/^\P{Cc}+$/u);

/** A request about one entity's table. */
export const snapshotRequestBodySchema = z.strictObject({ table: tableNameSchema });
