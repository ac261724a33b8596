// The NATS JetStream target: a batch's changes published as Debezium events, pipelined (a bounded
// window of acknowledgements in flight), then the checkpoint published after every acknowledgement:
// the position never runs ahead of what the stream holds. A restart reads the last checkpoint back from
// the stream, and the ids of what was published after it, so a batch sent again skips what arrived —
// exactly once into the stream without a duplicate window as long as the outage (docs/nats-jetstream.md).
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { version } from '../../../package.json';
import {
  natsCheckpointRecordSchema,
  type NatsConfiguration,
  type NatsHostCredentials,
  type NatsCheckpointRecord,
} from '../../../shared/agents/nats';
import type { StreamFigures } from '../../../shared/liveFeed';
import { tableRefOfText } from '../../../shared/names';
import type { DroppedColumns } from '../../../shared/agents/common';
import type { Change, Checkpoint } from '../source';
import type { SourceOrigin } from '../spi';
import type { Reconciled, Retyped, Target, TargetTable } from '../target';
import { answered, classifyNatsError, closeConnection, openNats } from './connection';
import { ValueNotSendable } from './debeziumTypes';
import { TableEnvelope } from './envelope';
import { BatchMessages, PIPELINE_HEADER, POSITION_HEADER, type OutgoingMessage } from './messages';
import { MinuteRate } from './minuteRate';
import { ensureStream } from './stream';
import { startHeartbeats } from './heartbeat';
import { schemaChangeEvent } from './schemaChangeEvent';
import { eachMessage } from './streamReads';
import { checkpointSubject } from './subjects';

export interface NatsTargetOptions {
  credentials: NatsHostCredentials;
  configuration: NatsConfiguration;
  pipelineId: string;
  origin: SourceOrigin;
}

/** A message larger than the servers take (max_payload): the row is kept aside, never cut. */
export class MessageTooLarge extends Error {}

/** Older checkpoint records are purged every this many, so the stream keeps a handful, not one per batch. */
const PURGE_EVERY = 200;

export class NatsTarget implements Target {
  readonly description: string;
  readonly classifyError = classifyNatsError;
  private nc: NatsConnection | undefined;
  private js: JetStreamClient | undefined;
  private jsm: JetStreamManager | undefined;
  private readonly envelopes = new Map<string, TableEnvelope>();
  private record: NatsCheckpointRecord = { checkpoint: {}, epochs: {}, shapes: {} };
  /** Ids found in the stream after the last checkpoint: sent before a restart, not sent again. */
  private readonly published = new Set<string>();
  private checkpointsSincePurge = 0;
  /** The stream was read back once (checkpoint and what came after it); when the record was written. */
  private recovered = false;
  private savedAt = 0;
  /** Events the stream acknowledged lately, and the source position of the newest. */
  private readonly acknowledged = new MinuteRate();
  private newestAcknowledged: string | null = null;
  private heartbeats: { stop(): void } | undefined;
  private readonly prefix: string;

  constructor(private readonly o: NatsTargetOptions) {
    this.prefix = o.configuration.subjectPrefix;
    this.description = `NATS JetStream stream ${o.configuration.stream} (${this.prefix}.…) at ${o.credentials.servers}`;
  }

  refusesRow(error: unknown): boolean {
    return error instanceof MessageTooLarge || error instanceof ValueNotSendable;
  }

  suspendsTable(error: unknown): boolean {
    return this.refusesRow(error);
  }

  /** Every JetStream call goes through here: an election's silence is told in words, and retried. */
  private told<T>(work: Promise<T>): Promise<T> {
    return answered(this.o.configuration.stream, work);
  }

  private open() {
    return this.told(this.opened());
  }

  private async opened() {
    if (this.nc && !this.nc.isClosed() && this.js && this.jsm) return { js: this.js, jsm: this.jsm };
    this.nc = await openNats(this.o.credentials, `cdc-admin ${this.o.pipelineId}`);
    this.jsm = await jetstreamManager(this.nc);
    this.js = jetstream(this.nc);
    await ensureStream(this.jsm, this.o.configuration);
    this.heartbeats ??= startHeartbeats(this.jsm, this.js, {
      configuration: this.o.configuration,
      pipelineId: this.o.pipelineId,
      newest: () => this.newestAcknowledged,
    });
    return { js: this.js, jsm: this.jsm };
  }

  async prepare(tables: readonly TargetTable[]): Promise<void> {
    await this.open();
    for (const t of tables) this.envelopeFor(t);
  }

  /** The table's envelope for its shape now, kept for its events from here on. */
  private envelopeFor(t: TargetTable): TableEnvelope {
    const env = this.envelopeOf(t);
    this.envelopes.set(t.source, env);
    return env;
  }

