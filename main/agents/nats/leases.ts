// Which engine applies which table of a stream: a lease per table in a JetStream key-value bucket whose
// entries live `leaseSeconds` after they were written (the bucket's TTL; Debian's nats-server 2.9 has
// no per-key TTL). An engine takes a free lease with create (refused while another holds it), renews
// its own with update at its revision, and so holds it while it lives; a dead engine's leases lapse
// and the next engine that asks takes them. Holding a lease is not enough to commit: each commit also
// compares the table's stored position (the target's fence), so a paused engine whose lease lapsed
// cannot commit over the one that took the table.
import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { escapeToken } from './subjects';

/** The bucket of a stream's leases: one per stream, named after it. */
export const leaseBucket = (stream: string) => `cdc_leases_${stream}`;

export class Leases {
  private readonly held = new Map<string, number>();
  private renewedAt = 0;

  private constructor(
    private readonly kv: KV,
    private readonly engineId: string,
    private readonly ttlMs: number,
  ) {}

  static async open(nc: NatsConnection, stream: string, engineId: string, leaseSeconds: number) {
    const kv = await new Kvm(nc).create(leaseBucket(stream), { ttl: leaseSeconds * 1000, history: 1 });
    return new Leases(kv, engineId, leaseSeconds * 1000);
  }

  /** The key of a table's lease: the pipeline and the table's subject tokens. */
  static keyOf(pipelineId: string, subjectTokens: readonly string[]): string {
    return [escapeToken(pipelineId), ...subjectTokens].join('.');
  }

  /**
   * Renews the leases held (once a third of the TTL has passed) and tries to take the free ones
   * among `keys`; answers the keys this engine holds now.
   */
  async refresh(keys: readonly string[]): Promise<Set<string>> {
    const now = Date.now();
    const renew = now - this.renewedAt >= this.ttlMs / 3;
    for (const key of keys) {
      const revision = this.held.get(key);
      try {
        if (revision !== undefined) {
          if (renew) this.held.set(key, await this.kv.update(key, this.engineId, revision));
          continue;
        }
        const entry = await this.kv.get(key);
        if (entry && entry.operation === 'PUT' && entry.string() !== this.engineId) continue;
        this.held.set(
          key,
          entry && entry.operation === 'PUT'
            ? await this.kv.update(key, this.engineId, entry.revision)
            : await this.kv.create(key, this.engineId),
        );
      } catch {
        // Another engine wrote it first, or ours lapsed and was taken: not ours now.
        this.held.delete(key);
      }
    }
    if (renew) this.renewedAt = now;
    return new Set([...this.held.keys()].filter((k) => keys.includes(k)));
  }

  holds(key: string): boolean {
    return this.held.has(key);
  }

  /** Gives every lease back at once, for another engine to take without waiting for the TTL. */
  async release(): Promise<void> {
    for (const [key, revision] of this.held)
      await this.kv.delete(key, { previousSeq: revision }).catch(() => undefined);
    this.held.clear();
  }
}
