import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const newToken = (): string => randomBytes(32).toString('base64url');

/** Accepts `Bearer <token>` or a bare `<token>`; compares digests in constant time. */
export function tokenMatches(header: string | undefined, expected: string): boolean {
  if (!header) return false;
  const presented = header.startsWith('Bearer ') ? header.slice(7).trim() : header.trim();
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}
