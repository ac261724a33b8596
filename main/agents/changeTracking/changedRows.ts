// A batch's changed rows: each table's pending keys in (after, bound] joined to the table's current
// row. Every table's SELECT goes in one request where the parameters allow (a link 30 ms away pays a
// round trip per request, not per table), each read back from its own result set by position.
import sql from 'mssql';
import { tableKey, type Change, type TableShape } from '../source';
import { bracket, qualified } from '../drivers/mssql/names';
import { rowReader, selectColumn, selectPositions } from '../drivers/mssql/shape';
import { PENDING, pendingKey } from './pendingKeys';

const OPS = { I: 'insert', U: 'update', D: 'delete' } as const;
/** SQL Server takes 2,100 parameters per request; a few are left for the shared ones. */
const MAX_PARAMS = 2_000;

export interface ChangedRowsRead {
  shape: TableShape;
  after: bigint;
}

/** The parameters a table's read binds: its position, its name, and one per column for the masks. */
const paramsOf = (shape: TableShape) => 2 + shape.columns.length;

/** Reads, in order, grouped so each group's parameters fit one request. */
export function requestGroups(reads: readonly ChangedRowsRead[]): ChangedRowsRead[][] {
  const groups: ChangedRowsRead[][] = [];
  let params = MAX_PARAMS;
  for (const read of reads) {
    const need = paramsOf(read.shape);
    if (params + need > MAX_PARAMS) {
      groups.push([]);
      params = 0;
    }
    groups.at(-1)?.push(read);
    params += need;
  }
  return groups;
}

/**
 * Binds one table's read on `request` (its parameters suffixed `_n`, `@bound` shared) and answers its
 * statement and how its rows become changes.
 */
export function changedRowsStatement(
  request: sql.Request,
  { shape, after }: ChangedRowsRead,
  temp: string,
  n: number,
): { statement: string; decode: (records: unknown[][]) => Change[] } {
  request.input(`after_${n}`, sql.BigInt, String(after));
  request.input(`t_${n}`, qualified(shape.ref));
  const columns = shape.columns.map((c) => c.name);
  // A column's bit only where the change has a mask (an update with TRACK_COLUMNS_UPDATED): NULL
  // elsewhere, which travels as a bit in the row's null bitmap rather than a value.
  const masks = columns.map((c, m) => {
    request.input(`c_${n}_${m}`, c);
    return `CASE WHEN k.${PENDING.columns} IS NULL THEN NULL ELSE CHANGE_TRACKING_IS_COLUMN_IN_MASK(COLUMNPROPERTY(OBJECT_ID(@t_${n}), @c_${n}_${m}, 'ColumnId'), k.${PENDING.columns}) END`;
  });
  const join = shape.key.map((k, m) => `t.${bracket(k)} = k.${pendingKey(m)}`).join(' AND ');
  const keyColumns = shape.key.map(
    (k) => shape.columns.find((c) => c.name === k) ?? { name: k, sourceType: '', nullable: false },
  );
  // Read by position: the operation, the version, the pending key, the row, the masks.
  const statement = `SELECT k.${PENDING.op}, k.${PENDING.version},
      ${keyColumns.map((c, m) => selectColumn({ ...c, name: pendingKey(m, false) }, 'k')).join(', ')},
      ${shape.columns.map((c) => selectColumn(c, 't')).join(', ')}${masks.length ? `, ${masks.join(', ')}` : ''}
    FROM ${temp} k LEFT JOIN ${qualified(shape.ref)} t ON ${join}
    WHERE k.${PENDING.version} > @after_${n} AND k.${PENDING.version} <= @bound ORDER BY k.${PENDING.version};`;
  const decode = (records: unknown[][]): Change[] => {
    // Positions and readers made once per batch, not per row.
    const table = tableKey(shape.ref);
    const readKey = rowReader(keyColumns, 2);
    const rowAt = selectPositions(keyColumns, 2).end;
    const readRow = rowReader(shape.columns, rowAt);
    const { at: columnAt, end: maskAt } = selectPositions(shape.columns, rowAt);
    // A key column is NOT NULL: read from the table, it is NULL only when the row is gone.
    const firstKeyAt = columnAt[shape.columns.findIndex((c) => c.name === shape.key[0])] ?? -1;
    return records.map((r): Change => {
      const exists = r[firstKeyAt] !== null && r[firstKeyAt] !== undefined;
      const op = OPS[String(r[0]).trim() as keyof typeof OPS] ?? 'update';
      const changedColumns =
        op === 'update' && masks.length > 0 && r[maskAt] !== null && r[maskAt] !== undefined
          ? columns.filter((_, m) => Number(r[maskAt + m]) === 1)
          : null;
      return {
        table,
        // A row changed and then deleted after the bound cannot be here: a missing row is a delete.
        op: exists ? op : 'delete',
        key: readKey(r),
        row: exists && op !== 'delete' ? readRow(r) : null,
        changedColumns,
        position: String(r[1]),
      };
    });
  };
  return { statement, decode };
}
