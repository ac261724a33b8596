import { z } from 'zod';

/** One thing wrong with an input, in terms a user can act on. */
export const problemSchema = z.object({
  /** RFC 6901 JSON pointer to the offending value, e.g. `/hostCredentials/port`. */
  pointer: z.string(),
  /** What was received, printed short; secrets are never printed. */
  received: z.string(),
  /** The rule, completing "must be …"; for unknown keys, the allowed ones. */
  rule: z.string(),
  /** The whole sentence: field, value and rule. */
  message: z.string(),
});
export type Problem = z.infer<typeof problemSchema>;

export type ParseResult<T> = { ok: true; value: T } | { ok: false; problems: Problem[] };

export function pointerOf(base: string, path: readonly PropertyKey[]): string {
  return base + path.map((p) => '/' + String(p).replaceAll('~', '~0').replaceAll('/', '~1')).join('');
}

const MAX_SHOWN = 60;

/** Prints a received value short enough for a message; long values are cut, never echoed whole. */
export function showValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  let text: string;
  try {
    text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}… (${text.length} characters)` : text;
}
