// Notes for the run-wide secret scan (test/setup/secretScan.ts): what the product said (HTTP answers,
// log lines, printed output), which secrets the requests carried, and which data folders it wrote.
// Each worker appends JSON lines to a file of its own in the folder the global setup made.
import { appendFileSync } from 'node:fs';
import { strFromU8, unzipSync } from 'fflate';
import { join } from 'node:path';
import { consoleLog, type Log } from '../../main/platform/log';

export type SecretNote =
  | { kind: 'answer' | 'log' | 'output'; where: string; secrets: string[]; text: string }
  | { kind: 'folder'; where: string };

const dir = process.env.CDC_SECRET_WATCH_DIR;
const file = dir && join(dir, `${process.pid}-${Math.random().toString(36).slice(2)}.jsonl`);

function note(n: SecretNote): void {
  if (file) appendFileSync(file, JSON.stringify(n) + '\n');
}

/**
 * Names every JavaScript object or function carries (`toString`, `constructor`, `prototype`…): a
 * fuzzer (fast-check) sends them as values on purpose, and answers name them as fields that were
 * refused, so as a "password" they are a field's name, never a secret.
 */
const BUILT_IN_NAMES = new Set([
  ...Object.getOwnPropertyNames(Object.prototype),
  ...Object.getOwnPropertyNames(Function.prototype),
  'prototype',
]);

/** Every string under a key that names a password or token, at any depth. */
export function secretsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) secretsIn(v, found);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      if (typeof v === 'string' && /password|token/i.test(k)) {
        if (!BUILT_IN_NAMES.has(v)) found.push(v);
      } else secretsIn(v, found);
    }
  return found;
}

/**
 * Answers that hand out a token on purpose (first start, rotation, web mode's launch code exchanged):
 * the one place a token may be. Matched against the path of an HTTP answer, or /api/<method>.
 */
const HANDS_OUT_TOKENS =
  /\/admin\/(metrics-)?token\/rotate$|\/api\/(getLocalEngine|rotateLocalEngineToken)$|^\/session$/;

const ZIP = Buffer.from('PK\x03\x04', 'latin1');
const unzipped = (bytes: Uint8Array) =>
  Object.entries(unzipSync(bytes))
    .map(([name, file]) => `${name}\n${strFromU8(file)}`)
    .join('\n');

/**
 * An answer as text to search: a zip (a diagnostics bundle) by its files, and a JSON answer with the
 * files of any zip it carries as base64 (the app's createDiagnostics) added.
 */
export function readable(body: Uint8Array | string): string {
  const bytes = Buffer.from(body);
  if (bytes.subarray(0, 4).equals(ZIP)) return unzipped(bytes);
  const text = bytes.toString('utf8');
  const inner: string[] = [];
  try {
    JSON.parse(text, (key, value: unknown) => {
      if (key === 'base64' && typeof value === 'string') {
        const decoded = Buffer.from(value, 'base64');
        if (decoded.subarray(0, 4).equals(ZIP)) inner.push(unzipped(decoded));
      }
      return value;
    });
  } catch {
    // Not JSON: the text as it is.
  }
  return [text, ...inner].join('\n');
}

/** `where` is a URL or an app method; answers that hand out a token on purpose are left out. */
export const noteAnswer = (where: string, secrets: string[], body: Uint8Array | string) =>
  note({
    kind: 'answer',
    where,
    secrets,
    text: HANDS_OUT_TOKENS.test(where.startsWith('http') ? new URL(where).pathname : `/api/${where}`)
      ? ''
      : readable(body),
  });
export const noteOutput = (where: string, text: string) => note({ kind: 'output', where, secrets: [], text });
/** A data folder (an engine's, the app's): every file in it is searched after the run. */
export const watchFolder = (where: string) => note({ kind: 'folder', where });

/** A logger for tests: the product's own line format, kept for the scan instead of printed. */
export const watchedLog: Log = consoleLog((line) =>
  note({ kind: 'log', where: 'log', secrets: [], text: line }),
);
