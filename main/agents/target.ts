// What the runner asks of a target: tables created from the source's shapes, a table emptied with its
// checkpoint in one transaction when its copy starts, and each batch of changes (or chunk of copied
// rows, as upserts) applied together with the new checkpoint in one transaction. A crash at any point
// leaves either all of a batch or none of it.
import type { DroppedColumns } from '../../shared/agents/common';
import type { StreamFigures } from '../../shared/liveFeed';
import {
  keyPicker,
  type Change,
  type Checkpoint,
  type ColumnShape,
  type ErrorVerdict,
  type Row,
} from './source';

export interface TargetTable {
  /** The source table's key (`schema.table`), as changes and checkpoints name it. */
  source: string;
  schema?: string;
  name: string;
  columns: ColumnShape[];
  key: string[];
  /**
   * The entity keeps deleted rows (docs/shaping.md, "Soft delete"): a delete sets `flag` true and `at`
   * to the target's UTC time instead of removing the row. Targets with tables honour it.
   */
  softDelete?: { flag: string; at: string };
  /**
   * The entity keeps every version (docs/shaping.md, "History"): the table has a row per version of
   * each key, `from` the target's time it was applied and `to` the time the next one (or a delete)
   * was, null while it is current. Changes close the current version and open one; a read back (a
   * verify, a kept row's retry) sees current versions only. Targets with `keepsHistory` honour it.
   */
  history?: { from: string; to: string };
  /**
   * A member of a shard (docs/shaping.md, "Shards"): several source tables write this table, each
   * row's `column` holding its member's `value`. A copy empties only the member's rows.
   */
  shard?: { column: string; value: string };
}

export interface Reconciled {
  added: string[];
  done: string[];
  /**
   * Columns made again, empty, because their type changed at the source in a way the target cannot
   * follow in place: the table must be copied again to fill them.
   */
  remade?: string[];
}

/** A column whose type changed at the source while running, with the source type it had. */
export interface Retyped {
  name: string;
  from: string;
}

