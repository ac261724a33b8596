// Verify and repair: whether a replica equals its source, table by table, and the rows that differ.
// What the control API accepts (POST …/verify, …/verify/repair) and answers (GET …/verify), and what
// the engine keeps of the last report. docs/verify.md describes how rows are compared.
import { z } from 'zod';
import { csvText } from './csv';

const tableName = z
  .string()
  .min(3)
  .max(300)
  .regex(/^\P{Cc}+$/u);

export const VERIFY_DEFAULTS = { chunkRows: 5000, rowsPerSecond: null, maxDifferences: 1000 } as const;

export const verifyRequestSchema = z.strictObject({
  /** One entity's table (`schema.table` as the entity writes it); every table when left out. */
  table: tableName.optional(),
  /** Rows read from the source per chunk, and keys read from the target per step. */
  chunkRows: z.number().int().min(10).max(100_000).default(VERIFY_DEFAULTS.chunkRows),
  /** At most this many source rows per second, so a production table is not hurt; null: no limit. */
  rowsPerSecond: z.number().int().min(100).max(10_000_000).nullable().default(VERIFY_DEFAULTS.rowsPerSecond),
});
export type VerifyRequest = z.input<typeof verifyRequestSchema>;
export type VerifyOptions = z.output<typeof verifyRequestSchema>;

export const differenceKindSchema = z.enum(['missing', 'extra', 'different']);
export type DifferenceKind = z.infer<typeof differenceKindSchema>;

/** One row that differs: its key (each value as text), and for `different` the columns that differ. */
export const differenceSchema = z.object({
  kind: differenceKindSchema,
  key: z.record(z.string(), z.string()),
  columns: z.array(z.string()),
});
export type Difference = z.infer<typeof differenceSchema>;

export const verifyStatusSchema = z.enum([
  'queued',
  'verifying',
  'rechecking',
  'done',
  'cancelled',
  'failed',
]);
export type VerifyStatus = z.infer<typeof verifyStatusSchema>;

export const tableVerifySchema = z.object({
  table: z.string(),
  status: verifyStatusSchema,
  /** Source rows compared with the target's, and the chunks they came in. */
  rowsCompared: z.number().int().nonnegative(),
  chunks: z.number().int().nonnegative(),
  /** The source's row count when the table's verify began (for progress); null when not known. */
  rowsTotal: z.number().int().nonnegative().nullable(),
  /** Rows the target held when its keys had been read through. */
  targetRows: z.number().int().nonnegative().nullable(),
  counts: z.object({
    missing: z.number().int().nonnegative(),
    extra: z.number().int().nonnegative(),
    different: z.number().int().nonnegative(),
  }),
  /** The differences found, the first `maxDifferences` of them (`counts` has them all). */
  differences: z.array(differenceSchema),
  /** Differences seen but not yet confirmed: re-read once the pipeline has applied past them. */
  pending: z.number().int().nonnegative(),
  rowsPerSecond: z.number().nullable(),
  secondsLeft: z.number().nullable(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  reason: z.string().nullable(),
});
export type TableVerify = z.infer<typeof tableVerifySchema>;

export const verifyReportSchema = z.object({
  id: z.string(),
  /** `verify`, or `repair` (differing rows copied again, then verified again). */
  kind: z.enum(['verify', 'repair']),
  status: verifyStatusSchema,
  options: z.object({ chunkRows: z.number().int(), rowsPerSecond: z.number().int().nullable() }),
  requestedAt: z.string(),
  finishedAt: z.string().nullable(),
  /** Rows copied again by a repair, per table. */
  repaired: z.record(z.string(), z.number().int().nonnegative()),
  tables: z.array(tableVerifySchema),
});
export type VerifyReport = z.infer<typeof verifyReportSchema>;

/** A report's figures over all its tables. */
export function verifyTotals(r: VerifyReport) {
  const sum = (f: (t: TableVerify) => number) => r.tables.reduce((n, t) => n + f(t), 0);
  return {
    rowsCompared: sum((t) => t.rowsCompared),
    missing: sum((t) => t.counts.missing),
    extra: sum((t) => t.counts.extra),
    different: sum((t) => t.counts.different),
    repaired: Object.values(r.repaired).reduce((n, v) => n + v, 0),
  };
}

/** Whether a report says the replica equals its source. */
export const verifiedClean = (r: VerifyReport): boolean =>
  r.status === 'done' &&
  r.tables.every((t) => t.status === 'done' && t.counts.missing + t.counts.extra + t.counts.different === 0);

/** A report as CSV: one line per difference (table, kind, key as JSON, columns), a header first. */
export function differencesCsv(r: VerifyReport): string {
  const lines = r.tables.flatMap((t) =>
    t.differences.map((d) => [t.table, d.kind, JSON.stringify(d.key), d.columns.join(' ')]),
  );
  return csvText(['table', 'kind', 'key', 'columns'], lines);
}

/** GET and POST …/verify: the running pipeline's verify (in progress or its last) and the ones kept. */
export const verifyAnswerSchema = z.object({
  agentId: z.string(),
  /** Whether the pipeline runs here: a verify or repair is asked of a running pipeline. */
  running: z.boolean(),
  current: verifyReportSchema.nullable(),
  /** Finished verifies and repairs kept with the pipeline, newest first. */
  history: z.array(verifyReportSchema),
});
export type VerifyAnswer = z.infer<typeof verifyAnswerSchema>;

/** What is asked of a running pipeline's verifier. */
export type VerifyAction =
  { action: 'verify'; table?: string; options: VerifyOptions } | { action: 'repair' } | { action: 'cancel' };
