// The source as the runner reads it once entities shape their rows (docs/shaping.md): the same agent,
// whose shapes, chunks, rows and changes come back masked, renamed and filtered, so the copies, the
// stream, the exceptions store, verify and repair all see what the target should hold and nothing
// else. A table whose entity does not shape is passed through untouched.
//
// A change and the filter: an insert the filter refuses is left out; an update whose new row it
// refuses is a delete at the target (the row left the filter), unless the old row is known (before
// images) and was refused too; an update whose old row was refused is an insert (the row came in).
// A delete whose old row is known and refused is left out. skipOperations drops the source's deletes.
import { shapes as shapesRows, type ProvenanceColumns } from '../../../shared/shaping';
import {
  tableKey,
  type Change,
  type ChangeBatch,
  type Checkpoint,
  type Row,
  type SourceAgent,
  type TableRef,
  type TableShape,
} from '../../agents/source';
import { tableShaping, type ShapingOf, type TableShaping } from './tableShaping';

/** An entity as the shaping reads it: its source table and its shaping. */
type ShapedEntity = ShapingOf & { source: TableRef };

const COPIED = { operation: 'copy' } as const;
const READ = { operation: 'read' } as const;

function shapeChange(t: TableShaping, c: Change): Change | null {
  const row = c.row;
  const before = c.before;
  const was = before === undefined ? null : t.passes(before);
  const shapedBefore = before === undefined ? {} : { before: t.row(before) };
  // A row the source could not read is kept aside as it stands; its bytes would defeat a mask.
  const unreadable =
    c.unreadable && (t.masks ? { reason: c.unreadable.reason, raw: new Uint8Array() } : c.unreadable);
  const common = { ...c, key: t.targetKey(c.key), ...shapedBefore, ...(unreadable && { unreadable }) };
  if (c.op === 'delete') {
    if (t.skipDeletes || was === false) return null;
    return { ...common, row: null };
  }
  if (row === null) return { ...common, row: null };
  const as = (operation: 'insert' | 'update') => t.row(row, { operation, change: c });
  if (c.unreadable) return { ...common, row: as(c.op) };
  const now = t.passes(row);
  if (c.op === 'insert') return now ? { ...common, row: as('insert') } : null;
  if (!now) {
    if (was === false) return null;
    return { ...common, op: 'delete', row: null, changedColumns: null };
  }
  if (was === false) return { ...common, op: 'insert', row: as('insert'), changedColumns: null };
  return {
    ...common,
    row: as('update'),
    changedColumns: c.changedColumns && c.changedColumns.map((n) => t.targetName(n)),
  };
}

/**
 * The source seen through its entities' shaping. `entities` is read at every call: a shaping changed
 * while running takes effect at the next describe (the runner describes again on a change).
 */
