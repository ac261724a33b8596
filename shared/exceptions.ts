// Rows a pipeline could not move (the target refused them), kept in the engine's exceptions store with
// their reason: what the control API answers (GET …/exceptions) and accepts (POST …/exceptions/retry,
// …/exceptions/discard). Values travel as exact JSON (below): a retry reads the row again by its key.
import { z } from 'zod';
import { tableNameSchema } from './snapshots';

/**
 * A row value as JSON without loss: text, numbers, booleans and null as they are; what JSON lacks as a
 * one-key object — a bigint as its digits, bytes as hex, a time as its ISO text.
 */
export const exactValueSchema = z.union([
  z.string(),
  z.number(),
  z.boolean(),
  z.null(),
  z.strictObject({ $bigint: z.string().regex(/^-?\d+$/) }),
  z.strictObject({ $bytes: z.string().regex(/^(?:[0-9a-f]{2})*$/) }),
  z.strictObject({ $time: z.string() }),
]);
export type ExactValue = z.infer<typeof exactValueSchema>;
export const exactRowSchema = z.record(z.string(), exactValueSchema);
export type ExactRow = z.infer<typeof exactRowSchema>;

type PlainValue = string | number | boolean | bigint | Date | Uint8Array | null;

export function toExact(value: PlainValue): ExactValue {
  if (typeof value === 'bigint') return { $bigint: value.toString() };
  if (value instanceof Date) return { $time: value.toISOString() };
  if (value instanceof Uint8Array)
    return { $bytes: Array.from(value, (b) => b.toString(16).padStart(2, '0')).join('') };
  return value;
}

export function fromExact(value: ExactValue): PlainValue {
  if (value === null || typeof value !== 'object') return value;
  if ('$bigint' in value) return BigInt(value.$bigint);
  if ('$time' in value) return new Date(value.$time);
  const hex = value.$bytes;
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

/** A value as a DBA reads it in a list or a CSV file. */
export function exactText(value: ExactValue): string {
  if (value === null) return 'NULL';
  if (typeof value !== 'object') return String(value);
  if ('$bigint' in value) return value.$bigint;
  if ('$time' in value) return value.$time;
  return `0x${value.$bytes.toUpperCase()}`;
}

export const rowExceptionSchema = z.object({
  id: z.number().int(),
  /** `schema.table` as the entity writes it. */
  table: z.string(),
  op: z.enum(['insert', 'update', 'delete']),
  /** The row's key as the source gave it: what a retry reads the row again by. */
  key: exactRowSchema,
  /** The source's position of the change (a version, a journal sequence). */
  position: z.string(),
  /** The row as the source gave it; null for a delete. Masked (every value `***`) in diagnostics. */
  values: exactRowSchema.nullable(),
  /** The target's refusal, or why the source could not read the row, in words. */
  error: z.string(),
  /** The record image as the source holds it (hex), when the source could not read the row; else null. Masked in diagnostics. */
  raw: z
    .string()
    .regex(/^(?:[0-9a-f]{2})*$|^\*\*\*$/)
    .nullable(),
  /** When it was first kept, and when last tried. */
  at: z.string(),
  triedAt: z.string(),
  /** 1 when kept; one more for each retry that failed again. */
  attempts: z.number().int().positive(),
});
export type RowException = z.infer<typeof rowExceptionSchema>;

export const exceptionsAnswerSchema = z.object({
  agentId: z.string(),
  /** Rows kept per table (every table with any), whatever `limit` cut from `rows`. */
  counts: z.record(z.string(), z.number().int()),
  /** Newest first, at most `limit`. */
  rows: z.array(rowExceptionSchema),
});
export type ExceptionsAnswer = z.infer<typeof exceptionsAnswerSchema>;

/** Which kept rows to list: one table's or all, newest first, at most `limit`. */
export const exceptionsQuerySchema = z.strictObject({
  table: tableNameSchema.optional(),
  limit: z.number().int().min(1).max(100_000).default(1000),
});
export type ExceptionsQuery = z.input<typeof exceptionsQuerySchema>;

/** Which kept rows a retry or a discard takes: by id, or every row of a table, or all. */
export const exceptionsRequestSchema = z.strictObject({
  ids: z.array(z.number().int().positive()).max(10_000).optional(),
  table: tableNameSchema.optional(),
});
export type ExceptionsRequest = z.infer<typeof exceptionsRequestSchema>;

/** What a retry did: rows applied (and so gone from the store), rows refused again (kept, with the new error). */
export const exceptionsRetryAnswerSchema = exceptionsAnswerSchema.extend({
  applied: z.number().int(),
  refusedAgain: z.number().int(),
});
export type ExceptionsRetryAnswer = z.infer<typeof exceptionsRetryAnswerSchema>;

export const exceptionsDiscardAnswerSchema = exceptionsAnswerSchema.extend({ discarded: z.number().int() });
