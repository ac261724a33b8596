// Sources kept open between the engine's reads of one agent (backlog, tables), so that a gauge
// refreshed every few seconds does not sign on each time: on IBM i every sign-on starts a job and
// writes audit entries; on SQL Server every login is a round of TLS and authentication.
// One entry per agent, opened again when the agent's settings change, closed after a while unused,
// after any failure (the next read starts afresh), and when the engine closes. Reads of one entry run
// one at a time, as one connection serves one statement at a time.
import { createHash } from 'node:crypto';

export interface Closable {
  close(): Promise<void>;
}

interface Entry<S> {
  settings: string;
  source: Promise<S>;
  /** The last read queued on this entry; the next waits for it. */
  tail: Promise<unknown>;
  busy: number;
  timer?: NodeJS.Timeout;
}

/** A digest of what a source is opened from: the same digest, the same source may serve. */
const settingsDigest = (settings: unknown): string =>
  createHash('sha256').update(JSON.stringify(settings)).digest('hex');

/**
 * Runs `work` on a source of its own, closed afterwards; or, given the engine's cache, on the agent's
 * kept-open source, reused while `settings` (what the source is opened from) stay the same.
 */
export async function withAgentSource<S extends Closable, T>(
  agent: { pipelineId: string; id: string },
  settings: unknown,
  open: () => Promise<S>,
  work: (source: S) => Promise<T>,
  cache?: SourceCache<S>,
): Promise<T> {
  if (cache) return cache.use(`${agent.pipelineId}/${agent.id}`, settings, open, work);
  const source = await open();
  try {
    return await work(source);
  } finally {
    await source.close().catch(() => undefined);
  }
}

export class SourceCache<S extends Closable> {
  private readonly entries = new Map<string, Entry<S>>();

  constructor(private readonly idleMs = 60_000) {}

  /** Runs `work` on the agent's open source, opening one (with `open`) when none fits `settings`. */
  async use<T>(
    key: string,
    settings: unknown,
    open: () => Promise<S>,
    work: (source: S) => Promise<T>,
  ): Promise<T> {
    const digest = settingsDigest(settings);
    let entry = this.entries.get(key);
    if (entry && entry.settings !== digest) {
      this.drop(key, entry);
      entry = undefined;
    }
    if (!entry) {
      entry = { settings: digest, source: open(), tail: Promise.resolve(), busy: 0 };
      this.entries.set(key, entry);
    }
    const e = entry;
    clearTimeout(e.timer);
    e.busy++;
    const run = e.tail.then(async () => work(await e.source));
    e.tail = run.catch(() => undefined);
    try {
      return await run;
    } catch (error) {
      this.drop(key, e);
      throw error;
    } finally {
      e.busy--;
      if (e.busy === 0 && this.entries.get(key) === e) {
        e.timer = setTimeout(() => this.drop(key, e), this.idleMs);
        e.timer.unref();
      }
    }
  }

  /** Sources open now (tests and diagnostics). */
  get size(): number {
    return this.entries.size;
  }

  async closeAll(): Promise<void> {
    const closing = [...this.entries].map(([key, e]) => this.drop(key, e));
    await Promise.all(closing);
  }

  /** Forgets the entry and closes its source once the reads queued on it are done. */
  private drop(key: string, e: Entry<S>): Promise<void> {
    if (this.entries.get(key) === e) this.entries.delete(key);
    clearTimeout(e.timer);
    return e.tail
      .then(() => e.source)
      .then((source) => source.close())
      .catch(() => undefined);
  }
}
