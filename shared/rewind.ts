// A rewind of a running pipeline through the control API (POST …/rewind): the point, as the source
// agent's startAt takes one, and the answer that it was asked for; the outcome comes as an event.
import { z } from 'zod';
import { fieldMeta } from './config/fields';
import type { Section } from './config/section';

export const rewindRequestBodySchema = z.strictObject({
  /** A position of the source's kind (a version, a journal position, a stream sequence) or a time. */
  to: z.string().min(1).max(40),
});
export type RewindRequestBody = z.infer<typeof rewindRequestBodySchema>;

export const rewindAnswerSchema = z.strictObject({
  agentId: z.string(),
  to: z.string(),
  /** Taken at the pipeline's next step: a `rewound` or `rewind-refused` event tells the outcome. */
  status: z.literal('requested'),
});
export type RewindAnswer = z.infer<typeof rewindAnswerSchema>;

/**
 * A source type's `startAt` field in its configuration section, and its rule in words: what a rewind's
 * point must meet, checked by the engine and said by the app. Undefined for a type without one.
 */
export function startAtRuleOf(configuration: Section): { field: z.ZodType; rule: string } | undefined {
  const field = Object.hasOwn(configuration.schema.shape, 'startAt')
    ? (configuration.schema.shape as Record<string, z.ZodType>).startAt
    : undefined;
  if (!field) return undefined;
  return { field, rule: (fieldMeta.get(field)?.rule ?? 'a start point').replace(/, or left out$/, '') };
}
