// Notes for the run-wide secret scan (test/setup/secretScan.ts): what the product said (HTTP answers,
// log lines, printed output), which secrets the requests carried, and which data folders it wrote.
// Each worker appends JSON lines to a file of its own in the folder the global setup made.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { consoleLog, type Log } from '../../main/log';

export type SecretNote =
  | { kind: 'answer' | 'log' | 'output'; where: string; secrets: string[]; text: string }
  | { kind: 'folder'; where: string };

const dir = process.env.CDC_SECRET_WATCH_DIR;
const file = dir && join(dir, `${process.pid}-${Math.random().toString(36).slice(2)}.jsonl`);

function note(n: SecretNote): void {
  if (file) appendFileSync(file, JSON.stringify(n) + '\n');
}

/** Every string under a key that names a password or token, at any depth. */
export function secretsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) secretsIn(v, found);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      if (typeof v === 'string' && /password|token/i.test(k)) found.push(v);
      else secretsIn(v, found);
    }
  return found;
}

/** Answers that hand out a token on purpose (first start, rotation): the one place a token may be. */
const HANDS_OUT_TOKENS = /\/admin\/token\/rotate$|\/api\/(getLocalEngine|rotateLocalEngineToken)$/;

export const noteAnswer = (url: string, secrets: string[], text: string) =>
  note({
    kind: 'answer',
    where: url,
    secrets,
    text: HANDS_OUT_TOKENS.test(new URL(url).pathname) ? '' : text,
  });
export const noteOutput = (where: string, text: string) => note({ kind: 'output', where, secrets: [], text });
/** A data folder (an engine's, the app's): every file in it is searched after the run. */
export const watchFolder = (where: string) => note({ kind: 'folder', where });

/** A logger for tests: the product's own line format, kept for the scan instead of printed. */
export const watchedLog: Log = consoleLog((line) =>
  note({ kind: 'log', where: 'log', secrets: [], text: line }),
);
