// Vitest global setup: a folder for test/setup/secretWatch.ts's notes before the run; after it, every
// noted answer is searched for every secret any request carried. One found fails the run.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Shorter values ("pw", a wrong "nope") are words, not secrets worth the name. */
const MIN_SECRET = 8;

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'cdc-secret-watch-'));
  process.env.CDC_SECRET_WATCH_DIR = dir;
  return () => {
    const notes = readdirSync(dir).flatMap((f) =>
      readFileSync(join(dir, f), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { url: string; secrets: string[]; answer: string }),
    );
    const secrets = new Set(notes.flatMap((n) => n.secrets).filter((s) => s.length >= MIN_SECRET));
    const leaks = notes.flatMap((n) =>
      [...secrets]
        .filter((s) => n.answer.includes(s))
        .map((s) => `${n.url} answered a secret (${s.slice(0, 2)}…)`),
    );
    rmSync(dir, { recursive: true, force: true });
    process.stdout.write(
      `secret scan: ${notes.length} answers searched for ${secrets.size} secrets, ${leaks.length} found\n`,
    );
    if (leaks.length > 0) {
      process.stderr.write(`Secrets in answers:\n${[...new Set(leaks)].join('\n')}\n`);
      // A teardown's exception does not fail a vitest run; the exit code does.
      process.exitCode = 1;
    }
  };
}
