// The server-sent-event reader both ends use: messages split anywhere across chunks, CRLF or LF line
// ends, comments and retry lines skipped, several data lines joined, a message without data ignored.
import { describe, expect, it } from 'vitest';
import { readEventStream } from '../../shared/eventStream';

async function read(chunks: string[]) {
  const encoder = new TextEncoder();
  async function* bytes() {
    for (const chunk of chunks) yield encoder.encode(chunk);
  }
  const out: { event: string; data: string }[] = [];
  for await (const message of readEventStream(bytes())) out.push(message);
  return out;
}

describe('readEventStream', () => {
  it('reads messages however the bytes are cut', async () => {
    const text =
      'retry: 2000\n\n: keep-alive\n\nevent: feed\ndata: {"a":1}\n\nevent: feed\ndata: {"b":"é€"}\n\n';
    const whole = await read([text]);
    expect(whole).toEqual([
      { event: 'feed', data: '{"a":1}' },
      { event: 'feed', data: '{"b":"é€"}' },
    ]);
    // Every cut point, bytes of a multi-byte character included.
    const bytes = new TextEncoder().encode(text);
    for (let cut = 1; cut < bytes.length; cut++) {
      const decoder = new TextDecoder('latin1');
      const parts = [bytes.slice(0, cut), bytes.slice(cut)];
      const out: { event: string; data: string }[] = [];
      async function* chunks() {
        yield* parts;
      }
      for await (const m of readEventStream(chunks())) out.push(m);
      expect(out, `cut at ${cut} (${decoder.decode(parts[0])})`).toEqual(whole);
    }
  });

  it('takes CRLF line ends, joins data lines, names unnamed messages "message"', async () => {
    expect(await read(['data: one\r\ndata: two\r\n\r\nevent: x\r\n\r\ndata:three\n\n'])).toEqual([
      { event: 'message', data: 'one\ntwo' },
      { event: 'message', data: 'three' },
    ]);
  });
});
