// Logs in the OS log folder: one JSON line per event, files rotated by size, and a last scrub of
// anything shaped like a credential (the callers pass facts, never payloads; this is the second net).
import { appendFileSync, existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Log, LogFields } from './log';

export const LOG_FILE = 'cdc-admin.log';

const CREDENTIAL_PATTERNS: [RegExp, string][] = [
  [/(Bearer\s+)[A-Za-z0-9._~+/=-]+/gi, '$1[redacted]'],
  [/((?:password|pwd|token|secret)["']?\s*[:=]\s*["']?)[^"'\s,;}]+/gi, '$1[redacted]'],
];

export function scrubCredentials(text: string): string {
  return CREDENTIAL_PATTERNS.reduce((out, [pattern, replacement]) => out.replace(pattern, replacement), text);
}

export interface FileLog extends Log {
  /** The log files, newest first. */
  files(): string[];
}

export function createFileLog(
  dir: string,
  options: { maxBytes?: number; keep?: number; echo?: (line: string) => void } = {},
): FileLog {
  const maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
  const keep = options.keep ?? 3;
  const path = (n: number) => join(dir, n === 0 ? LOG_FILE : `${LOG_FILE}.${n}`);

  const rotate = () => {
    rmSync(path(keep - 1), { force: true });
    for (let n = keep - 2; n >= 0; n--) if (existsSync(path(n))) renameSync(path(n), path(n + 1));
  };

  const write = (level: string, event: string, fields?: LogFields) => {
    const line =
      scrubCredentials(JSON.stringify({ time: new Date().toISOString(), level, event, ...fields })) + '\n';
    const size = existsSync(path(0)) ? statSync(path(0)).size : 0;
    if (size > 0 && size + line.length > maxBytes) rotate();
    appendFileSync(path(0), line, { mode: 0o600 });
    options.echo?.(line.trimEnd());
  };
  return {
    info: (e, f) => write('info', e, f),
    warn: (e, f) => write('warn', e, f),
    files: () => Array.from({ length: keep }, (_, n) => path(n)).filter((p) => existsSync(p)),
  };
}
