// HMAC-SHA-256 (RFC 2104, FIPS 180-4) with one key for many short values: the key's inner and outer
// pads are hashed once, so a value costs its own blocks and one more, in place, with no object made.
// Node's createHmac sets the key up again for every value: a hash mask ran at ~2.5 µs a value, this
// at ~1 µs (docs/performance.md). The test suite checks it against createHmac, value for value.
import { createHash } from 'node:crypto';

const ROUND = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);
const INITIAL = [
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];
const BLOCK = 64;
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

const schedule = new Int32Array(64);

/** SHA-256's compression of the 64-byte block at `at` of `bytes` into the state `h`. */
function compress(h: Int32Array, bytes: Uint8Array, at: number): void {
  const w = schedule;
  for (let i = 0; i < 16; i++) {
    const j = at + i * 4;
    w[i] =
      ((bytes[j] as number) << 24) |
      ((bytes[j + 1] as number) << 16) |
      ((bytes[j + 2] as number) << 8) |
      (bytes[j + 3] as number);
  }
  for (let i = 16; i < 64; i++) {
    const x = w[i - 15] as number;
    const y = w[i - 2] as number;
    const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
    const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
    w[i] = ((w[i - 16] as number) + s0 + (w[i - 7] as number) + s1) | 0;
  }
  let a = h[0] as number;
  let b = h[1] as number;
  let c = h[2] as number;
  let d = h[3] as number;
  let e = h[4] as number;
  let f = h[5] as number;
  let g = h[6] as number;
  let k = h[7] as number;
  for (let i = 0; i < 64; i++) {
    const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (k + s1 + ((e & f) ^ (~e & g)) + (ROUND[i] as number) + (w[i] as number)) | 0;
    const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (s0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    k = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  h[0] = ((h[0] as number) + a) | 0;
  h[1] = ((h[1] as number) + b) | 0;
  h[2] = ((h[2] as number) + c) | 0;
  h[3] = ((h[3] as number) + d) | 0;
  h[4] = ((h[4] as number) + e) | 0;
  h[5] = ((h[5] as number) + f) | 0;
  h[6] = ((h[6] as number) + g) | 0;
  h[7] = ((h[7] as number) + k) | 0;
}

/** The state after the key's pad (the key XOR `byte`), the first block of either hash. */
function padded(key: Uint8Array, byte: number): Int32Array {
  const block = new Uint8Array(BLOCK).fill(byte);
  key.forEach((b, i) => (block[i] = b ^ byte));
  const h = Int32Array.from(INITIAL);
  compress(h, block, 0);
  return h;
}

export interface HmacSha256 {
  /** The HMAC of the text's UTF-8 bytes (a lone surrogate as U+FFFD, as Node writes it), in hex. */
  text(value: string): string;
  /** The HMAC of the bytes, in hex. */
  bytes(value: Uint8Array): string;
}

/** HMAC-SHA-256 under `key` (its UTF-8 bytes; a key longer than a block is hashed first, as RFC 2104 says). */
export function hmacSha256(key: string): HmacSha256 {
  const raw = new TextEncoder().encode(key);
  const k = raw.length > BLOCK ? new Uint8Array(createHash('sha256').update(raw).digest()) : raw;
  const inner = padded(k, 0x36);
  const outer = padded(k, 0x5c);
  const encoder = new TextEncoder();
  const h = new Int32Array(8);
  const last = new Uint8Array(BLOCK);
  let message = new Uint8Array(256);
  /** Room for `n` bytes and their padding in `message`. */
  const room = (n: number) => {
    if (message.length < n + BLOCK + 9) message = new Uint8Array((n + BLOCK + 9) * 2);
  };
  /** The HMAC of the first `n` bytes of `message`. */
  const finish = (n: number): string => {
    const blocks = Math.ceil((n + 9) / BLOCK);
    const end = blocks * BLOCK;
    message.fill(0, n, end);
    message[n] = 0x80;
    // The inner hash's length in bits, the pad's block counted: big-endian in the last 8 bytes.
    const bits = (n + BLOCK) * 8;
    message[end - 1] = bits & 0xff;
    message[end - 2] = (bits >>> 8) & 0xff;
    message[end - 3] = (bits >>> 16) & 0xff;
    message[end - 4] = (bits >>> 24) & 0xff;
    message[end - 5] = Math.floor(bits / 2 ** 32) & 0xff;
    h.set(inner);
    for (let b = 0; b < blocks; b++) compress(h, message, b * BLOCK);
    // The outer hash of the inner digest: one block, 32 bytes and their padding (768 bits in all).
    for (let i = 0; i < 8; i++) {
      const x = h[i] as number;
      last[i * 4] = x >>> 24;
      last[i * 4 + 1] = (x >>> 16) & 0xff;
      last[i * 4 + 2] = (x >>> 8) & 0xff;
      last[i * 4 + 3] = x & 0xff;
    }
    last.fill(0, 32);
    last[32] = 0x80;
    last[62] = 0x03;
    h.set(outer);
    compress(h, last, 0);
    let out = '';
    for (let i = 0; i < 8; i++) {
      const x = h[i] as number;
      out += `${HEX[x >>> 24]}${HEX[(x >>> 16) & 0xff]}${HEX[(x >>> 8) & 0xff]}${HEX[x & 0xff]}`;
    }
    return out;
  };
  return {
    text(value) {
      // UTF-8 takes at most three bytes per UTF-16 unit.
      room(value.length * 3);
      return finish(encoder.encodeInto(value, message).written);
    },
    bytes(value) {
      room(value.length);
      message.set(value);
      return finish(value.length);
    },
  };
}
