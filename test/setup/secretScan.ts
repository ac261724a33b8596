// Vitest global setup: a folder for the workers' notes (test/setup/secretNotes.ts) before the run;
// after it, every answer, log line and printed line, and every file in every data folder the run
// wrote (engine and app stores, log files), is searched for every secret in each of its forms (raw,
// JSON-escaped, URL-encoded): those the requests carried
// and the simulated servers' passwords. One found fails the run.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_LOGINS } from '../../simulators/mssql';
import { SEED_LOGINS } from '../../simulators/mssql/seed';
import { SEED_USERS } from '../../simulators/ibmi/seed';
import { secretForms } from '../../main/platform/redact';
import type { SecretNote } from './secretNotes';

/** Shorter values ("pw", a wrong "nope") are words, not secrets worth the name. */
const MIN_SECRET = 8;
const SANDBOX_PASSWORDS = [...DEFAULT_LOGINS, ...SEED_LOGINS, ...SEED_USERS].map((l) => l.password);

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) return [];
    return stat.isDirectory() ? filesUnder(path) : [path];
  });
}

/** What one scan found: the leaks (which secret, where, never the secret itself) and what it searched. */
export interface ScanResult {
  leaks: string[];
  summary: string;
}

/**
 * The one answer that shows the simulators' sample passwords on purpose: the sandbox panel's (the app
 * method, called directly or as web mode's /api/ path). Every other secret is still searched in it.
 */
const SHOWS_SAMPLE_PASSWORDS = /^(api\/)?getSandboxDetails$/;

/** Searches every said thing and every file of every noted folder for every secret. */
export function scan(
  notes: readonly SecretNote[],
  knownSecrets: readonly string[] = [],
  samplePasswords: readonly string[] = [],
): ScanResult {
  const said = notes.flatMap((n) => (n.kind === 'folder' ? [] : [n]));
  const secrets = [
    ...new Set(
      [...said.flatMap((n) => n.secrets), ...knownSecrets, ...samplePasswords].filter(
        (s) => s.length >= MIN_SECRET,
      ),
    ),
  ];
  const shownOnPurpose = (n: SecretNote, s: string) =>
    n.kind === 'answer' &&
    SHOWS_SAMPLE_PASSWORDS.test(new URL(n.where, 'http://app').pathname.replace(/^\//, '')) &&
    samplePasswords.includes(s);
  // Each secret in every form text gives it: as typed, JSON-escaped (a quote, a backslash, non-ASCII),
  // URL-encoded.
  const forms = new Map(secrets.map((s) => [s, secretForms(s)]));
  const holds = (text: string, s: string) => (forms.get(s) ?? []).some((f) => text.includes(f));
  const leaks = said.flatMap((n) =>
    secrets
      .filter((s) => holds(n.text, s) && !shownOnPurpose(n, s))
      .map((s) => `${n.kind} ${n.where} holds a secret (${s.slice(0, 2)}…)`),
  );
  const files = [...new Set(notes.flatMap((n) => (n.kind === 'folder' ? filesUnder(n.where) : [])))];
  let bytes = 0;
  for (const file of files) {
    const content = readFileSync(file);
    bytes += content.length;
    for (const s of secrets)
      if (
        (forms.get(s) ?? []).some((f) => content.includes(Buffer.from(f, 'utf8'))) ||
        content.includes(Buffer.from(s, 'utf16le'))
      )
        leaks.push(`file ${file} holds a secret (${s.slice(0, 2)}…)`);
  }
  const count = (kind: SecretNote['kind']) => said.filter((n) => n.kind === kind).length;
  return {
    leaks: [...new Set(leaks)],
    summary:
      `${count('answer')} answers, ${count('log')} log lines, ${count('output')} printed lines and ` +
      `${files.length} files (${Math.round(bytes / 1024)} KiB) searched for ${secrets.length} secrets, ` +
      `${leaks.length} found`,
  };
}

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'cdc-secret-watch-'));
  process.env.CDC_SECRET_WATCH_DIR = dir;
  return () => {
    const notes = readdirSync(dir).flatMap((f) =>
      readFileSync(join(dir, f), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as SecretNote),
    );
    rmSync(dir, { recursive: true, force: true });
    const { leaks, summary } = scan(notes, [], SANDBOX_PASSWORDS);
    process.stdout.write(`secret scan: ${summary}\n`);
    if (leaks.length > 0) {
      process.stderr.write(`Secrets found:\n${leaks.join('\n')}\n`);
      // A teardown's exception does not fail a vitest run; the exit code does.
      process.exitCode = 1;
    }
  };
}
