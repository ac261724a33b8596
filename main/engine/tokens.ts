// The engine's admin token: made on first start and shown once; only its SHA-256 digest is stored.
import { newToken, tokenDigest, tokenMatchesDigest } from '../platform/http/token';
import type { Repo } from './store/repo';

const KEY = 'admin_token_sha256';

export interface TokenKeeper {
  verify(authorizationHeader: string | undefined): boolean;
  /** Replaces the token; the old one stops working at once. Returns the new one, to be shown once. */
  rotate(): string;
}

export function createTokenKeeper(repo: Repo): { tokens: TokenKeeper; firstStartToken: string | undefined } {
  let firstStartToken: string | undefined;
  let digest: Buffer;
  const stored = repo.meta(KEY);
  if (stored) {
    digest = Buffer.from(stored, 'hex');
  } else {
    firstStartToken = newToken();
    digest = tokenDigest(firstStartToken);
    repo.setMeta(KEY, digest.toString('hex'));
  }
  const tokens: TokenKeeper = {
    verify: (header) => tokenMatchesDigest(header, digest),
    rotate: () => {
      const token = newToken();
      const next = tokenDigest(token);
      repo.setMeta(KEY, next.toString('hex'));
      digest = next;
      return token;
    },
  };
  return { tokens, firstStartToken };
}
