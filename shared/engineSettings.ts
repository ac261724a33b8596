// The engine's own settings (not an agent's), declared once: the engine CLI's options, the engine's
// defaults and the README's table come from here.
import { z } from 'zod';

export const engineSettingsSchema = z.object({
  /** Events kept per pipeline, newest first; older ones are deleted. */
  keepEvents: z.number().int().min(100).max(1_000_000).default(10_000),
  /** Events older than this many days are deleted, however few a pipeline has. */
  keepEventDays: z.number().int().min(1).max(3650).default(30),
  /** Rows kept as exceptions per pipeline, newest first; older ones are deleted. */
  keepExceptions: z.number().int().min(100).max(10_000_000).default(100_000),
  /** Exceptions older than this many days are deleted. */
  keepExceptionDays: z.number().int().min(1).max(3650).default(30),
});
export type EngineSettings = z.output<typeof engineSettingsSchema>;

export const ENGINE_SETTING_HELP: Record<keyof EngineSettings, { what: string; rule: string }> = {
  keepEvents: {
    what: 'events kept per pipeline, newest first',
    rule: 'a whole number from 100 to 1,000,000 (default 10,000)',
  },
  keepEventDays: {
    what: 'days an event is kept at most',
    rule: 'a whole number from 1 to 3650 (default 30)',
  },
  keepExceptions: {
    what: 'rows kept as exceptions (refused by the target) per pipeline, newest first',
    rule: 'a whole number from 100 to 10,000,000 (default 100,000)',
  },
  keepExceptionDays: {
    what: 'days a row is kept as an exception at most',
    rule: 'a whole number from 1 to 3650 (default 30)',
  },
};
