// Server-side TLS inside TDS (MS-TDS 2.2.6.5, 3.3.5): the handshake travels inside PRELOGIN packets;
// after it, TLS records go straight over TCP. A packet that starts with 0x12 is a wrapped handshake
// packet; 0x14–0x17 is a bare TLS record, which means the client has switched, and so does the server.
// (Node's 'secure' event is no signal: it can come before the server's last handshake bytes are out.)
import { Duplex } from 'node:stream';
import { TLSSocket, type SecureContext } from 'node:tls';
import type { Socket } from 'node:net';
import { encodeMessage, HEADER_LENGTH, PACKET } from './packet';

/**
 * Upgrades a socket to TLS. `leftover` is what was already read from it. With `strict` (TDS 8.0), TLS
 * comes first and is never wrapped in PRELOGIN packets; the client names the protocol by ALPN.
 */
export function startServerTls(
  socket: Socket,
  context: SecureContext,
  leftover: Buffer,
  strict = false,
): TLSSocket {
  let wrapped = !strict;
  let pending: Buffer = leftover;
  // A client reads exactly one PRELOGIN message per handshake flight it sends, so the server's
  // flight (written by OpenSSL in several pieces while it handles one input) goes out as one message.
  let flight: Buffer[] = [];
  const flush = () => {
    if (flight.length === 0) return;
    socket.write(encodeMessage(PACKET.PRELOGIN, Buffer.concat(flight)));
    flight = [];
  };
  const carrier = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, callback) {
      if (!wrapped) {
        flush();
        socket.write(chunk, callback);
        return;
      }
      if (flight.length === 0) setImmediate(flush);
      flight.push(chunk);
      callback();
    },
  });
  const feed = (chunk: Buffer) => {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    while (pending.length > 0) {
      if (!wrapped) {
        carrier.push(pending);
        pending = Buffer.alloc(0);
        return;
      }
      if (pending[0] !== PACKET.PRELOGIN) {
        // The client sends bare records only after it has the server's Finished: the handshake is over.
        flush();
        wrapped = false;
        continue;
      }
      if (pending.length < HEADER_LENGTH) return;
      const length = pending.readUInt16BE(2);
      if (pending.length < length) return;
      carrier.push(pending.subarray(HEADER_LENGTH, length));
      pending = pending.subarray(length);
    }
  };
  socket.removeAllListeners('data');
  socket.on('data', feed);
  socket.on('end', () => carrier.push(null));
  const tls = new TLSSocket(carrier as unknown as Socket, {
    isServer: true,
    secureContext: context,
    ...(strict && { ALPNProtocols: ['tds/8.0'] }),
  });
  if (pending.length > 0) feed(Buffer.alloc(0));
  return tls;
}
