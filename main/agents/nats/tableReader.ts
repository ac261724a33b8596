// One table's events through its durable pull consumer (filtered to the table's subject): made at the
// position the target holds when this engine takes the table, read ahead into a buffer, and
// acknowledged (ack-all) only after the target committed them. A retry reads again from the buffer, so
// nothing waits for a redelivery.
import {
  AckPolicy,
  DeliverPolicy,
  type Consumer,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from '@nats-io/jetstream';

/** Long enough that no buffered message is delivered again while its batch is applied. */
const ACK_WAIT_NS = 600 * 1_000_000_000;

export class TableReader {
  private readonly buffer: JsMsg[] = [];
  /** Every message after `from` up to the last buffered one is in the buffer. */
  private constructor(
    private readonly consumer: Consumer,
    readonly durable: string,
    private from: number,
  ) {}

  /** The table's durable consumer, made again to start right after `position` (the target's). */
  static async open(
    js: JetStreamClient,
    jsm: JetStreamManager,
    stream: string,
    durable: string,
    subject: string,
    position: number,
  ): Promise<TableReader> {
    await jsm.consumers.delete(stream, durable).catch(() => undefined);
    await jsm.consumers.add(stream, {
      durable_name: durable,
      filter_subject: subject,
      ack_policy: AckPolicy.All,
      ack_wait: ACK_WAIT_NS,
      max_ack_pending: -1,
      ...(position > 0
        ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: position + 1 }
        : { deliver_policy: DeliverPolicy.All }),
    });
    return new TableReader(await js.consumers.get(stream, durable), durable, position);
  }

  /** Whether reading on from `position` can use this reader (its buffer starts there or before). */
  covers(position: number): boolean {
    return this.from <= position;
  }

  /**
   * Up to `limit` messages after `position`, none past `bound` (the stream's last sequence when the
   * read began); `drained` when every message up to `bound` was read.
   */
  async read(
    position: number,
    bound: number,
    limit: number,
  ): Promise<{ messages: JsMsg[]; drained: boolean }> {
    const after = this.buffer.filter((m) => m.seq > position && m.seq <= bound);
    // The consumer's pending count as last asked; null once a fetch may have changed it.
    let pending: number | null = null;
    while (after.length < limit) {
      const last = this.buffer.at(-1)?.seq ?? Math.max(this.from, position);
      if (last >= bound) break;
      pending = (await this.consumer.info()).num_pending;
      if (pending === 0) break;
      let got = 0;
      for await (const m of await this.consumer.fetch({
        max_messages: Math.min(pending, limit - after.length, 4096),
        expires: 1000,
      })) {
        got++;
        this.buffer.push(m);
        if (m.seq > position && m.seq <= bound) after.push(m);
      }
      pending = null;
      if (got === 0) break;
    }
    const newest = this.buffer.at(-1)?.seq ?? position;
    // An idle table asks the server once a read, not twice.
    const drained =
      after.length < limit &&
      (newest >= bound || (pending ?? (await this.consumer.info()).num_pending) === 0);
    return { messages: after.slice(0, limit), drained };
  }

  /**
   * The target committed up to `position`: acknowledged (all before it with it) and let go; answers
   * how many events that was.
   */
  acknowledge(position: number): number {
    let last: JsMsg | undefined;
    let n = 0;
    while (this.buffer[0] && this.buffer[0].seq <= position) {
      last = this.buffer.shift();
      n++;
    }
    last?.ack();
    if (position > this.from) this.from = position;
    return n;
  }
}
