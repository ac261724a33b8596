import type { z } from 'zod';

/** One of the two objects an agent is configured with through the control API. */
export type SectionId = 'hostCredentials' | 'configuration';

export interface Section<S extends z.ZodObject = z.ZodObject> {
  id: SectionId;
  title: string;
  description: string;
  schema: S;
  /** Keys refused with a specific reason rather than the generic "unknown key" message. */
  refusedKeys?: Readonly<Record<string, string>>;
}

export function section<S extends z.ZodObject>(s: Section<S>): Section<S> {
  return s;
}
