// Table shapes from SQL Server's catalogue: columns with their types as SQL Server writes them (an
// alias type of CREATE TYPE as its base type), and the primary key in key order. One query for any
// number of tables.
import mssql from 'mssql';
import type sql from 'mssql';
import type { ColumnShape, Row, RowValue, TableRef, TableShape } from '../../source';
import { bracket, perSlice, qualified } from './names';
import { foldVariant, VARIANT_WIDTH, variantSelect } from './variants';

interface ColumnRow {
  column_name: string;
  type_name: string;
  max_length: number;
  precision: number;
  scale: number;
  is_nullable: boolean | number;
  key_ordinal: number | null;
}

const SIZED = new Set(['char', 'varchar', 'binary', 'varbinary']);
const UNICODE = new Set(['nchar', 'nvarchar']);
const SCALED = new Set(['datetime2', 'time', 'datetimeoffset']);

/** `decimal(12,2)`, `nvarchar(100)`, `varchar(max)`, `datetime2(7)`, `int`. */
export function typeText(c: Pick<ColumnRow, 'type_name' | 'max_length' | 'precision' | 'scale'>): string {
  const t = c.type_name.toLowerCase();
  // T-SQL's timestamp is rowversion, eight bytes, never a date and time ("rowversion (Transact-SQL)").
  if (t === 'timestamp') return 'rowversion';
  if (t === 'decimal' || t === 'numeric') return `${t}(${c.precision},${c.scale})`;
  if (SIZED.has(t)) return `${t}(${c.max_length === -1 ? 'max' : c.max_length})`;
  if (UNICODE.has(t)) return `${t}(${c.max_length === -1 ? 'max' : c.max_length / 2})`;
  if (SCALED.has(t)) return `${t}(${c.scale})`;
  return t;
}

export async function describeTables(
  pool: sql.ConnectionPool,
  tables: readonly TableRef[],
): Promise<TableShape[]> {
  if (tables.length === 0) return [];
  // Each table's object id as SQL Server resolves its name (the database's collation decides what is
  // one table), and the columns of those objects, in one request per slice of tables: never a name
  // compared here. Bounded statements (names.ts): SQL Server takes 2,100 parameters per request.
  const answers = await perSlice(tables, async (slice, offset) => {
    const request = pool.request();
    const ids = slice.map((t, i) => {
      request.input(`t${i}`, qualified(t));
      return `OBJECT_ID(@t${i})`;
    });
    const { recordsets } = await request.query(`
      ${ids.map((id, i) => `SELECT ${offset + i} AS i, ${id} AS id`).join(' UNION ALL ')};
      SELECT t.object_id, c.name AS column_name,
          CASE WHEN ty.is_assembly_type = 1 THEN ty.name ELSE TYPE_NAME(c.system_type_id) END AS type_name,
          c.max_length, c.precision, c.scale, c.is_nullable, ic.key_ordinal
        FROM sys.columns c
        JOIN sys.tables t ON t.object_id = c.object_id
        JOIN sys.types ty ON ty.user_type_id = c.user_type_id
        LEFT JOIN sys.indexes i ON i.object_id = t.object_id AND i.is_primary_key = 1
        LEFT JOIN sys.index_columns ic ON ic.object_id = i.object_id AND ic.index_id = i.index_id AND ic.column_id = c.column_id
        WHERE t.object_id IN (${ids.join(', ')})
        ORDER BY t.object_id, c.column_id`);
    const [refs = [], columns = []] = recordsets as unknown as [
      { i: number; id: number | null }[],
      (ColumnRow & { object_id: number })[],
    ];
    return [{ refs, columns }];
  });
  const ids = new Map(answers.flatMap((a) => a.refs.map((r) => [Number(r.i), r.id] as const)));
  const rows = answers.flatMap((a) => a.columns);
  const byObject = new Map<number, ColumnRow[]>();
  for (const r of rows) {
    const list = byObject.get(Number(r.object_id));
    if (list) list.push(r);
    else byObject.set(Number(r.object_id), [r]);
  }
  return tables.flatMap((ref, i) => {
    const id = ids.get(i);
    const mine = id === null || id === undefined ? [] : (byObject.get(id) ?? []);
    if (mine.length === 0) return [];
    const key = mine
      .filter((r) => r.key_ordinal !== null && r.key_ordinal > 0)
      .sort((a, b) => Number(a.key_ordinal) - Number(b.key_ordinal))
      .map((r) => r.column_name);
    return [
      {
        ref,
        identity: `object ${id}`,
        columns: mine.map((r) => ({
          name: r.column_name,
          sourceType: typeText(r),
          nullable: Boolean(r.is_nullable),
        })),
        key,
      },
    ];
  });
}

/**
 * A column as the agent selects it, `alias.` before it when given, named `as` (the column's own name
 * by default). The driver hands some types in a form that loses digits, so they are read as exact
 * text: a datetimeoffset as ISO 8601 (style 127; a Date drops the offset and the 100 ns), a decimal or
 * numeric as its digits (a JavaScript number keeps 15 or so of 38), money and smallmoney with their
 * four places (style 2). A hierarchyid is read as its path (`/1/3/`, what Parse takes back), a
 * geography or geometry as its serialized bytes (the driver would parse them into objects), a
 * sql_variant as exact text beside its base type's properties (variants.ts).
 */
