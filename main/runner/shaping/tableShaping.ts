// One table's shaping, worked out once from its entity and its source shape: the shape the target
// gets (masked types, target names, unselected columns left out), a row's shaped form, the filter's
// verdict on a row, and the way back from a target key to the source's (a retry or a verify reads
// rows again by key). A shaping that does not fit the table (a column it lacks, a mask on a key, a
// filter comparing text with a number) is said once, naming the column and the rule.
import {
  bindRowFilter,
  compileRowFilter,
  parseRowFilter,
  RowFilterError,
  type FilterColumnKind,
  type FilterExpr,
  type RawFilterValue,
} from '../../../shared/rowFilter';
import {
  TEXT_ONLY_MASKS,
  type ColumnShaping,
  type Shard,
  type TableMode,
  type ProvenanceColumns,
  type ProvenanceKind,
} from '../../../shared/shaping';
import {
  tableKey,
  type Change,
  type ColumnShape,
  type Row,
  type RowValue,
  type TableShape,
} from '../../agents/source';
import { affinityOf, portable } from '../../agents/targetValues';
import { maskedColumn, maskWriter } from './masks';

export interface ShapingOf {
  columns?: readonly string[];
  columnShaping?: Record<string, ColumnShaping>;
  rowFilter?: string;
  skipOperations?: readonly string[];
  tableMode?: TableMode;
  shard?: Shard;
}

interface Out {
  from: string;
  to: string;
  write: ((v: RowValue) => RowValue) | null;
}

/** What wrote a row, for its provenance columns: a change (with its source's words), a copy, a read. */
export type RowMeta = { operation: 'copy' | 'read' } | { operation: 'insert' | 'update'; change: Change };

/** The type each provenance column is declared with at the target. */
const PROVENANCE_TYPES: Record<ProvenanceKind, string> = {
  operation: 'varchar(6)',
  commitTime: 'datetime2(3)',
  position: 'varchar(200)',
  transaction: 'varchar(40)',
  job: 'varchar(10)',
  jobUser: 'varchar(10)',
  jobNumber: 'varchar(6)',
  program: 'varchar(10)',
  userProfile: 'varchar(10)',
};

function provenanceValue(kind: ProvenanceKind, meta: RowMeta | undefined): RowValue {
  if (!meta) return null;
  if (kind === 'operation') return meta.operation;
  if (!('change' in meta)) return null;
  const c = meta.change;
  switch (kind) {
    case 'commitTime':
      return c.commitTime ?? null;
    case 'position':
      return c.position;
    case 'transaction':
      return c.transactionId ?? null;
    default:
      return c.origin?.[kind] ?? null;
  }
}

export interface TableShaping {
  /** The shape the runner and the target see; `cannotShape` set when the shaping does not fit. */
  shape: TableShape;
  /** The row as the target gets it (it passed the filter); `meta` fills its provenance columns. */
  row(row: Row, meta?: RowMeta): Row;
  /** True when the filter holds true for the row (always, without a filter). */
  passes(row: Row): boolean;
  /** A key as the target holds it, as the source reads it. */
  sourceKey(key: Row): Row;
  /** A source key under the target's names (a key column is never masked). */
  targetKey(key: Row): Row;
  /** A source column's name at the target. */
  targetName(column: string): string;
  readonly filtered: boolean;
  /** The row filter bound to the source's columns, for the source to push down (filterPushdown.ts). */
  readonly rowFilter?: FilterExpr;
  readonly skipDeletes: boolean;
  /** A mask is on: a record image the source could not read is kept aside without its bytes. */
  readonly masks: boolean;
}

function filterKind(c: ColumnShape): FilterColumnKind | null {
  switch (affinityOf(c)) {
    case 'integer':
    case 'decimal':
    case 'float':
      return 'number';
    case 'text':
    case 'uuid':
      return 'text';
    case 'boolean':
      return 'boolean';
    case 'datetime':
      return 'datetime';
    case 'date':
      return 'date';
    default:
      return null;
  }
}

