// What every source agent offers the runner and the engine: checks, table shapes, a snapshot per
// table, a change stream from a checkpoint, and a backlog. Both agents pass one contract suite
// (test/main/agents/contract/sourceAgent.ts) against this interface.
import type { FilterExpr } from '../../shared/rowFilter';
import { Buffer } from 'node:buffer';
import type { CheckResult, Entity } from '../../shared/controlApi';
import { tableText } from '../../shared/names';

export type RowValue = string | number | boolean | bigint | Date | Uint8Array | null;
export type Row = Record<string, RowValue>;

export interface TableRef {
  schema: string;
  table: string;
}
/**
 * `schema.table` as written in the entity, a part with a dot or a bracket in brackets: the key of a
 * table in checkpoints and changes, one text per (schema, table) pair (shared/names.ts).
 */
export const tableKey = (t: TableRef): string => tableText(t.schema, t.table);
export const tableRefOf = (e: Entity): TableRef => ({ schema: e.source.schema, table: e.source.table });

export interface ColumnShape {
  name: string;
  /** The source's own type, as its catalogue writes it (for example `decimal(12,2)`). */
  sourceType: string;
  nullable: boolean;
  /**
   * The column has a default other than null, so rows there when it was added hold that default at
   * the source (ALTER TABLE … ADD … DEFAULT); a target column added later gets them by a copy.
   */
  defaulted?: boolean;
  /**
   * The column's name before a rename at the source (sp_rename) seen while running: its values for the
   * rows already there are only brought over by a copy.
   */
  renamedFrom?: string;
  /** The column's name at the source, when its entity names it otherwise at the target (docs/shaping.md). */
  shapedFrom?: string;
  /** A column the runner adds (provenance, a soft delete's flag; docs/shaping.md): never verified. */
  provenance?: true;
}
export interface TableShape {
  ref: TableRef;
  /**
   * The table as the source knows it (an object id, a library and file): two entities whose refs
   * resolve to one identity read one table, which the runner refuses.
   */
  identity?: string;
  columns: ColumnShape[];
  /** The columns that identify a row, in key order. */
  key: string[];
  /**
   * Why the source cannot identify the table's rows as its entity says (no primary key and no logical
   * key or RRN chosen; a logical key naming columns it lacks), with the remedy. The runner suspends
   * that table alone (or stops the pipeline, as onTableError says); `key` is then empty.
   */
  cannotKey?: string;
  /**
   * Why the entity's shaping does not fit the table (a column it lacks, a mask on a key column, a
   * filter comparing text with a number): the runner suspends that table alone, as for cannotKey.
   */
  cannotShape?: string;
  /** The entity keeps deleted rows flagged (docs/shaping.md): the runner's columns for the flag and time. */
  softDelete?: { flag: string; at: string };
  /** The entity keeps every version (docs/shaping.md, "History"): the runner's valid-from and -to columns. */
  history?: { from: string; to: string };
}

export type ChangeOp = 'insert' | 'update' | 'delete';
export interface Change {
  table: string;
  op: ChangeOp;
  /** The row's key values. */
  key: Row;
  /** The row as it is now; null for a delete. */
  row: Row | null;
  /** Columns the change touched, when the source knows; null means all. */
  changedColumns: string[] | null;
  /** The source's position of this change (a version, a journal sequence), for ordering and events. */
  position: string;
  /**
   * The row before the change, where the source keeps it (the journal's before images, with
   * IMAGES(*BOTH)): an update's old row, a delete's deleted row. Absent where the source has none
   * (Change Tracking keeps no old values). A target without tables (a message broker) sends it on.
   */
  before?: Row;
  /** When the source committed the change's transaction, where it says (a login may not be let read it). */
  commitTime?: Date;
  /**
   * The source transaction the change belongs to: a Change Tracking version, the journal's commit
   * cycle; absent for a journal entry outside commitment control, which is its own transaction.
   */
  transactionId?: string;
  /** A row a table's copy read, not a change at the source (a broker's "read" event, Debezium's op r). */
  copied?: true;
  /**
   * The source could not read the row's values (a record image with data SQL cannot map: blanks in a
   * packed field, an impossible date), past the agent's decode policy: the runner keeps it aside with
   * the raw bytes and the reason, never applies it. `row` holds the fields that were read.
   */
  unreadable?: { reason: string; raw: Uint8Array };
  /** Values the decode policy replaced in this row (an invalid decimal made null or zero…): counted. */
  replaced?: number;
  /** Who made the change, where the source says (an IBM i journal entry's job, program and profile). */
  origin?: ChangeOrigin;
}

/** The job that made a change on IBM i: DSPJRN's JOJOB, JOUSER, JONBR, JOPGM and JOUSPF. */
export interface ChangeOrigin {
  job: string;
  jobUser: string;
  jobNumber: string;
  program: string;
  userProfile: string;
}

/** Per table: the position its changes are read from (opaque to the runner). */
export type Checkpoint = Record<string, string>;

