// The engine's admin token: made on first start and shown once; only its SHA-256 digest is stored.
// A metrics token, made by the admin when wanted, reads GET /metrics and nothing else: a Prometheus
// server's scrape configuration holds it, never the admin token.
import { newToken, tokenDigest, tokenMatchesDigest } from '../platform/http/token';
import type { Repo } from './store/repo';

const KEY = 'admin_token_sha256';
const METRICS_KEY = 'metrics_token_sha256';

export interface TokenKeeper {
  verify(authorizationHeader: string | undefined): boolean;
  /** Replaces the token; the old one stops working at once. Returns the new one, to be shown once. */
  rotate(): string;
  /** Whether the header carries the metrics token (false while none was made). */
  verifyMetrics(authorizationHeader: string | undefined): boolean;
  /** Makes the metrics token anew; the previous one stops working at once. Shown once. */
  rotateMetrics(): string;
}

export function createTokenKeeper(repo: Repo): { tokens: TokenKeeper; firstStartToken: string | undefined } {
  /** A new token under `key`: its digest stored, the token answered once. */
  const make = (key: string): { token: string; next: Buffer } => {
    const token = newToken();
    const next = tokenDigest(token);
    repo.setMeta(key, next.toString('hex'));
    return { token, next };
  };
  let firstStartToken: string | undefined;
  let digest: Buffer;
  const stored = repo.meta(KEY);
  if (stored) {
    digest = Buffer.from(stored, 'hex');
  } else {
    const made = make(KEY);
    firstStartToken = made.token;
    digest = made.next;
  }
  const storedMetrics = repo.meta(METRICS_KEY);
  let metricsDigest: Buffer | null = storedMetrics ? Buffer.from(storedMetrics, 'hex') : null;
  const tokens: TokenKeeper = {
    verify: (header) => tokenMatchesDigest(header, digest),
    verifyMetrics: (header) => metricsDigest !== null && tokenMatchesDigest(header, metricsDigest),
    rotateMetrics: () => {
      const { token, next } = make(METRICS_KEY);
      metricsDigest = next;
      return token;
    },
    rotate: () => {
      const { token, next } = make(KEY);
      digest = next;
      return token;
    },
  };
  return { tokens, firstStartToken };
}
