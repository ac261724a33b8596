// A batch of changes as the messages the target publishes: each change's Debezium events (a delete's
// tombstone, a key change as delete + tombstone + create), its transaction's BEGIN and END, each with
// the id JetStream drops a re-sent copy by and the headers a consumer reads the key and position from.
import { createHash } from 'node:crypto';
import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';
import type { Change, Row } from '../source';
import { jsonText } from './debeziumTypes';
import type { EventSource, Op, TableEnvelope } from './envelope';
import { transactionSubject } from './subjects';

/** The key as Kafka's message key (JSON, its schema with it unless off), ASCII: `\u` escapes past U+007E. */
export const KEY_HEADER = 'Cdc-Key';
/** The source position of the change (a Change Tracking version; LIBRARY/RECEIVER/SEQUENCE on IBM i). */
export const POSITION_HEADER = 'Cdc-Position';
/** The pipeline that published it: what a restart reads back as its own. */
export const PIPELINE_HEADER = 'Cdc-Pipeline';
/** `c`, `u`, `d`, `r`, `t`, or `tombstone`: what the message is without parsing it. */
export const OP_HEADER = 'Cdc-Op';

export interface OutgoingMessage {
  subject: string;
  body: Uint8Array;
  /** Nats-Msg-Id: the same for the same event however often it is sent. */
  id: string;
  headers: MsgHdrs;
  /** The source table, for a refusal (too large) to name. */
  table: string;
}

const encoder = new TextEncoder();
const EMPTY = new Uint8Array(0);

/** The id of one event: pipeline, epoch, table, key, position and which event of the change it is. */
export function messageId(
  pipelineId: string,
  epoch: number,
  table: string,
  keyJson: string,
  position: string,
  which: string,
): string {
  const digest = createHash('sha256')
    .update(`${table}\u0000${keyJson}\u0000${position}\u0000${which}`)
    .digest('base64url');
  return `${pipelineId}:${epoch}:${digest}`;
}

/** The source transaction a batch is in: its events so far, in all and per topic. */
interface OpenTransaction {
  id: string;
  events: number;
  perTopic: Map<string, number>;
}

export class BatchMessages {
  readonly messages: OutgoingMessage[] = [];
  private open: OpenTransaction | null = null;

  constructor(
    private readonly pipelineId: string,
    private readonly prefix: string,
    private readonly tombstones: boolean,
    private readonly transactionEvents: boolean,
  ) {}

  private push(
    env: TableEnvelope,
    epoch: number,
    op: Op | 'tombstone',
    key: Row | null,
    body: string | null,
    position: string,
    which: string,
  ) {
    const keyJson = key ? env.keyJson(key, true) : '';
    const h = natsHeaders();
    if (key) h.set(KEY_HEADER, keyJson);
    h.set(POSITION_HEADER, position);
    h.set(PIPELINE_HEADER, this.pipelineId);
    h.set(OP_HEADER, op);
    this.messages.push({
      subject: env.subject,
      body: body === null ? EMPTY : encoder.encode(body),
      id: messageId(this.pipelineId, epoch, env.table.source, keyJson, position, which),
      headers: h,
      table: env.table.source,
    });
  }

  /** Debezium's truncate event: consumers drop the table's rows before a copy brings them again. */
  truncate(env: TableEnvelope, epoch: number, position: string) {
    const at: EventSource = { position, commitTime: undefined, snapshot: 'false', serial: 1 };
    this.push(env, epoch, 't', null, env.valueJson('t', null, null, at), position, 't');
  }

  /**
   * A change's events, in the order a consumer must apply them; with transaction events, a BEGIN before
   * the first change of its source transaction and the END of the one before.
   */
  change(env: TableEnvelope, epoch: number, c: Change) {
    const transaction = this.inTransaction(env, c);
    const at: EventSource = {
      position: c.position,
      commitTime: c.commitTime,
      snapshot: c.copied ? 'true' : 'false',
      serial: 1,
      ...(transaction && { transaction }),
    };
    const p = c.position;
    if (c.copied) return this.push(env, epoch, 'r', c.key, env.valueJson('r', null, c.row, at), p, 'r');
    if (c.op === 'insert')
      return this.push(env, epoch, 'c', c.key, env.valueJson('c', null, c.row, at), p, 'c');
    if (c.op === 'delete') {
      const keyOnly = c.before === undefined;
      this.push(env, epoch, 'd', c.key, env.valueJson('d', c.before ?? c.key, null, at, keyOnly), p, 'd');
      if (this.tombstones) this.push(env, epoch, 'tombstone', c.key, null, p, 'd-tombstone');
      return;
    }
    const oldKey = c.before && env.keyOf(c.before);
    if (oldKey && env.keyJson(oldKey) !== env.keyJson(c.key)) {
      // A key change is a delete of the old key and a create of the new one, as Debezium sends it.
      this.push(env, epoch, 'd', oldKey, env.valueJson('d', c.before ?? null, null, at), p, 'k-d');
      if (this.tombstones) this.push(env, epoch, 'tombstone', oldKey, null, p, 'k-tombstone');
      const second = { ...at, serial: 2 };
      this.push(env, epoch, 'c', c.key, env.valueJson('c', null, c.row, second), p, 'k-c');
      return;
    }
    this.push(env, epoch, 'u', c.key, env.valueJson('u', c.before ?? null, c.row, at), p, 'u');
  }

  /** The change's place in its source transaction (opened, or the one before ended, as it comes). */
  private inTransaction(env: TableEnvelope, c: Change): EventSource['transaction'] {
    const id = this.transactionEvents && !c.copied ? c.transactionId : undefined;
    if (this.open && this.open.id !== id) this.endTransaction();
    if (id === undefined) return undefined;
    if (!this.open) {
      this.open = { id, events: 0, perTopic: new Map() };
      this.transactionMark('BEGIN', id, null);
    }
    const tx = this.open;
    tx.events++;
    const n = (tx.perTopic.get(env.topic) ?? 0) + 1;
    tx.perTopic.set(env.topic, n);
    return { id, totalOrder: tx.events, tableOrder: n };
  }

  /** The END of the source transaction the batch's last changes were in, if any. */
  endTransaction() {
    if (this.open) this.transactionMark('END', this.open.id, this.open);
    this.open = null;
  }

  /** BEGIN or END of a source transaction on `<prefix>.transaction`, as Debezium's metadata topic. */
  private transactionMark(status: 'BEGIN' | 'END', id: string, counts: OpenTransaction | null) {
    const body = {
      status,
      id,
      event_count: counts ? counts.events : null,
      data_collections: counts
        ? [...counts.perTopic].map(([data_collection, event_count]) => ({ data_collection, event_count }))
        : null,
      ts_ms: Date.now(),
    };
    const h = natsHeaders();
    h.set(PIPELINE_HEADER, this.pipelineId);
    h.set(OP_HEADER, status);
    this.messages.push({
      subject: transactionSubject(this.prefix),
      body: encoder.encode(jsonText(body)),
      id: `${this.pipelineId}:tx:${createHash('sha256').update(`${id}\u0000${status}`).digest('base64url')}`,
      headers: h,
      table: '',
    });
  }
}
