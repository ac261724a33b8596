// HTTPS to an engine whose certificate is pinned: trust on first use, then only that certificate.
// An engine beyond loopback usually has a certificate of its own (self-signed), which no CA vouches
// for; what proves it is the same engine is its SHA-256 fingerprint. The fingerprint is checked on the
// TLS handshake, before the request (and its token) is written; a different one is refused and said.
import { request } from 'node:https';
import { connect, type TLSSocket } from 'node:tls';
import { Readable } from 'node:stream';

export class CertificateChanged extends Error {
  constructor(
    readonly pinned: string,
    readonly presented: string,
  ) {
    super(
      `The engine's certificate changed: pinned ${pinned}, presented ${presented}. Nothing was sent. ` +
        'If it was replaced on purpose, compare the new fingerprint with the one the engine printed, then ' +
        'forget the pinned certificate in the profile (Engines screen) and connect again.',
    );
    this.name = 'CertificateChanged';
  }
}

function tlsSocket(url: URL, timeoutMs: number): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = connect({
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: Number(url.port || 443),
      servername: /^[\d.]+$|:/.test(url.hostname) ? undefined : url.hostname,
      // The chain is not what proves this engine (its fingerprint is): it is checked below instead.
      rejectUnauthorized: false,
    });
    socket.setTimeout(timeoutMs, () =>
      socket.destroy(Object.assign(new Error('timed out'), { name: 'TimeoutError' })),
    );
    socket.once('secureConnect', () => {
      socket.setTimeout(0);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** The fingerprint the engine presents, read without sending anything (for pinning on first use). */
export async function peekFingerprint(url: URL, timeoutMs = 5000): Promise<string> {
  const socket = await tlsSocket(url, timeoutMs);
  const fingerprint = socket.getPeerCertificate().fingerprint256;
  socket.destroy();
  return fingerprint;
}

/** A fetch that speaks HTTPS only to the engine presenting the pinned certificate. */
export function pinnedFetch(pin: string): typeof fetch {
  return (input, init = {}) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(String(input instanceof Request ? input.url : input));
      const req = request(url, {
        method: init.method ?? 'GET',
        headers: init.headers as Record<string, string>,
        createConnection: (_options, oncreate) => {
          tlsSocket(url, 10_000).then(
            (socket) => {
              const presented = socket.getPeerCertificate().fingerprint256;
              if (presented === pin) return oncreate(null, socket);
              socket.destroy();
              oncreate(new CertificateChanged(pin, presented), socket);
            },
            (error: Error) => req.destroy(error),
          );
          return undefined;
        },
      });
      const signal = init.signal;
      signal?.addEventListener('abort', () => req.destroy(signal.reason as Error), { once: true });
      req.once('error', reject);
      // Answered as soon as the headers arrive, the body streamed as it comes (an event stream never ends).
      req.once('response', (res) => {
        const headers = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers.set(k, v);
        const status = res.statusCode ?? 0;
        const empty = status === 204 || status === 304;
        if (empty) res.resume();
        const body = empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
        resolve(new Response(body, { status, statusText: res.statusMessage, headers }));
      });
      if (typeof init.body === 'string') req.write(init.body);
      req.end();
    });
}
