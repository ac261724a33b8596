// Which engine applies which table of a stream: a lease per table in a JetStream key-value bucket whose
// entries live `leaseSeconds` after they were written (the bucket's TTL; Debian's nats-server 2.9 has
// no per-key TTL). An engine takes a free lease with create (refused while another holds it), renews
// its own with update at its revision, and so holds it while it lives; a dead engine's leases lapse
// and the next engine that asks takes them. Holding a lease is not enough to commit: each commit also
// compares the table's stored position (the target's fence), so a paused engine whose lease lapsed
// cannot commit over the one that took the table.
//
// Engines share the tables: each live engine writes a presence entry beside the leases (renewed with
// them, lapsing with them), and holds at most its fair share, ⌈tables ÷ live engines⌉. One holding more
// gives the rest back between two reads, when nothing of theirs is in flight, for a newcomer to take;
// one holding less takes free leases up to its share.
import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { escapeToken } from './subjects';

/** The bucket of a stream's leases: one per stream, named after it. */
export const leaseBucket = (stream: string) => `cdc_leases_${stream}`;

/** Where engines' presence entries live in the bucket: a first token no pipeline's escaped id takes. */
const PRESENCE = '_engines';

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

  /** The presence entry of an engine of a pipeline; apart from the table leases (no table key starts so). */
  private static presenceKey(pipelineId: string, engineId: string): string {
    return `${PRESENCE}.${escapeToken(pipelineId)}.${escapeToken(engineId)}`;
  }

  /** The engines of the pipeline alive now (their presence not lapsed), this one included. */
  private async liveEngines(pipelineId: string): Promise<number> {
    let count = 0;
    for await (const _ of await this.kv.keys(`${PRESENCE}.${escapeToken(pipelineId)}.*`)) count++;
    return Math.max(1, count);
  }

  /**
   * Renews the leases held and this engine's presence (once a third of the TTL has passed), gives back
   * what is over its fair share of `keys`, and tries to take free ones up to it; answers the keys this
   * engine holds now. Called between reads, when nothing read under these leases is in flight.
   */
  async refresh(pipelineId: string, keys: readonly string[]): Promise<Set<string>> {
    const now = Date.now();
    const renew = now - this.renewedAt >= this.ttlMs / 3;
    if (renew) await this.kv.put(Leases.presenceKey(pipelineId, this.engineId), this.engineId);
    const share = Math.ceil(keys.length / (await this.liveEngines(pipelineId)));
    const mine = keys.filter((k) => this.held.has(k));
    // Over the share: the last keys go back (whole sets of a pipeline compare equal on every engine).
    for (const key of [...mine].sort().slice(share)) {
      const revision = this.held.get(key);
      this.held.delete(key);
      await this.kv.delete(key, { previousSeq: revision }).catch(() => undefined);
    }
    // Counted, not filtered per key: a pipeline of 850 tables asks this at every step.
    let holding = keys.filter((k) => this.held.has(k)).length;
    for (const key of keys) {
      const revision = this.held.get(key);
      try {
        if (revision !== undefined) {
          if (renew) this.held.set(key, await this.kv.update(key, this.engineId, revision));
          continue;
        }
        if (holding >= share) continue;
        const entry = await this.kv.get(key);
        if (entry && entry.operation === 'PUT' && entry.string() !== this.engineId) continue;
        this.held.set(
          key,
          entry && entry.operation === 'PUT'
            ? await this.kv.update(key, this.engineId, entry.revision)
            : await this.kv.create(key, this.engineId),
        );
        holding++;
      } catch {
        // Another engine wrote it first, or ours lapsed and was taken: not ours now.
        if (this.held.delete(key)) holding--;
      }
    }
    if (renew) this.renewedAt = now;
    const asked = new Set(keys);
    return new Set([...this.held.keys()].filter((k) => asked.has(k)));
  }

  holds(key: string): boolean {
    return this.held.has(key);
  }

  /** Gives every lease back at once, for another engine to take without waiting for the TTL. */
  async release(pipelineId?: string): Promise<void> {
    for (const [key, revision] of this.held)
      await this.kv.delete(key, { previousSeq: revision }).catch(() => undefined);
    this.held.clear();
    if (pipelineId !== undefined)
      await this.kv.delete(Leases.presenceKey(pipelineId, this.engineId)).catch(() => undefined);
  }
}