export interface Target {
  readonly description: string;
  /** Keeps a deleted row flagged when its table asks (TargetTable.softDelete): targets with tables. */
  readonly softDeletes?: boolean;
  /** Keeps a row per version when its table asks (TargetTable.history). */
  readonly keepsHistory?: boolean;
  /** Lets several source tables write one table (TargetTable.shard): targets with tables. */
  readonly shards?: boolean;
  /** Its driver's errors sorted for the runner's retries (source.ts, ErrorVerdict). */
  classifyError?(error: unknown): ErrorVerdict;
  /**
   * Whether an error refuses the rows applied — a value the column cannot hold, a constraint the target
   * enforces — rather than the table (missing, no permission) or the connection. Such rows go to the
   * exceptions store one by one while the table's other rows go on; a target without it has every
   * refusal taken for the table's.
   */
  refusesRow?(error: unknown): boolean;
  /**
   * Whether a row refused so also suspends its table once kept aside: a stream's consumers would
   * otherwise apply the table's later changes past it. Tables stop nothing else.
   */
  suspendsTable?(error: unknown): boolean;
  /**
   * Values the target wrote otherwise than given since last asked, by its own setting (PostgreSQL's
   * U+0000 replaced), per source table: the runner tells them in a `values-replaced` event.
   */
  takeReplaced?(): Record<string, number>;
  /** A table or column name as this target compares names: two that fold alike are one there. */
  readonly foldName?: (name: string) => string;
  /**
   * Creates what is missing: the tables, and the runner's checkpoint table (a target without tables:
   * where it keeps its checkpoint, and its stream).
   */
  prepare(tables: readonly TargetTable[]): Promise<void>;
  /**
   * The checkpoint as last committed. Its values are the runner's own text (positions, a copy's cursor,
   * a table's stop: runner/copies.ts) and opaque to a target: stored and answered byte for byte.
   */
  loadCheckpoint(): Promise<Checkpoint>;
  /**
   * Empties a table and stores the checkpoint, in one transaction (a copy of the table starts). A
   * target without tables (a message broker) leaves it out: the runner stores the checkpoint through
   * `apply`, and the copy's rows follow as a fresh load of the table.
   */
  clear?(table: TargetTable, checkpoint: Checkpoint): Promise<void>;
  /**
   * Brings an existing table to the source's shape after a schema change, in one transaction: columns
   * added (nullable: rows already there have no value), widened, made nullable; a column the source no
   * longer has kept and made nullable, or dropped (`dropped`); a column retyped at the source (`retyped`)
   * widened in place where the target can, otherwise made again empty (`remade`). Answers the columns
   * it added and what it did, one sentence each. A target without tables leaves it out: the rows it
   * is given carry their columns, and the runner still tells the change in an event.
   */
  reconcile?(table: TargetTable, dropped: DroppedColumns, retyped?: readonly Retyped[]): Promise<Reconciled>;
  /**
   * The table's columns at the target as they are now, by name; null when the table is not there yet.
   * What a schema-change policy compares the source's shape with (a target without it propagates).
   */
  columnsOf?(table: TargetTable): Promise<string[] | null>;
  /** Drops the table at the target (a table dropped at the source, droppedTables "drop"). */
  dropTable?(table: TargetTable): Promise<void>;
  /**
   * Applies the changes in order and stores the checkpoint, in one transaction. Each change carries
   * what a target without tables sends on: its position, and where the source says them its before
   * image, commit time and transaction (source.ts, Change). With a `fence`, the transaction first
   * compares each named table's stored position with the one given (null: none stored) and throws
   * FencedOut, committing nothing, when another writer moved it since (engines sharing one stream).
   */
  apply(changes: readonly Change[], checkpoint: Checkpoint, fence?: Fence): Promise<void>;
  /**
   * Writes a copy's chunk of `table` and stores the checkpoint, in one transaction: each row upserted
   * by its key, as `apply` writes the chunk's rows as copied inserts (copiedChanges), without a change
   * object per row (a copy writes millions). A target without it is given the chunk through `apply`.
   */
  applyCopy?(table: TargetTable, rows: readonly Row[], checkpoint: Checkpoint): Promise<void>;
  /**
   * Stores the rewound positions of `tables` (a rewind): a target that tells events apart by id (a
   * stream's duplicate window) gives those tables a new epoch in the same write, so the events read
   * again are sent again, not dropped as sent. A target without it stores them through `apply`.
   */
  rewind?(tables: readonly string[], checkpoint: Checkpoint): Promise<void>;
  close(): Promise<void>;
  /** A target that is a stream: what it published and what the stream holds, for the cockpit. */
  streamFigures?(): Promise<StreamFigures>;
  /** What the target holds, read back to verify a replica; a target without it cannot be verified. */
  readBack?: TargetReadBack;
}

/** What a target throws when asked to write a table `prepare` was not given. */
export const unpreparedTable = (source: string): Error =>
  new Error(`No target table for ${source}: prepare() was not given it.`);

/** A copy's rows as changes: each an upsert of the row read (an insert, `copied`) at the table's position. */
export function copiedChanges(table: TargetTable, rows: readonly Row[], position: string): Change[] {
  const keyOf = keyPicker(table.key);
  return rows.map((row) => ({
    table: table.source,
    op: 'insert',
    key: keyOf(row),
    row,
    changedColumns: null,
    position,
    copied: true,
  }));
}

/** Per table, the stored position a commit expects to find (the raw text loadCheckpoint answered). */
export type Fence = Readonly<Record<string, string | null>>;

/**
 * Another engine committed a table since this one read its position (it took the table over): this
 * commit is refused whole. A retry reads the positions again, and the table only if still its own.
 */
export class FencedOut extends Error {}

