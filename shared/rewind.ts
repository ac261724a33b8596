// A rewind of a running pipeline through the control API (POST …/rewind): the point, as the source
// agent's startAt takes one, and the answer that it was asked for; the outcome comes as an event.
import { z } from 'zod';

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