  private envelopeOf(t: TargetTable): TableEnvelope {
    const c = this.o.configuration;
    return new TableEnvelope(
      t,
      tableRefOfText(t.source),
      {
        prefix: this.prefix,
        origin: this.o.origin,
        includeSchema: c.includeSchema,
        decimalHandling: c.decimalHandling,
        transactionEvents: c.transactionEvents,
        version,
      },
      // Change Tracking keeps no old values: a delete's before holds the key alone.
      this.o.origin.connector === 'sqlserver',
    );
  }

  /**
   * The checkpoint, read back from the stream once per target opened (with what was published after
   * it); then this target's own record, which it alone writes — the runner asks at every step, and a
   * stream shared with busy pipelines must not be scanned each time.
   */
  async loadCheckpoint(): Promise<Checkpoint> {
    if (this.recovered) {
      await this.refreshRecord();
      return { ...this.record.checkpoint };
    }
    const { js, jsm } = await this.open();
    const stream = this.o.configuration.stream;
    const subject = checkpointSubject(this.prefix, this.o.pipelineId);
    const last = await this.told(jsm.streams.getMessage(stream, { last_by_subj: subject }));
    if (last) this.record = natsCheckpointRecordSchema.parse(JSON.parse(last.string()));
    // What this pipeline published after that record (a batch whose checkpoint a crash cut off).
    this.published.clear();
    await this.told(
      eachMessage(
        js,
        jsm,
        stream,
        null,
        (m) => {
          const id = m.headers?.get(PIPELINE_HEADER) === this.o.pipelineId && m.headers.get('Nats-Msg-Id');
          if (id) this.published.add(id);
        },
        { fromSeq: last ? last.seq + 1 : 1, headersOnly: true },
      ),
    );
    this.recovered = true;
    this.savedAt = last ? last.time.getTime() : 0;
    await this.refreshRecord();
    return { ...this.record.checkpoint };
  }

  /**
   * A quiet source publishes no record: one near the stream's age limit is written again, so a restart
   * never finds it discarded (and copies every table again). Only with nothing published after it.
   */
  private async refreshRecord() {
    const maxAgeMs = this.o.configuration.maxAgeHours * 3_600_000;
    if (
      this.savedAt > 0 &&
      maxAgeMs > 0 &&
      this.published.size === 0 &&
      Date.now() - this.savedAt > maxAgeMs / 2
    )
      await this.saveRecord(this.record.checkpoint, this.record.epochs, this.record.shapes);
  }

  /** A copy starts: a new epoch, the table's schema told, then Debezium's truncate event. */
  async clear(table: TargetTable, checkpoint: Checkpoint): Promise<void> {
    const env = this.envelopeFor(table);
    const epoch = (this.record.epochs[table.source] ?? 0) + 1;
    const batch = this.batch();
    const position = checkpoint[table.source] ?? '';
    batch.truncate(env, epoch, position);
    const told = schemaChangeEvent(env, 'CREATE', this.o.pipelineId, epoch, position);
    await this.publish([told.message, ...batch.messages]);
    await this.saveRecord(
      { ...this.record.checkpoint, ...checkpoint },
      { ...this.record.epochs, [table.source]: epoch },
      { ...this.record.shapes, [table.source]: told.shape },
    );
  }

  /**
   * The runner's shape of a table (at each start, and after a change at the source): events from now
   * on carry it, and a shape not told before is told on `<prefix>` first, once.
   */
  async reconcile(
    table: TargetTable,
    _dropped: DroppedColumns,
    _retyped?: readonly Retyped[],
  ): Promise<Reconciled> {
    const env = this.envelopeFor(table);
    const epoch = this.record.epochs[table.source] ?? 0;
    const lastTold = this.record.shapes[table.source];
    const told = schemaChangeEvent(
      env,
      lastTold ? 'ALTER' : 'CREATE',
      this.o.pipelineId,
      epoch,
      this.record.checkpoint[table.source] ?? '',
    );
    if (told.shape === lastTold) return { added: [], done: [] };
    await this.publish([told.message]);
    await this.saveRecord(this.record.checkpoint, this.record.epochs, {
      ...this.record.shapes,
      [table.source]: told.shape,
    });
    // Nothing to alter: the events carry their columns. Said only when a shape was told before.
    return { added: [], done: lastTold ? ['told on the stream as a schema change event'] : [] };
  }

  /**
   * A rewind: the tables' positions stored with a new epoch each, in one write, so the events read
   * again get new message ids and the stream's duplicate window does not drop them as sent.
   */
  async rewind(tables: readonly string[], checkpoint: Checkpoint): Promise<void> {
    const epochs = { ...this.record.epochs };
    for (const table of tables) epochs[table] = (epochs[table] ?? 0) + 1;
    await this.saveRecord({ ...this.record.checkpoint, ...checkpoint }, epochs, this.record.shapes);
  }