export function shapedSource(
  inner: SourceAgent,
  entities: () => readonly ShapedEntity[],
  salt: string | undefined,
  provenance: ProvenanceColumns = {},
): SourceAgent {
  const compiled = new Map<string, TableShaping>();
  // Provenance columns shape every table of the pipeline.
  const stamps = Object.keys(provenance).length > 0;
  const entityShapes = (e: ShapedEntity) => stamps || shapesRows(e);
  const entityOf = (table: string) => entities().find((e) => tableKey(e.source) === table);
  const shapingOf = async (ref: TableRef): Promise<TableShaping | null> => {
    const table = tableKey(ref);
    const e = entityOf(table);
    if (!e || !entityShapes(e)) return null;
    const known = compiled.get(table);
    if (known) return known;
    await describe([ref]);
    return compiled.get(table) ?? null;
  };
  /** Rows of a shaped table must never leave unshaped: a shaping that does not fit refuses the read. */
  const usable = (t: TableShaping): TableShaping => {
    if (t.shape.cannotShape !== undefined)
      throw new Error(`${tableKey(t.shape.ref)}: ${t.shape.cannotShape}`);
    return t;
  };
  const describe = async (tables: readonly TableRef[]): Promise<TableShape[]> => {
    const described = await inner.describe(tables);
    return described.map((shape) => {
      const table = tableKey(shape.ref);
      const e =
        entityOf(table) ?? entities().find((x) => tableKey(x.source).toLowerCase() === table.toLowerCase());
      if (!e || !entityShapes(e) || shape.cannotKey !== undefined) {
        compiled.delete(table);
        return shape;
      }
      const t = tableShaping(e, shape, salt, provenance);
      compiled.set(tableKey(e.source), t);
      return t.shape;
    });
  };
  const shapeBatch = async (batch: ChangeBatch): Promise<ChangeBatch> => {
    const byTable = new Map<string, TableShaping | null>();
    const changes: Change[] = [];
    for (const c of batch.changes) {
      let t = byTable.get(c.table);
      if (t === undefined) {
        const e = entityOf(c.table);
        t = e ? await shapingOf(e.source) : null;
        byTable.set(c.table, t);
      }
      if (t === null) {
        changes.push(c);
        continue;
      }
      const shaped = shapeChange(usable(t), c);
      if (shaped) changes.push(shaped);
    }
    return { ...batch, changes };
  };
  return {
    ...(inner.sharedAmongEngines !== undefined && { sharedAmongEngines: inner.sharedAmongEngines }),
    ...(inner.heldTables && { heldTables: () => inner.heldTables?.() ?? [] }),
    ...(inner.classifyError && { classifyError: (error: unknown) => inner.classifyError?.(error) }),
    ...(inner.heartbeat && { heartbeat: inner.heartbeat }),
    ...(inner.refusedAmong && {
      refusedAmong: (tables: readonly TableRef[]) => inner.refusedAmong?.(tables) ?? Promise.resolve([]),
    }),
    check: (entitiesChecked) => inner.check(entitiesChecked),
    describe,
    countRows: async (ref) => {
      const t = await shapingOf(ref);
      // Rows the filter lets through are not known before they are read: the copy's total stays open.
      if (t?.filtered) throw new Error('rows passing the row filter are counted as they are copied');
      return inner.countRows(ref);
    },
    snapshotStart: (ref) => inner.snapshotStart(ref),
    // Read when asked: the source learns its point as it starts.
    get startsFrom() {
      return inner.startsFrom;
    },
    ...(inner.snapshotStarts && {
      snapshotStarts: (refs: readonly TableRef[]) =>
        inner.snapshotStarts?.(refs) ?? Promise.resolve(new Map()),
    }),
    ...(inner.positionsAt && {
      positionsAt: (refs: readonly TableRef[], point: string, current: Checkpoint) =>
        inner.positionsAt?.(refs, point, current) ?? Promise.resolve(new Map()),
    }),
    readChunk: async (ref, cursor, limit) => {
      const t = await shapingOf(ref);
      if (!t) return inner.readChunk(ref, cursor, limit);
      const s = usable(t);
      // The source leaves out what it can of the rows the filter refuses; the rest are refused here.
      const chunk = await inner.readChunk(ref, cursor, limit, s.rowFilter && { rowFilter: s.rowFilter });
      const rows: Row[] = [];
      for (const r of chunk.rows) if (s.passes(r)) rows.push(s.row(r, COPIED));
      // A row the source could not read is kept aside as it stands (as a change is); its bytes would defeat a mask.
      const unreadable = chunk.unreadable?.map((u) => ({
        row: s.row(u.row, COPIED),
        reason: u.reason,
        raw: t.masks ? new Uint8Array() : u.raw,
      }));
      // The cursor is the source's: a chunk whose rows the filter all refused still moves the copy on.
      return {
        rows,
        next: chunk.next,
        ...(unreadable && { unreadable }),
        ...(chunk.replaced && { replaced: chunk.replaced }),
      };
    },
    readRows: async (ref, keys) => {
      const t = await shapingOf(ref);
      if (!t) return inner.readRows(ref, keys);
      const s = usable(t);
      const rows = await inner.readRows(
        ref,
        keys.map((k) => s.sourceKey(k)),
      );
      return rows.filter((r) => s.passes(r)).map((r) => s.row(r, READ));
    },
    readChanges: async (tables, checkpoint, options) =>
      shapeBatch(await inner.readChanges(tables, checkpoint, options)),
    loadCheckpoint: () => inner.loadCheckpoint(),
    saveCheckpoint: (checkpoint) => inner.saveCheckpoint(checkpoint),
    backlog: (tables, checkpoint) => inner.backlog(tables, checkpoint),
    close: () => inner.close(),
  };
}
