// Runs in every test worker: each HTTP request a test (or the code it drives) makes through fetch is
// noted with the secrets it carried (the bearer token, any "password" or "token" value in its body)
// and the answer it got. test/setup/secretScan.ts reads the notes after the whole run and fails it if
// any answer holds any of those secrets.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.CDC_SECRET_WATCH_DIR;
/** Answers that hand out a token on purpose (first start, rotation): the one place a token may be. */
const HANDS_OUT_TOKENS = /\/admin\/token\/rotate$|\/api\/(getLocalEngine|rotateLocalEngineToken)$/;

function secretsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) secretsIn(v, found);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      if (typeof v === 'string' && /password|token/i.test(k)) found.push(v);
      else secretsIn(v, found);
    }
  return found;
}

if (dir) {
  const original = globalThis.fetch;
  const file = join(dir, `${process.pid}-${Math.random().toString(36).slice(2)}.jsonl`);
  globalThis.fetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const secrets: string[] = [];
    const auth = new Headers(init?.headers).get('authorization');
    if (auth) secrets.push(auth.replace(/^bearer\s+/i, ''));
    if (typeof init?.body === 'string') {
      try {
        secretsIn(JSON.parse(init.body), secrets);
      } catch {
        // Not JSON: nothing to note.
      }
    }
    const response = await original(input, init);
    const type = response.headers.get('content-type') ?? '';
    const answer =
      HANDS_OUT_TOKENS.test(new URL(url).pathname) || !/json|text/.test(type)
        ? ''
        : await response
            .clone()
            .text()
            .catch(() => '');
    appendFileSync(file, JSON.stringify({ url, secrets, answer }) + '\n');
    return response;
  };
}