export interface ChangeBatch {
  changes: Change[];
  /** Covers every change in the batch: save it once they are applied. */
  checkpoint: Checkpoint;
  /** Tables whose changes since their checkpoint are lost (retention): they must be snapshotted again. */
  resnapshot: { table: string; reason: string }[];
  /**
   * Tables whose columns changed at the source (ALTER TABLE, CHGPF) after the batch's changes: the
   * runner describes them again and reconciles the target before the next batch. `reason` says what.
   */
  layoutChanged?: { table: string; reason: string }[];
  /**
   * Tables whose replication cannot go on (dropped or renamed at the source): the batch holds their
   * changes up to that point; the runner stops those tables, and the pipeline's others read on.
   */
  stopped?: { table: string; reason: string }[];
  /**
   * Tables the source refused to read this time (the login's authority to them revoked): the batch
   * leaves their checkpoint where it was; the runner suspends each there while the others read on.
   */
  refusedTables?: { table: string; reason: string }[];
  /**
   * The read reached the end of the source's changes as they stood when it began (no batch limit cut
   * it short). Left out, a batch with no changes is taken as caught up.
   */
  caughtUp?: boolean;
  /**
   * Tables left unread this time that the next read takes at once (a stream's table just taken from
   * another engine): the runner reads again without its idle wait, and a run until caught up goes on.
   */
  readNext?: boolean;
  /** When the newest change of the batch was committed at the source, when the source tells (for lag). */
  newestCommitTime?: Date | null;
  /**
   * With the heartbeat on, a caught-up batch without changes: when the newest heartbeat it read up to
   * was written at the source (the source's clock). Its commit at the target measures the path.
   */
  heartbeatAt?: Date | null;
  /**
   * The configured stop point (stopAt), in words, when this batch reads every table up to it: nothing
   * after it is read, and once the batch is applied the pipeline stops by itself.
   */
  stoppedAt?: string;
}

export interface SourceBacklog {
  /** Changed rows waiting, over all tables; null when not known. */
  rowsToRead: number | null;
  /** Versions (or sequence numbers) between the checkpoint and the source's current position. */
  versionsBehind: number | null;
  perTable: { table: string; rowsToRead: number | null }[];
  /** rowsToRead at the rate this agent read lately, in minutes; null until it has read. */
  measuredMinutesLeft?: number | null;
  /**
   * Warnings before loss: what the source may delete that the pipeline still needs (a receiver the
   * system deletes, changes near the end of their retention), each in words with what to do.
   */
  warnings?: string[];
}

export interface SnapshotChunk {
  rows: Row[];
  next: string | null;
  /**
   * Rows the source read but could not decode past its decode policy (text with no character in the
   * CCSID an entity forced): the runner keeps each aside with its bytes and the reason, as it keeps a
   * change aside, and commits the chunk's other rows. `row` holds the fields that were read.
   */
  unreadable?: { row: Row; reason: string; raw: Uint8Array }[];
  /** Values the decode policy replaced in the chunk's rows (null, U+FFFD): counted. */
  replaced?: number;
}

/**
 * An agent's verdict on its own driver's errors, as Debezium's per-connector error handlers give
 * it: `transient` (a retry may heal it: a dropped connection, a deadlock victim, a lock another job
 * holds), `permanent` (no wait heals it: a refused permission), undefined when the error is not its.
 */
export type ErrorVerdict = 'transient' | 'permanent' | undefined;

/**
 * A write at the source, in the agent's own object, that moves a quiet source's position and gives a
 * commit time to measure freshness against (docs/live.md, "Heartbeat").
 */
export interface SourceHeartbeat {
  /** How often the runner writes it. */
  readonly everyMs: number;
  /** Writes one (creating the object the first time); a refusal throws HeartbeatRefused. */
  beat(): Promise<void>;
}

/** The source will not take the heartbeat (authority missing): the agent runs on without it. */
export class HeartbeatRefused extends Error {}