export function selectColumn(c: ColumnShape, alias = '', as = c.name): string {
  const name = `${alias ? `${alias}.` : ''}${bracket(c.name)}`;
  const base = c.sourceType.toLowerCase().replace(/\(.*$/, '');
  if (base === 'sql_variant') return variantSelect(name, as, bracket);
  const read =
    base === 'datetimeoffset'
      ? `CONVERT(nvarchar(34), ${name}, 127)`
      : base === 'decimal' || base === 'numeric'
        ? `CONVERT(varchar(41), ${name})`
        : base === 'money' || base === 'smallmoney'
          ? `CONVERT(varchar(30), ${name}, 2)`
          : base === 'hierarchyid'
            ? `CONVERT(nvarchar(4000), ${name})`
            : base === 'geography' || base === 'geometry'
              ? `CONVERT(varbinary(max), ${name})`
              : name;
  return read === name && as === c.name ? name : `${read} AS ${bracket(as)}`;
}

/**
 * A key value bound as a parameter, as SQL Server should compare it: a decimal goes as its exact
 * digits and is converted there (the driver would pass it through a JavaScript number).
 */
export function keyParameter(sourceType: string, name: string): string {
  return /^(decimal|numeric)\(/i.test(sourceType) ? `CONVERT(${sourceType}, ${name})` : name;
}

/**
 * Binds a key value as parameter `name` of the request, typed by its column (a bigint as its digits),
 * and answers the parameter as SQL compares it (keyParameter).
 */
export function bindKey(
  request: sql.Request,
  name: string,
  sourceType: string,
  value: RowValue | undefined,
): string {
  const bound = typeof value === 'bigint' ? String(value) : (value ?? null);
  const type = keyParameterType(sourceType);
  if (type) request.input(name, type, bound);
  else request.input(name, bound);
  return keyParameter(sourceType, `@${name}`);
}

/** SQL Server types the agent replicates exactly, by the mapping in docs/runner.md. */
const REPLICATED = new Set(
  (
    'bit tinyint smallint int bigint decimal numeric money smallmoney float real char varchar nchar ' +
    'nvarchar text ntext binary varbinary image rowversion date time datetime datetime2 smalldatetime ' +
    'datetimeoffset uniqueidentifier xml hierarchyid geography geometry sql_variant'
  ).split(' '),
);

/**
 * Columns whose type the agent cannot replicate exactly, with the reason: such a table is refused
 * before anything is read (the column-types check says the same), never written half right.
 */
export function unsupportedColumns(shape: TableShape): string[] {
  return shape.columns.flatMap((c) => {
    const base = c.sourceType.toLowerCase().replace(/\(.*$/, '');
    // A variant key would be bound and sought by a value whose type changes from row to row.
    if (base === 'sql_variant' && shape.key.includes(c.name))
      return [
        `${shape.ref.schema}.${shape.ref.table}.${c.name} (sql_variant): a sql_variant primary key column`,
      ];
    if (REPLICATED.has(base)) return [];
    const why = 'a user-defined CLR type, which the agent cannot read';
    return [`${shape.ref.schema}.${shape.ref.table}.${c.name} (${c.sourceType}): ${why}`];
  });
}

const isVariant = (c: ColumnShape) => c.sourceType.toLowerCase().replace(/\(.*$/, '') === 'sql_variant';

/** How many select items selectColumn gives a column: a variant's properties follow its value. */
const selectWidth = (c: ColumnShape): number => (isVariant(c) ? VARIANT_WIDTH : 1);

/** Where each column's select items start when they follow item `from`, and the item after them. */
export function selectPositions(columns: readonly ColumnShape[], from = 0): { at: number[]; end: number } {
  const at: number[] = [];
  let next = from;
  for (const c of columns) {
    at.push(next);
    next += selectWidth(c);
  }
  return { at, end: next };
}

/**
 * Driver rows read by position (arrayRowMode) as the agents hand rows on: the columns' values from
 * select item `from` on, a variant folded into one text. By position, never by name: a source column
 * may be called anything, the reader's own items included. Made once per result; the per-row work is
 * the copy alone.
 */
export function rowReader(columns: readonly ColumnShape[], from = 0): (values: readonly unknown[]) => Row {
  const { at } = selectPositions(columns, from);
  const plan = columns.map((c, i) => ({ name: c.name, at: at[i] as number, variant: isVariant(c) }));
  return (values) => {
    const row: Row = {};
    for (const p of plan)
      row[p.name] = p.variant ? foldVariant(values, p.at) : ((values[p.at] ?? null) as RowValue);
    return row;
  };
}

/**
 * The driver type a key value is bound with, from the column's own type, so SQL Server compares it
 * as that type (a decimal or bigint as its digits, not a float; varchar as varchar); undefined lets
 * the driver choose.
 */
export function keyParameterType(sourceType: string): sql.ISqlType | (() => sql.ISqlType) | undefined {
  const m = /^(\w+)(?:\((\w+)(?:,\d+)?\))?$/.exec(sourceType.toLowerCase());
  const [, base = '', size] = m ?? [];
  const length = size === 'max' ? mssql.MAX : Number(size);
  switch (base) {
    case 'bigint':
      return mssql.BigInt;
    case 'int':
      return mssql.Int;
    case 'smallint':
      return mssql.SmallInt;
    case 'tinyint':
      return mssql.TinyInt;
    case 'decimal':
    case 'numeric':
      // Its exact digits, converted at the server (keyParameter).
      return mssql.VarChar(50);
    case 'varchar':
    case 'char':
      return mssql.VarChar(length);
    case 'nvarchar':
    case 'nchar':
      return mssql.NVarChar(length);
    case 'uniqueidentifier':
      return mssql.UniqueIdentifier;
    case 'date':
      return mssql.Date;
    case 'datetime':
    case 'datetime2':
    case 'smalldatetime':
      return mssql.DateTime2(7);
    case 'binary':
    case 'varbinary':
      return mssql.VarBinary(length);
    default:
      return undefined;
  }
}
