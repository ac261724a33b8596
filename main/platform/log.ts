// A tiny logger seam: one line of JSON per event. Callers pass facts, never request payloads,
// so nothing a user typed (passwords included) reaches a log line.
export type LogFields = Record<string, string | number | boolean | undefined>;

export interface Log {
  info(event: string, fields?: LogFields): void;
  warn(event: string, fields?: LogFields): void;
}

export function consoleLog(write: (line: string) => void = (line) => process.stderr.write(line + '\n')): Log {
  const emit = (level: string, event: string, fields?: LogFields) =>
    write(JSON.stringify({ time: new Date().toISOString(), level, event, ...fields }));
  return { info: (e, f) => emit('info', e, f), warn: (e, f) => emit('warn', e, f) };
}

export const silentLog: Log = { info: () => undefined, warn: () => undefined };