  async apply(changes: readonly Change[], checkpoint: Checkpoint): Promise<void> {
    const batch = this.batch();
    const epochs = this.record.epochs;
    for (const c of changes) {
      if (c.unreadable) continue;
      const env = this.envelopes.get(c.table);
      if (!env) throw new Error(`No table ${c.table} was prepared at the NATS target.`);
      batch.change(env, epochs[c.table] ?? 0, c);
    }
    batch.endTransaction();
    await this.publish(batch.messages);
    await this.saveRecord({ ...this.record.checkpoint, ...checkpoint }, epochs, this.record.shapes);
  }

  private batch() {
    const c = this.o.configuration;
    return new BatchMessages(this.o.pipelineId, this.prefix, c.tombstones, c.transactionEvents);
  }

  /** Publishes every message not already in the stream, with at most maxPendingAcks unacknowledged. */
  private async publish(messages: readonly OutgoingMessage[]): Promise<void> {
    const { js } = await this.open();
    const limit = this.nc?.info?.max_payload ?? Infinity;
    for (const m of messages)
      if (m.body.length + headerBytes(m) > limit)
        throw new MessageTooLarge(
          `A change of ${m.table} is ${m.body.length} bytes as a Debezium event, over the servers' max_payload of ${limit}: raise max_payload (nats-server.conf) or leave the widest columns out of the entity.`,
        );
    const window = this.o.configuration.maxPendingAcks;
    const stream = this.o.configuration.stream;
    const inFlight: Promise<unknown>[] = [];
    let failure: unknown;
    let sent = 0;
    for (const m of messages) {
      if (this.published.has(m.id)) continue;
      const ack = js
        .publish(m.subject, m.body, { msgID: m.id, headers: m.headers, expect: { streamName: stream } })
        .catch((e: unknown) => {
          failure ??= e;
        });
      inFlight.push(ack);
      sent++;
      if (inFlight.length >= window) await inFlight.shift();
      if (failure !== undefined) break;
    }
    await Promise.all(inFlight);
    if (failure !== undefined) await this.told(Promise.reject(failure));
    this.acknowledged.count(sent);
    const newest = messages.findLast((m) => m.table !== '')?.headers.get(POSITION_HEADER);
    if (newest) this.newestAcknowledged = newest;
  }

  /** What the cockpit shows of a stream target: its rate, its newest position, the stream against its limits. */
  async streamFigures(): Promise<StreamFigures> {
    const { jsm } = await this.open();
    const info = await this.told(jsm.streams.info(this.o.configuration.stream));
    return {
      stream: info.config.name,
      eventsPerSecond: this.acknowledged.perSecond(),
      newestAcknowledged: this.newestAcknowledged,
      messages: info.state.messages,
      bytes: info.state.bytes,
      maxBytes: info.config.max_bytes > 0 ? info.config.max_bytes : null,
      maxAgeSeconds: info.config.max_age > 0 ? info.config.max_age / 1e9 : null,
    };
  }

  private async saveRecord(
    checkpoint: Checkpoint,
    epochs: Record<string, number>,
    shapes: Record<string, string>,
  ) {
    const { js, jsm } = await this.open();
    const record: NatsCheckpointRecord = { checkpoint, epochs, shapes };
    const subject = checkpointSubject(this.prefix, this.o.pipelineId);
    const h = natsHeaders();
    h.set(PIPELINE_HEADER, this.o.pipelineId);
    // No message id: a record sent twice is harmless (the last one counts), one dropped as a
    // duplicate of an older, equal record would leave a newer one last.
    await this.told(
      js.publish(subject, JSON.stringify(record), {
        headers: h,
        expect: { streamName: this.o.configuration.stream },
      }),
    );
    this.record = record;
    this.savedAt = Date.now();
    this.published.clear();
    if (++this.checkpointsSincePurge >= PURGE_EVERY) {
      this.checkpointsSincePurge = 0;
      await this.told(jsm.streams.purge(this.o.configuration.stream, { filter: subject, keep: 1 }));
    }
  }

  async close(): Promise<void> {
    this.heartbeats?.stop();
    this.heartbeats = undefined;
    const nc = this.nc;
    this.nc = undefined;
    if (nc) await closeConnection(nc);
  }
}

/** About what the headers add to a message on the wire (the server counts them in max_payload). */
const headerBytes = (m: OutgoingMessage) => {
  let n = 12 + m.id.length + 16;
  for (const [k, v] of m.headers) n += k.length + v.join('').length + 4;
  return n;
};
