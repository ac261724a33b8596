// What every source agent offers the runner and the engine: checks, table shapes, a snapshot per
// table, a change stream from a checkpoint, and a backlog. Both agents pass one contract suite
// (test/contract/sourceAgent.ts) against this interface.
import type { CheckResult, Entity } from '../../shared/controlApi';

export type RowValue = string | number | boolean | bigint | Date | Uint8Array | null;
export type Row = Record<string, RowValue>;

export interface TableRef {
  schema: string;
  table: string;
}
/** `schema.table` as written in the entity: the key of a table in checkpoints and changes. */
export const tableKey = (t: TableRef): string => `${t.schema}.${t.table}`;
export const tableRefOf = (e: Entity): TableRef => ({ schema: e.source.schema, table: e.source.table });

export interface ColumnShape {
  name: string;
  /** The source's own type, as its catalogue writes it (for example `decimal(12,2)`). */
  sourceType: string;
  nullable: boolean;
}
export interface TableShape {
  ref: TableRef;
  columns: ColumnShape[];
  /** The columns that identify a row, in key order. */
  key: string[];
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
}

/** Per table: the position its changes are read from (opaque to the runner). */
export type Checkpoint = Record<string, string>;

export interface ChangeBatch {
  changes: Change[];
  /** Covers every change in the batch: save it once they are applied. */
  checkpoint: Checkpoint;
  /** Tables whose changes since their checkpoint are lost (retention): they must be snapshotted again. */
  resnapshot: { table: string; reason: string }[];
  /** When the newest change of the batch was committed at the source, when the source tells (for lag). */
  newestCommitTime?: Date | null;
}

export interface SourceBacklog {
  /** Changed rows waiting, over all tables; null when not known. */
  rowsToRead: number | null;
  /** Versions (or sequence numbers) between the checkpoint and the source's current position. */
  versionsBehind: number | null;
  perTable: { table: string; rowsToRead: number | null }[];
  /** rowsToRead at the rate this agent read lately, in minutes; null until it has read. */
  measuredMinutesLeft?: number | null;
}

export interface SourceAgent {
  check(entities: readonly Entity[]): Promise<CheckResult[]>;
  describe(tables: readonly TableRef[]): Promise<TableShape[]>;
  /** How many rows the table holds now (for a snapshot's progress). */
  countRows(table: TableRef): Promise<number>;
  /** Reads a table whole and consistently, page by page; answers the position its changes start from. */
  snapshot(
    table: TableRef,
    onRows: (rows: Row[]) => Promise<void>,
    options?: { pageSize?: number },
  ): Promise<{ position: string; rows: number }>;
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
