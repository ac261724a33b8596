// Runs in every test worker: each HTTP request a test (or the code it drives) makes through fetch is
// noted with the secrets it carried (the bearer token, any "password" or "token" value in its body)
// and the answer it got — a zip answer (a diagnostics bundle) by the text of its files — and whatever
// the code prints is noted too. test/setup/secretScan.ts searches the notes after the whole run.
import { noteAnswer, noteOutput, secretsIn } from './secretNotes';
import { streamChunks } from '../../shared/eventStream';

async function answerBody(response: Response): Promise<Uint8Array | string> {
  const type = response.headers.get('content-type') ?? '';
  if (/zip/.test(type)) return new Uint8Array(await response.clone().arrayBuffer());
  return /json|text/.test(type) ? response.clone().text() : '';
}

async function noteStream(url: string, secrets: string[], response: Response): Promise<void> {
  if (!response.body) return;
  const decoder = new TextDecoder();
  try {
    for await (const chunk of streamChunks(response.body))
      noteAnswer(url, secrets, decoder.decode(chunk, { stream: true }));
  } catch {
    // The subscriber left: the stream ends here.
  }
}

if (process.env.CDC_SECRET_WATCH_DIR) {
  const original = globalThis.fetch;
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
    // A held-open stream is noted as it arrives, message by message, without waiting for its end.
    if (/event-stream/.test(response.headers.get('content-type') ?? '')) {
      void noteStream(url, secrets, response.clone());
      return response;
    }
    noteAnswer(url, secrets, await answerBody(response).catch(() => ''));
    return response;
  };

  // What the code prints (a logger's default sink is stderr) is output too.
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
    const where = stream === process.stdout ? 'stdout' : 'stderr';
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      noteOutput(where, typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString());
      return write(chunk, ...rest);
    }) as typeof stream.write;
  }
}