/** How a compiled filter reads a column of a row: numbers as they come, the rest in the filter's form. */
function filterReader(c: ColumnShape, kind: FilterColumnKind): (row: Row) => RawFilterValue {
  const name = c.name;
  if (kind === 'number')
    return (row) => {
      const v = row[name];
      return v === null || v === undefined || v instanceof Uint8Array || v instanceof Date
        ? null
        : typeof v === 'boolean'
          ? String(v)
          : v;
    };
  if (kind === 'boolean')
    return (row) => {
      const v = row[name];
      return v === null || v === undefined ? null : v === true || v === 1 || v === 1n || v === '1';
    };
  return (row) => {
    const v = row[name];
    if (v === null || v === undefined || v instanceof Uint8Array) return null;
    return v instanceof Date ? String(portable(c, v)) : String(v);
  };
}

/** The table's shaping; a shaping that does not fit gives a shape with `cannotShape` and no rows. */
export function tableShaping(
  e: ShapingOf,
  shape: TableShape,
  salt: string | undefined,
  provenance: ProvenanceColumns = {},
): TableShaping {
  const key = tableKey(shape.ref);
  const refuse = (why: string): TableShaping => ({
    shape: { ...shape, cannotShape: why },
    row: () => {
      throw new Error(`${key}: ${why}`);
    },
    passes: () => false,
    sourceKey: (k) => k,
    targetKey: (k) => k,
    targetName: (n) => n,
    filtered: true,
    skipDeletes: false,
    masks: true,
  });
  const byName = (name: string) =>
    shape.columns.find((c) => c.name === name) ??
    shape.columns.find((c) => c.name.toLowerCase() === name.toLowerCase());
  const shaping = e.columnShaping ?? {};
  for (const name of Object.keys(shaping))
    if (!byName(name)) return refuse(`the shaping names column ${name}, which the table does not have`);
  const wanted = e.columns?.map((c) => c.toLowerCase());
  const outs: Out[] = [];
  const columns: ColumnShape[] = [];
  for (const c of shape.columns) {
    const isKey = shape.key.includes(c.name);
    if (wanted && !isKey && !wanted.includes(c.name.toLowerCase())) continue;
    const own = Object.entries(shaping).find(([n]) => byName(n) === c)?.[1];
    const mask = own?.mask;
    if (mask && isKey)
      return refuse(
        `column ${c.name} is part of the row's key and cannot be masked: the target's rows are found again by key (verify, repair, a kept row's retry). Leave the mask out, or identify rows by other columns (a logical key).`,
      );
    if (mask && TEXT_ONLY_MASKS.includes(mask.kind) && affinityOf(c) !== 'text')
      return refuse(
        `column ${c.name} is ${c.sourceType}: a ${mask.kind} mask keeps characters of text columns only`,
      );
    if (mask?.kind === 'hash' && salt === undefined)
      return refuse(
        `column ${c.name} is hashed, which needs the source's Mask salt: set it in the source's connection (Host credentials, advanced)`,
      );
    const to = own?.targetName ?? c.name;
    const clash = columns.find((o) => o.name.toLowerCase() === to.toLowerCase());
    if (clash)
      return refuse(
        `column ${c.name} would be named ${to} at the target, as ${outs.find((o) => o.to === clash.name)?.from ?? clash.name} is: give one of them another target name`,
      );
    const shaped = mask ? maskedColumn(c, mask) : c;
    columns.push({ ...shaped, name: to, ...(to !== c.name && { shapedFrom: c.name }) });
    outs.push({ from: c.name, to, write: mask ? maskWriter(c, mask, salt) : null });
  }
  const added: [ProvenanceKind, string][] = [];
  for (const [kind, name] of Object.entries(provenance) as [ProvenanceKind, string][]) {
    const clash = columns.find((c) => c.name.toLowerCase() === name.toLowerCase());
    if (clash)
      return refuse(
        `the provenance column ${name} (${kind}) would be named as ${clash.provenance ? 'another provenance column' : `column ${clash.shapedFrom ?? clash.name}`} at the target: name it otherwise in the pipeline's settings, or give the column another target name`,
      );
    columns.push({ name, sourceType: PROVENANCE_TYPES[kind], nullable: true, provenance: true });
    added.push([kind, name]);
  }
  // A soft delete's flag and time, a history's valid-from and -to: the runner's columns. A soft
  // delete's are false and null in every row written; a history's are the target's to set.
  const mode = e.tableMode;
  const soft = mode?.kind === 'softDelete' ? { flag: mode.flagColumn, at: mode.timeColumn } : undefined;
  const history =
    mode?.kind === 'history' ? { from: mode.validFromColumn, to: mode.validToColumn } : undefined;
  const modeColumns: (readonly [string, string])[] = soft
    ? [
        [soft.flag, 'bit'],
        [soft.at, 'datetime2(3)'],
      ]
    : history
      ? [
          [history.from, 'datetime2(3)'],
          [history.to, 'datetime2(3)'],
        ]
      : [];
  for (const [name, sourceType] of modeColumns) {
    const clash = columns.find((c) => c.name.toLowerCase() === name.toLowerCase());
    if (clash)
      return refuse(
        `the ${soft ? 'soft delete' : 'history'}'s column ${name} would be named as ${clash.provenance ? 'a column the pipeline adds' : `column ${clash.shapedFrom ?? clash.name}`} at the target: name it otherwise in the table's mode`,
      );
    columns.push({ name, sourceType, nullable: true, provenance: true });
  }
  let filter: ((row: Row) => boolean | null) | null = null;
  let bound: FilterExpr | undefined;
  if (e.rowFilter !== undefined) {
    try {
      bound = bindRowFilter(
        parseRowFilter(e.rowFilter),
        shape.columns.map((c) => ({ name: c.name, kind: filterKind(c) })),
      );
    } catch (error) {
      if (error instanceof RowFilterError) return refuse(`the row filter cannot be used: ${error.message}`);
      throw error;
    }
    const columnOf = new Map(shape.columns.map((c) => [c.name, c]));
    // Bound: every column it names is the table's, of a kind a filter compares.
    const kindOf = (name: string) => filterKind(columnOf.get(name) as ColumnShape) ?? 'text';
    filter = compileRowFilter(bound, kindOf, (name) =>
      filterReader(columnOf.get(name) as ColumnShape, kindOf(name)),
    );
  }
  // A shard's member: its column leads the columns and the key, so the members' keys never meet.
  const shard = e.shard;
  if (shard) {
    const clash = columns.find((c) => c.name.toLowerCase() === shard.column.toLowerCase());
    if (clash)
      return refuse(
        `the shard's column ${shard.column} would be named as column ${clash.shapedFrom ?? clash.name} at the target: name the shard's column otherwise`,
      );
    columns.unshift({ name: shard.column, sourceType: 'nvarchar(128)', nullable: false });
  }
  const back = new Map(outs.map((o) => [o.to, o.from]));
  const ahead = new Map(outs.map((o) => [o.from, o.to]));
  const renamesKey = shard !== undefined || outs.some((o) => o.from !== o.to && shape.key.includes(o.from));
  const renamedKey = shape.key.map((k) => outs.find((o) => o.from === k)?.to ?? k);
  return {
    shape: {
      ...shape,
      columns,
      key: shard ? [shard.column, ...renamedKey] : renamedKey,
      ...(soft && { softDelete: soft }),
      ...(history && { history }),
    },
    row: (row, meta) => {
      const out: Row = {};
      if (shard) out[shard.column] = shard.value;
      for (const o of outs) {
        const v = row[o.from] ?? null;
        out[o.to] = o.write ? o.write(v) : v;
      }
      for (const [kind, name] of added) out[name] = provenanceValue(kind, meta);
      if (soft) {
        out[soft.flag] = false;
        out[soft.at] = null;
      }
      return out;
    },
    passes: filter === null ? () => true : (row) => (filter as (row: Row) => boolean | null)(row) === true,
    sourceKey: renamesKey
      ? (k) =>
          Object.fromEntries(
            Object.entries(k)
              .filter(([n]) => n !== shard?.column)
              .map(([n, v]) => [back.get(n) ?? n, v]),
          )
      : (k) => k,
    targetKey: renamesKey
      ? (k) => ({
          ...(shard && { [shard.column]: shard.value }),
          ...Object.fromEntries(Object.entries(k).map(([n, v]) => [ahead.get(n) ?? n, v])),
        })
      : (k) => k,
    targetName: (n) => ahead.get(n) ?? n,
    filtered: filter !== null,
    ...(bound && { rowFilter: bound }),
    skipDeletes: (e.skipOperations ?? []).includes('delete'),
    masks: outs.some((o) => o.write !== null),
  };
}