export interface SourceAgent {
  /**
   * Several engines apply this source, each table by one at a time (a stream's leases): the runner
   * fences each commit with the positions it read from (Target.apply's fence) and reads no batch ahead.
   */
  readonly sharedAmongEngines?: boolean;
  /** A source shared among engines: the tables (keys) this engine applies now, by lease. */
  heldTables?(): string[];
  /** Its driver's errors sorted for the runner's retries. */
  classifyError?(error: unknown): ErrorVerdict;
  /** The optional heartbeat the configuration asks for (heartbeatSeconds); absent when off. */
  readonly heartbeat?: SourceHeartbeat;
  check(entities: readonly Entity[]): Promise<CheckResult[]>;
  describe(tables: readonly TableRef[]): Promise<TableShape[]>;
  /**
   * Of tables `describe` did not find, those that still exist but the agent may no longer read (an
   * IBM i file whose authority was revoked, hidden from the catalog), each with why and what gives
   * it back: the runner suspends them at their position, never takes them for dropped.
   */
  refusedAmong?(tables: readonly TableRef[]): Promise<{ table: string; reason: string }[]>;
  /** How many rows the table holds now (for a copy's progress). */
  countRows(table: TableRef): Promise<number>;
  /**
   * Where a copy of the table starts: the stream position read before its first chunk. Its changes are
   * read from there while it is copied and after; a table started without a copy starts there too.
   */
  snapshotStart(table: TableRef): Promise<string>;
  /**
   * Where tables a start takes without a copy begin, by table key, in a bounded number of statements
   * (a thousand files, one query): `snapshotStart` of each, or the point `startsFrom` names.
   */
  snapshotStarts?(tables: readonly TableRef[]): Promise<Map<string, string>>;
  /**
   * Where tables started without a copy begin, in words, when not the current position (a point the
   * configuration names): `snapshotStarts` answers that point, `snapshotStart` the current one.
   */
  readonly startsFrom?: string;
  /**
   * Where tables stand at a point the DBA names to rewind a running pipeline to, by table key: the
   * point read as `startAt` is (a position of the source's kind, or a time), every table there. One
   * the source no longer holds, or one after a table's `current` position, is refused
   * (StartUnavailable) with the reason.
   */
  positionsAt?(tables: readonly TableRef[], point: string, current: Checkpoint): Promise<Map<string, string>>;
  /**
   * Up to `limit` rows in the source's own key order after `cursor` (null: from the first row), read
   * by one statement. `next` is the cursor after the last row, or null when the table is read to its end.
   * With `rowFilter` (bound to the table's columns), the source may leave out rows the filter refuses,
   * as far as it decides them as the engine does (filterPushdown.ts): the caller still filters.
   */
  readChunk(
    table: TableRef,
    cursor: string | null,
    limit: number,
    options?: { rowFilter?: FilterExpr },
  ): Promise<SnapshotChunk>;
  /**
   * The rows whose keys are among `keys` (key values as readChunk and changes give them), as they are
   * now, in the form readChunk gives; a key without a row is left out. Verify re-reads rows with it.
   */
  readRows(table: TableRef, keys: readonly Row[]): Promise<Row[]>;
  /** Changes since the checkpoint, in source order, with one upper bound for all tables. */
  readChanges(
    tables: readonly TableRef[],
    checkpoint: Checkpoint,
    options?: { maxRows?: number },
  ): Promise<ChangeBatch>;
  /** The checkpoint kept at the source (the sync schema or library); empty before the first run. */
  loadCheckpoint(): Promise<Checkpoint>;
  saveCheckpoint(checkpoint: Checkpoint): Promise<void>;
  backlog(tables: readonly TableRef[], checkpoint: Checkpoint): Promise<SourceBacklog>;
  close(): Promise<void>;
}

/**
 * A whole table, chunk after chunk, with the position its changes start from (tests, one-shot reads).
 * The runner copies chunk by chunk itself, committing each with its cursor.
 */
export async function readWhole(
  source: Pick<SourceAgent, 'snapshotStart' | 'readChunk'>,
  table: TableRef,
  onRows: (rows: Row[]) => Promise<void>,
  options: { snapshotChunkRows?: number } = {},
): Promise<{ position: string; rows: number }> {
  const position = await source.snapshotStart(table);
  let cursor: string | null = null;
  let rows = 0;
  do {
    const chunk: SnapshotChunk = await source.readChunk(table, cursor, options.snapshotChunkRows ?? 5000);
    if (chunk.rows.length > 0) await onRows(chunk.rows);
    rows += chunk.rows.length;
    cursor = chunk.next;
  } while (cursor !== null);
  return { position, rows };
}

/**
 * A row's key columns alone, as a change's `key` holds them; made once per table, used per row (one
 * key column, the common case, without building entries).
 */
export function keyPicker(key: readonly string[]): (row: Row) => Row {
  const [only, ...more] = key;
  return only !== undefined && more.length === 0
    ? (row) => ({ [only]: row[only] ?? null })
    : (row) => Object.fromEntries(key.map((k) => [k, row[k] ?? null]));
}

/**
 * A chunk's cursor: its last row's key values as JSON, with the types JSON lacks tagged (bigint as
 * `{"n":"…"}`, a date as `{"d":"…"}`, bytes as `{"b":"hex"}`), so the next chunk starts exactly after it.
 */
export function keyCursor(values: readonly RowValue[]): string {
  return JSON.stringify(
    values.map((v) =>
      typeof v === 'bigint'
        ? { n: String(v) }
        : v instanceof Date
          ? { d: v.toISOString() }
          : v instanceof Uint8Array
            ? { b: Buffer.from(v).toString('hex') }
            : v,
    ),
  );
}

export function keyValues(cursor: string): RowValue[] {
  const parsed: unknown = JSON.parse(cursor);
  if (!Array.isArray(parsed)) throw new RangeError(`"${cursor}" is not a key cursor.`);
  return parsed.map((v: unknown): RowValue => {
    if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
    const tagged = v as { n?: string; d?: string; b?: string };
    if (typeof tagged.n === 'string') return BigInt(tagged.n);
    if (typeof tagged.d === 'string') return new Date(tagged.d);
    if (typeof tagged.b === 'string') return Uint8Array.from(Buffer.from(tagged.b, 'hex'));
    throw new RangeError(`"${cursor}" is not a key cursor.`);
  });
}