/** The first table whose stored position is not the fence's, in words; null when all match. */
export function fenceBroken(
  stored: (table: string) => string | null,
  fence: Fence | undefined,
): string | null {
  for (const [table, expected] of Object.entries(fence ?? {})) {
    const now = stored(table);
    if (now !== expected)
      return `${table} was committed by another engine since this one read it (position ${now ?? 'none'}, expected ${expected ?? 'none'}): it applies the table now.`;
  }
  return null;
}

/** A target that keeps tables (SQLite, PostgreSQL, SQL Server): it empties and alters them itself. */
export type TableTarget = Target & Required<Pick<Target, 'clear' | 'reconcile'>>;

/**
 * A target's rows read back (verify, docs/verify.md). Keys are given as the source's values (the
 * target binds them as it binds them to write); values come back as the target stores them, times
 * and decimals as the target's text, bytes as bytes.
 */
export interface TargetReadBack {
  /** The rows whose keys are among `keys`, in no particular order. */
  rows(table: TargetTable, keys: readonly Row[]): Promise<Row[]>;
  /**
   * The rows whose one whole-number key lies from `low` to `high`, in no particular order: a chunk of
   * dense keys read as a range (one index seek and scan) rather than as a list of keys.
   */
  between?(table: TargetTable, low: bigint, high: bigint): Promise<Row[]>;
  /** Up to `limit` keys after `cursor` (null: from the first) in the target's own key order. */
  keys(
    table: TargetTable,
    cursor: string | null,
    limit: number,
  ): Promise<{ keys: Row[]; next: string | null }>;
  /** The fraction digits the target keeps of a time column's values (Infinity: all it is given). */
  keptDigits(c: ColumnShape): number;
}

/** The table's key columns, in key order. */
export const keyColumnsOf = (t: TargetTable): ColumnShape[] =>
  t.key.map((k) => t.columns.find((c) => c.name === k) as ColumnShape);

/** Items (keys, rows) in slices of as many as one statement binds, `perItem` parameters each. */
export function* paramSlices<T>(
  items: readonly T[],
  perItem: number,
  maxParams: number,
): Generator<readonly T[]> {
  const per = Math.max(1, Math.floor(maxParams / Math.max(1, perItem)));
  for (let from = 0; from < items.length; from += per) yield items.slice(from, from + per);
}

/**
 * A change's key as a Map key: a key of one number or text (most keys) is the value itself, a bigint
 * its digits (as text, as before); any other key its values in key order as JSON, prefixed so no
 * text key can meet it. `only` names the key's column when it has one (read without a values array).
 */
function keyOf(c: Change, only: string | null): unknown {
  if (only !== null) {
    const v = c.key[only];
    if (typeof v === 'number' || typeof v === 'string') return v;
    if (typeof v === 'bigint') return String(v);
  }
  const values = Object.values(c.key);
  return `\u0000${JSON.stringify(values, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`;
}

/** A table's changes seen so far: the index of each key's last change. */
interface LastChanges {
  only: string | null;
  at: Map<unknown, number>;
}

/**
 * The last change per key wins: a batch collapses to one upsert or delete per row, in the order of
 * each key's last change. A batch whose keys are all distinct (most) is answered as it is.
 */
export function netChanges(changes: readonly Change[]): readonly Change[] {
  const tables = new Map<string, LastChanges>();
  const keys: unknown[] = Array<unknown>(changes.length);
  let distinct = 0;
  for (let i = 0; i < changes.length; i++) {
    const c = changes[i] as Change;
    let table = tables.get(c.table);
    if (!table) {
      const names = Object.keys(c.key);
      tables.set(
        c.table,
        (table = { only: names.length === 1 ? (names[0] as string) : null, at: new Map() }),
      );
    }
    const before = table.at.size;
    const key = keyOf(c, table.only);
    table.at.set(key, i);
    keys[i] = key;
    distinct += table.at.size - before;
  }
  if (distinct === changes.length) return changes;
  return changes.filter((c, i) => tables.get(c.table)?.at.get(keys[i]) === i);
}

/** The runner's checkpoint table in every target. */
export const CHECKPOINT_TABLE = '_cdc_checkpoint';
