// Reads server-sent events (text/event-stream) from a byte stream: the engine's event stream in main, the
// web bridge's push stream in the browser. Comments and retry lines are skipped; data lines are joined.
/** Reads server-sent events from a byte stream: each message's event name and data (JSON not parsed). */
export async function* readEventStream(
  body: AsyncIterable<Uint8Array>,
): AsyncGenerator<{ event: string; data: string }> {
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of body) {
    buffered += decoder.decode(chunk, { stream: true });
    let boundary: number;
    while ((boundary = buffered.search(/\r?\n\r?\n/)) >= 0) {
      const block = buffered.slice(0, boundary);
      buffered = buffered.slice(boundary).replace(/^\r?\n\r?\n/, '');
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split(/\r?\n/)) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length > 0) yield { event, data: data.join('\n') };
    }
  }
}

/** A fetch body's bytes as they arrive, `each` told of every chunk (a silence timer, say). */
export async function* streamChunks(
  body: ReadableStream<Uint8Array>,
  each?: () => void,
): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    each?.();
    yield value;
  }
}
