// Bearer tokens: random, stored or compared only as SHA-256 digests, compared in constant time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const newToken = (): string => randomBytes(32).toString('base64url');

export const tokenDigest = (token: string): Buffer => createHash('sha256').update(token).digest();

/** Accepts `Bearer <token>` or a bare `<token>` (the spec's examples show no scheme). */
export function presentedToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const token = /^Bearer\s+/i.test(header) ? header.replace(/^Bearer\s+/i, '') : header;
  return token.trim() || undefined;
}

export function tokenMatchesDigest(header: string | undefined, digest: Buffer): boolean {
  const token = presentedToken(header);
  // Always compare, even with nothing presented, so timing does not tell a missing token from a wrong one.
  return timingSafeEqual(tokenDigest(token ?? ''), digest) && token !== undefined;
}

export function tokenMatches(header: string | undefined, expected: string): boolean {
  return tokenMatchesDigest(header, tokenDigest(expected));
}
