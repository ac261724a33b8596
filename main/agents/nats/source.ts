// The stream as a source: Debezium change events (ours, or any Debezium-format producer's) applied to
// a table target. A table's position is its last applied stream sequence, kept with the target's rows
// in one transaction (so it is exactly once) and fenced there: several engines may apply one stream, a
// table at a time each, by lease (leases.ts). A copy of a table is a replay from its last truncate
// event; a gap (limits discarded events not yet applied) suspends the table, never skips it.
import { randomUUID } from 'node:crypto';
import {
  jetstream,
  jetstreamManager,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { NatsConfiguration, NatsHostCredentials } from '../../../shared/agents/nats';
import type { CheckResult, Entity } from '../../../shared/controlApi';
import { failed, passed } from '../checkResults';
import {
  tableKey,
  type Change,
  type ChangeBatch,
  type Checkpoint,
  type Row,
  type SourceAgent,
  type SourceBacklog,
  type TableRef,
  type TableShape,
} from '../source';
import { AgentConnectionError } from '../connectionError';
import { classifyNatsError, closeConnection, openNats } from './connection';
import { EventNotReadable } from './decode';
import { leaseBucket, Leases } from './leases';
import { OP_HEADER } from './messages';
import { streamInfo } from './stream';
import {
  eachMessage,
  schemaEvents,
  shapesDiffer,
  shapeFromEvent,
  shapeFromSchemaEvent,
  tableChangeId,
  type TableChangeEvent,
} from './streamReads';
import { escapeToken, joinedName, tableSubject } from './subjects';
import { MinuteRate } from './minuteRate';
import { changeOfEvent } from './changeOfEvent';
import { TableReader } from './tableReader';
import {
  parseStreamPoint,
  streamStart,
  streamStartPointOf,
  StreamStop,
  type StreamStartPoint,
} from './startAt';
import { refuseForward } from '../startPoint';

export interface NatsSourceOptions {
  credentials: NatsHostCredentials;
  configuration: NatsConfiguration;
  pipelineId: string;
  /** Who holds a lease: one per source opened, unless a test names it. */
  engineId?: string;
}

export class NatsSource implements SourceAgent {
  readonly classifyError = classifyNatsError;
  /** Engines share the stream: each commit compares the table's stored position (the runner fences). */
  readonly sharedAmongEngines = true;
  private readonly shapes = new Map<string, TableShape>();
  private readonly readers = new Map<string, TableReader>();
  /** The lease keys held at the last read: a table taken since is read from the next step on. */
  private ownedBefore = new Set<string>();
  private heldNow: string[] = [];
  /** A table's last truncate event seen while reading: where its copy replays from. */
  private readonly truncates = new Map<string, number>();
  /**
   * Our schema change events read so far, the last per table, and the sequence of the last one: each
   * read goes on from there, and a newer one may tell a table's new shape before any row has it.
   */
  private readonly told = new Map<string, TableChangeEvent>();
  private schemaSeq = 0;
  /** Events applied lately, for the time left at the measured rate. */
  private readonly rate = new MinuteRate();

  private constructor(
    private readonly o: NatsSourceOptions,
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly leases: Leases,
    private readonly startPoint: StreamStartPoint | undefined,
  ) {
    this.stopPoint = StreamStop.of(o.configuration);
  }

  private readonly stopPoint: StreamStop | undefined;

  static async open(o: NatsSourceOptions): Promise<NatsSource> {
    // A point beside a copy, or one that names nothing, is refused before a connection is made.
    const startPoint = streamStartPointOf(o.configuration);
    const nc = await openNats(o.credentials, `cdc-admin apply ${o.pipelineId}`);
    try {
      const jsm = await jetstreamManager(nc);
      const engineId = o.engineId ?? randomUUID();
      const leases = await Leases.open(nc, o.configuration.stream, engineId, o.configuration.leaseSeconds);
      return new NatsSource(o, nc, jetstream(nc), jsm, leases, startPoint);
    } catch (e) {
      await nc.close();
      if (/permissions violation|authorization/i.test((e as Error).message))
        throw new AgentConnectionError(
          `The sign-on may not use the stream's leases or consumers: ${(e as Error).message}.`,
          `Allow it publish to "$JS.API.>" and "$KV.${leaseBucket(o.configuration.stream)}.>", subscribe to "_INBOX.>".`,
          'login',
        );
      throw e;
    }
  }

  private get stream() {
    return this.o.configuration.stream;
  }

  /** Every subject under the prefix: where a point in time is looked for. */
  private get tableSubjects() {
    return `${this.o.configuration.subjectPrefix}.>`;
  }

  /** A table's name parts after the prefix: the database first when the stream is SQL Server's. */
  private partsOf(t: TableRef): string[] {
    const db = this.o.configuration.sourceDatabase;
    return db ? [db, t.schema, t.table] : [t.schema, t.table];
  }

  private subjectOf(t: TableRef) {
    return tableSubject(this.o.configuration.subjectPrefix, this.partsOf(t));
  }

  /** The table's durable consumer: `cdc~<pipeline>~<parts…>`, each escaped. */
  private durableOf(t: TableRef) {
    return joinedName(['cdc', escapeToken(this.o.pipelineId), ...this.partsOf(t).map(escapeToken)]);
  }

  /** The tables this engine applies now (it holds their leases), as of its last read. */
  heldTables(): string[] {
    return [...this.heldNow].sort();
  }

  private leaseOf(t: TableRef) {
    return Leases.keyOf(this.o.pipelineId, this.partsOf(t).map(escapeToken));
  }

  async check(entities: readonly Entity[]): Promise<CheckResult[]> {
    const info = await streamInfo(this.jsm, this.stream);
    if (!info)
      return [
        failed(
          'stream',
          `The stream ${this.stream} does not exist.`,
          'Start the capture pipeline that publishes it first, or name the stream it writes.',
        ),
      ];
    const described = await this.describe(entities.map((e) => e.source));
    const missing = entities.filter((e) => !described.some((d) => tableKey(d.ref) === tableKey(e.source)));
    return [
      passed('stream', `The stream ${this.stream} holds ${info.state.messages} events.`),
      missing.length > 0
        ? failed(
            'tables-described',
            `No event tells the columns of ${missing.map((e) => this.subjectOf(e.source)).join(', ')} yet.`,
            'Start the capture pipeline (it tells each table when its copy starts), or check the subject prefix and source database.',
          )
        : passed('tables-described', 'Every table’s columns are told on the stream.'),
    ];
  }

  async describe(tables: readonly TableRef[]): Promise<TableShape[]> {
    await this.readTold();
    const out: TableShape[] = [];
    for (const ref of tables) {
      const subject = this.subjectOf(ref);
      const event = this.told.get(tableChangeId(this.partsOf(ref)));
      let shape = event ? shapeFromSchemaEvent(ref, subject, event) : null;
      if (!shape) {
        const last = await this.jsm.streams.getMessage(this.stream, { last_by_subj: subject });
        if (!last) continue;
        const message = {
          seq: last.seq,
          subject: last.subject,
          data: last.data,
          headers: last.header,
          string: () => last.string(),
        };
        shape = shapeFromEvent(ref, subject, message);
        if (!shape)
          throw new EventNotReadable(
            `The events on ${subject} carry no schema part and no schema change event tells its columns: the producer must send schemas (value.converter.schemas.enable=true) for the columns to be known.`,
          );
      }
      this.shapes.set(tableKey(ref), shape);
      out.push(shape);
    }
    return out;
  }

  async refusedAmong(tables: readonly TableRef[]): Promise<{ table: string; reason: string }[]> {
    return tables.map((t) => ({
      table: tableKey(t),
      reason: `no event of ${tableKey(t)} is on ${this.subjectOf(t)} yet: start the capture pipeline that publishes it (or check the subject prefix and source database)`,
    }));
  }

  countRows(): Promise<number> {
    return Promise.resolve(0);
  }

  /** Where tables started without a copy begin, in words, when the configuration names a point. */
  get startsFrom(): string | undefined {
    return this.startPoint?.said;
  }

  /**
   * Where tables without a copy start: the configuration's point, one place for all. Without one,
   * none here: the runner asks `snapshotStart` of each (its last copy on the stream).
   */
  async snapshotStarts(tables: readonly TableRef[]): Promise<Map<string, string>> {
    if (!this.startPoint) return new Map();
    const position = String(
      await streamStart(this.js, this.jsm, this.stream, this.tableSubjects, this.startPoint),
    );
    return new Map(tables.map((t) => [tableKey(t), position]));
  }

  /** A rewind: every table at the point, as startAt reads it; never forward past a table's position. */
  async positionsAt(
    tables: readonly TableRef[],
    point: string,
    current: Checkpoint,
  ): Promise<Map<string, string>> {
    const at = parseStreamPoint(point, 'to');
    const position = await streamStart(this.js, this.jsm, this.stream, this.tableSubjects, at);
    refuseForward(
      tables.flatMap((t) => {
        const now = current[tableKey(t)];
        return now !== undefined && position > Number(now)
          ? [{ table: tableKey(t), at: `sequence ${now}` }]
          : [];
      }),
      at.said,
    );
    return new Map(tables.map((t) => [tableKey(t), String(position)]));
  }

  /** A copy replays the table from its last truncate event (the capture's copy), else from the start. */
  async snapshotStart(table: TableRef): Promise<string> {
    const key = tableKey(table);
    const seen = this.truncates.get(key);
    if (seen !== undefined) return String(seen);
    let last = 0;
    await eachMessage(
      this.js,
      this.jsm,
      this.stream,
      this.subjectOf(table),
      (m) => {
        if (m.headers?.get(OP_HEADER) === 't') last = m.seq;
      },
      { headersOnly: true },
    );
    const info = await this.jsm.streams.info(this.stream);
    if (last === 0 && info.state.first_seq > 1)
      throw new EventNotReadable(
        `The stream no longer holds the start of ${key} and no copy of it since: copy the table again in the capture pipeline, then resume it here.`,
      );
    return String(last);
  }

  /** Rows come as the replay's events: a copy here has no rows of its own to read. */
  readChunk() {
    return Promise.resolve({ rows: [], next: null });
  }

  readRows(): Promise<Row[]> {
    return Promise.reject(
      new Error('A stream cannot be read by key: verify compares with the capture’s source.'),
    );
  }

  async readChanges(
    tables: readonly TableRef[],
    checkpoint: Checkpoint,
    options: { maxRows?: number } = {},
  ): Promise<ChangeBatch> {
    const info = await this.jsm.streams.info(this.stream);
    // A stop point cuts the read there: nothing after it is applied.
    const cut = await this.stopPoint?.cap(this.js, this.jsm, this.stream, this.tableSubjects, info.state);
    const bound = cut ? Math.min(cut.sequence, info.state.last_seq) : info.state.last_seq;
    const owned = await this.leases.refresh(
      this.o.pipelineId,
      tables.map((t) => this.leaseOf(t)),
    );
    const ownedBefore = this.ownedBefore;
    this.ownedBefore = owned;
    this.heldNow = tables.filter((t) => owned.has(this.leaseOf(t))).map(tableKey);
    const batch: Required<
      Pick<ChangeBatch, 'changes' | 'checkpoint' | 'resnapshot' | 'refusedTables' | 'layoutChanged'>
    > & {
      caughtUp: boolean;
      readNext?: boolean;
    } = { changes: [], checkpoint: {}, resnapshot: [], refusedTables: [], layoutChanged: [], caughtUp: true };
    let budget = options.maxRows ?? 10_000;
    const reshaped = await this.retold(tables);
    for (const ref of tables) {
      const key = tableKey(ref);
      if (!owned.has(this.leaseOf(ref))) {
        this.readers.delete(key);
        continue;
      }
      // Just taken from another engine: the positions this step was given may predate its last
      // commit there. Read from the next step on, with the positions read after the take.
      if (!ownedBefore.has(this.leaseOf(ref))) {
        batch.readNext = true;
        continue;
      }
      if (reshaped.has(key)) {
        // The capture told a new shape: the target follows it before this table's next events.
        batch.layoutChanged.push({ table: key, reason: `the capture told a new shape of ${key}` });
        continue;
      }
      const from = checkpoint[key];
      if (from === undefined) {
        batch.resnapshot.push({
          table: key,
          reason: 'a table new to this pipeline: replayed from its copy on the stream',
        });
        continue;
      }
      const position = Number(from);
      if (position + 1 < info.state.first_seq && position < bound) {
        await this.gap(ref, position, info.state.first_seq, batch);
        continue;
      }
      if (budget <= 0) {
        batch.caughtUp = false;
        continue;
      }
      const reader = await this.readerFor(ref, position);
      const { messages, drained } = await reader.read(position, bound, budget);
      let last = position;
      let stopped = false;
      let read = 0;
      for (const m of messages) {
        const op = m.headers?.get(OP_HEADER);
        if (op === 't') {
          // The capture copies the table again: applied changes so far, then a copy from here.
          if (read === 0) {
            this.truncates.set(key, m.seq);
            batch.resnapshot.push({
              table: key,
              reason: `the capture copies ${key} again (truncate event ${m.seq})`,
            });
          }
          stopped = true;
          break;
        }
        const change = this.changeOf(ref, m);
        if (change === 'layout') {
          batch.layoutChanged.push({
            table: key,
            reason: `event ${m.seq} carries columns the table does not have yet`,
          });
          stopped = true;
          break;
        }
        if (change) {
          batch.changes.push(change);
          read++;
          budget--;
        }
        last = m.seq;
      }
      if (stopped || !drained) batch.caughtUp = batch.caughtUp && stopped;
      batch.checkpoint[key] = String(!stopped && drained ? Math.max(last, bound) : last);
    }
    const newest = batch.changes.reduce<Date | null>(
      (n, c) => (c.commitTime && (!n || c.commitTime > n) ? c.commitTime : n),
      null,
    );
    // Every table this engine holds read up to the stop, none waiting to start or be described again.
    const atStop =
      cut?.final === true &&
      this.stopPoint !== undefined &&
      batch.caughtUp &&
      batch.readNext !== true &&
      this.heldNow.length > 0 &&
      batch.resnapshot.length === 0 &&
      batch.layoutChanged.length === 0 &&
      this.heldNow.every((k) => Number(batch.checkpoint[k] ?? -1) >= cut.sequence);
    return { ...batch, newestCommitTime: newest, ...(atStop && { stoppedAt: this.stopPoint?.said }) };
  }

  /** The schema change events published since the last read. */
  private async readTold() {
    const prefix = this.o.configuration.subjectPrefix;
    const lastSeq = await schemaEvents(this.js, this.jsm, this.stream, prefix, this.schemaSeq + 1, this.told);
    this.schemaSeq = Math.max(this.schemaSeq, lastSeq);
  }

  /** Tables whose shape a schema change event newer than the last one read tells otherwise. */
  private async retold(tables: readonly TableRef[]): Promise<Set<string>> {
    const last = await this.jsm.streams.getMessage(this.stream, {
      last_by_subj: this.o.configuration.subjectPrefix,
    });
    if (!last || last.seq <= this.schemaSeq) return new Set();
    await this.readTold();
    const out = new Set<string>();
    for (const ref of tables) {
      const known = this.shapes.get(tableKey(ref));
      const event = this.told.get(tableChangeId(this.partsOf(ref)));
      if (known && event && shapesDiffer(known, shapeFromSchemaEvent(ref, this.subjectOf(ref), event)))
        out.add(tableKey(ref));
    }
    return out;
  }

  /** Events after `position` were discarded: a copy made since is replayed, else the table waits for one. */
  private async gap(ref: TableRef, position: number, first: number, batch: ChangeBatch) {
    const key = tableKey(ref);
    this.truncates.delete(key);
    const start = await this.snapshotStart(ref).catch(() => null);
    if (start !== null && Number(start) >= first) {
      batch.resnapshot.push({
        table: key,
        reason: `the stream discarded events of ${key} after ${position} (its limits) before they were applied; replayed from the capture's copy at ${start}`,
      });
      return;
    }
    (batch.refusedTables ??= []).push({
      table: key,
      reason: `the stream discarded events of ${key} after ${position} before they were applied (its size or age limits): copy the table again in the capture pipeline, then resume it here`,
    });
  }

  private async readerFor(ref: TableRef, position: number): Promise<TableReader> {
    const key = tableKey(ref);
    const known = this.readers.get(key);
    if (known?.covers(position)) return known;
    const reader = await TableReader.open(
      this.js,
      this.jsm,
      this.stream,
      this.durableOf(ref),
      this.subjectOf(ref),
      position,
    );
    this.readers.set(key, reader);
    return reader;
  }

  private changeOf(ref: TableRef, m: JsMsg): Change | null | 'layout' {
    const shape = this.shapes.get(tableKey(ref));
    if (!shape) throw new EventNotReadable(`${tableKey(ref)} was not described before its events.`);
    return changeOfEvent(shape, m);
  }

  /** Positions live at the target with the rows; the stream keeps none of its own. */
  loadCheckpoint(): Promise<Checkpoint> {
    return Promise.resolve({});
  }

  /** Each table's acknowledged position (its consumer's ack floor): where the engine that applies it committed. */
  async acknowledgedPositions(tables: readonly TableRef[]): Promise<Checkpoint> {
    const out: Checkpoint = {};
    for (const t of tables) {
      const consumer = await this.jsm.consumers.info(this.stream, this.durableOf(t)).catch(() => null);
      if (consumer) out[tableKey(t)] = String(consumer.ack_floor.stream_seq);
    }
    return out;
  }

  /** The target committed: each table's events up to its position are acknowledged. */
  saveCheckpoint(checkpoint: Checkpoint): Promise<void> {
    for (const [key, reader] of this.readers) {
      const position = checkpoint[key];
      if (position !== undefined) this.rate.count(reader.acknowledge(Number(position)));
    }
    return Promise.resolve();
  }

  /**
   * Each table's events waiting: its durable consumer's pending and delivered-but-unacknowledged
   * counts (the engine that applies it made it); null for a table no engine has taken yet.
   */
  async backlog(tables: readonly TableRef[], checkpoint: Checkpoint): Promise<SourceBacklog> {
    const info = await this.jsm.streams.info(this.stream);
    const perTable: SourceBacklog['perTable'] = [];
    for (const t of tables) {
      const consumer = await this.jsm.consumers.info(this.stream, this.durableOf(t)).catch(() => null);
      perTable.push({
        table: tableKey(t),
        rowsToRead: consumer ? consumer.num_pending + consumer.num_ack_pending : null,
      });
    }
    const known = perTable.filter((p) => p.rowsToRead !== null);
    const rowsToRead = known.length > 0 ? known.reduce((n, p) => n + (p.rowsToRead ?? 0), 0) : null;
    const positions = tables.map((t) => checkpoint[tableKey(t)]).filter((p) => p !== undefined);
    const oldest = positions.length > 0 ? Math.min(...positions.map(Number)) : null;
    return {
      rowsToRead,
      versionsBehind: oldest === null ? null : Math.max(0, info.state.last_seq - oldest),
      perTable,
      measuredMinutesLeft: rowsToRead === null ? null : this.rate.minutesLeft(rowsToRead),
    };
  }

  /** Each subject of the stream under the prefix, with its messages (the catalog). */
  async subjects(): Promise<{ subject: string; messages: number }[]> {
    const info = await this.jsm.streams.info(this.stream, {
      subjects_filter: `${this.o.configuration.subjectPrefix}.>`,
    });
    return Object.entries(info.state.subjects ?? {}).map(([subject, messages]) => ({ subject, messages }));
  }

  async close(): Promise<void> {
    await this.leases.release(this.o.pipelineId).catch(() => undefined);
    await closeConnection(this.nc);
  }
}
