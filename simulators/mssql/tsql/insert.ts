// INSERT … VALUES, INSERT … SELECT and SELECT … INTO: identities drawn, values converted to the
// target columns' types.
import type { StatementResult } from '../tds/hostSession';
import type { SqlType, SqlValue } from '../tds/dataTypes/sqlTypes';
import type { SandboxDatabase } from './database';
import { quote, SqlError } from './basics';
import type { ColumnDef, TableInfo } from './schema';
import { isOp, isWord, nameOf, solid, splitCommas, syntax, type Token } from './lexer';
import { convert } from './convert';
import { isClrType, toClr } from './clrValues';
import { exactValues, isExactNumeric, storedExact } from './exactDecimals';
import type { Parameters } from './params';
import { readName } from './tableNames';
import { cannotFind, mapError } from './sqlErrors';
import { resultType, run } from './runSql';
import { translate } from './translate';

export function insert(db: SandboxDatabase, tokens: Token[], params: Parameters): StatementResult {
  const s = solid(tokens);
  let i = 1;
  if (isWord(s[i], 'into')) i++;
  const target = readName(s, i);
  const table = db.table(target.schema, target.name);
  if (!table)
    throw new SqlError({
      number: 208,
      state: 1,
      class: 16,
      message: `Invalid object name '${target.schema ? `${target.schema}.` : ''}${target.name}'.`,
    });
  let k = target.next;
  let columns: string[];
  if (isOp(s[k], '(')) {
    const close = s.findIndex((t, x) => x > k && isOp(t, ')'));
    columns = splitCommas(s.slice(k + 1, close)).map((c) => nameOf(c[0]));
    k = close + 1;
  } else {
    // Values for every column but the identity and the rowversion, which the server fills.
    columns = table.columns.filter((c) => !c.identity && c.type.name !== 'rowversion').map((c) => c.name);
  }
  const identity = table.columns.find((c) => c.identity);
  if (identity && columns.some((c) => c.toLowerCase() === identity.name.toLowerCase())) {
    throw new SqlError({
      number: 544,
      state: 1,
      class: 16,
      message: `Cannot insert explicit value for identity column in table '${table.name}' when IDENTITY_INSERT is set to OFF.`,
    });
  }
  const rest = tokens.slice(tokens.indexOf(s[k] as Token));
  const targetSql = table.sqlName;
  const columnList = [...columns, ...(identity ? [identity.name] : [])].map(quote).join(', ');
  if (isWord(s[k], 'values')) {
    const open = rest.findIndex((t) => isOp(t, '('));
    const tuples = splitCommas(rest.slice(open)).map((tuple) => solid(tuple));
    const ids = identity ? db.nextIdentities(table, tuples.length) : [];
    const rows = tuples.map((tuple, n) => {
      if (!isOp(tuple[0], '(') || !isOp(tuple.at(-1), ')')) throw syntax(tuple[0]);
      const inner = translate(exactValues(tuple.slice(1, -1), columns, table, params), params, db);
      return `(${inner}${identity ? `, ${String(ids[n])}` : ''})`;
    });
    return run(
      db,
      `INSERT INTO ${targetSql} (${columnList}) VALUES ${rows.join(', ')}`,
      params,
      `${table.schema}.${table.name}`,
    );
  }
  // INSERT … SELECT: the identity values follow the rows the SELECT gives.
  const selectSql = translate(rest, params, db);
  const direct = insertSelected(db, table, columns, selectSql, params);
  if (direct) return direct;
  const selected = run(db, selectSql, params);
  return insertRows(db, table, columns, selected.resultSet?.rows ?? []);
}

/** Types whose values are converted between the SELECT's rows and the target's (not plain copies). */
const converted = (t: SqlType | undefined) =>
  !t ||
  t.name === 'bit' ||
  t.name === 'sql_variant' ||
  t.name === 'uniqueidentifier' ||
  isExactNumeric(t) ||
  isClrType(t);

/**
 * INSERT … SELECT done inside SQLite when nothing on the way is converted: no identity to draw, and
 * no column on either side whose values insertRows() would change (bits, exact numerics, sql_variant,
 * CLR types, a type only the values tell). The rows are then the same as row by row, read once
 * instead of twice (a catch-up's pending keys are such a copy). Null: take the row-by-row way.
 */
function insertSelected(
  db: SandboxDatabase,
  table: TableInfo,
  columns: string[],
  selectSql: string,
  params: Parameters,
): StatementResult | null {
  if (table.columns.some((c) => c.identity)) return null;
  const targetTypes = columns.map(
    (c) => table.columns.find((d) => d.name.toLowerCase() === c.toLowerCase())?.type,
  );
  if (targetTypes.some(converted)) return null;
  let select;
  try {
    select = db.db.prepare(selectSql);
  } catch {
    return null;
  }
  const declared = select.reader ? select.columns() : [];
  // A column whose type only its values tell is not known here: converted, so row by row.
  const selectedTypes = declared.map((c) => resultType(selectSql, c, () => undefined));
  if (declared.length !== columns.length || selectedTypes.some(converted)) return null;
  return run(
    db,
    `INSERT INTO ${table.sqlName} (${columns.map(quote).join(', ')}) ${selectSql}`,
    params,
    `${table.schema}.${table.name}`,
  );
}

/** Rows a SELECT gave, into a table: identities drawn as the rows arrive, all or nothing. */
export function insertRows(
  db: SandboxDatabase,
  table: TableInfo,
  columns: string[],
  rows: SqlValue[][],
): StatementResult {
  const identity = table.columns.find((c) => c.identity);
  const ids = identity ? db.nextIdentities(table, rows.length) : [];
  const columnList = [...columns, ...(identity ? [identity.name] : [])].map(quote).join(', ');
  const placeholders = [...columns, ...(identity ? ['id'] : [])].map(() => '?').join(', ');
  const insertRow = db.db.prepare(`INSERT INTO ${table.sqlName} (${columnList}) VALUES (${placeholders})`);
  const types = columns.map((c) => table.columns.find((d) => d.name.toLowerCase() === c.toLowerCase())?.type);
  // Each column's conversion chosen once; one parameter array, refilled per row.
  const stored = types.map((type): ((v: SqlValue) => unknown) => {
    const plain = (v: SqlValue) => (typeof v === 'boolean' ? (v ? 1n : 0n) : v);
    if (type?.name === 'sql_variant')
      return (v) => (v === null || typeof v === 'boolean' ? plain(v) : variantOf(v));
    if (isClrType(type))
      return (v) =>
        v === null || typeof v === 'boolean'
          ? plain(v)
          : toClr(
              Buffer.isBuffer(v) ? { name: 'varbinary', length: 'max' } : { name: 'nvarchar', length: 'max' },
              v,
              type,
            );
    if (type && isExactNumeric(type))
      return (v) => (typeof v === 'boolean' ? plain(v) : storedExact(type, v));
    // Text into a uniqueidentifier: its one form, as a comparison with it converts (convert.ts).
    if (type?.name === 'uniqueidentifier')
      return (v) =>
        typeof v === 'string'
          ? convert({ type: { name: 'nvarchar', length: 'max' }, value: v }, type).value
          : plain(v);
    return plain;
  });
  const params: unknown[] = new Array<unknown>(columns.length + (identity ? 1 : 0)).fill(null);
  try {
    db.db.transaction(() =>
      rows.forEach((r, n) => {
        // A select list longer or shorter than the insert list: SQLite's own refusal, as before.
        if (r.length !== columns.length) insertRow.run(...r);
        for (let i = 0; i < columns.length; i++)
          params[i] = (stored[i] as (v: SqlValue) => unknown)(r[i] ?? null);
        if (identity) params[columns.length] = ids[n];
        insertRow.run(params);
      }),
    )();
  } catch (error) {
    throw mapError(error, { db, table: `${table.schema}.${table.name}` });
  }
  return { rowCount: rows.length };
}

/** A value from a SELECT written into a sql_variant column: its own type, as SQL Server keeps it. */
function variantOf(v: SqlValue): Buffer {
  const type: SqlType =
    typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v))
      ? { name: 'bigint' }
      : typeof v === 'number'
        ? { name: 'float' }
        : Buffer.isBuffer(v)
          ? { name: 'varbinary', length: 'max' }
          : { name: 'nvarchar', length: 'max' };
  const value = typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : v;
  return convert({ type, value }, { name: 'sql_variant' }).value as Buffer;
}

/** The INTO of `SELECT … INTO t FROM …`, at the top level before FROM; -1 when there is none. */
export function selectIntoAt(s: Token[]): number {
  let depth = 0;
  for (let k = 0; k < s.length; k++) {
    if (isOp(s[k], '(')) depth++;
    if (isOp(s[k], ')')) depth--;
    if (depth === 0 && isWord(s[k], 'from')) return -1;
    if (depth === 0 && isWord(s[k], 'into')) return k;
  }
  return -1;
}

/**
 * SELECT … INTO new_table: a new table (or #temp table) with the SELECT's columns and types, all
 * nullable and without keys, holding its rows ("SELECT - INTO Clause"). 2714 when the name is taken.
 */
export function selectInto(
  db: SandboxDatabase,
  tokens: Token[],
  params: Parameters,
  at: number,
): StatementResult {
  const s = solid(tokens);
  const target = readName(s, at + 1);
  const from = tokens.indexOf(s[at] as Token);
  const after = s[target.next] ? tokens.indexOf(s[target.next] as Token) : tokens.length;
  const selected = run(db, translate([...tokens.slice(0, from), ...tokens.slice(after)], params, db), params);
  const columns: ColumnDef[] = (selected.resultSet?.columns ?? []).map((c) => ({
    name: c.name,
    type: c.type,
    nullable: true,
  }));
  const unnamed = columns.find((c) => !c.name || /[()]/.test(c.name));
  if (unnamed)
    throw new SqlError({
      number: 1038,
      state: 5,
      class: 15,
      message:
        'An object or column name is missing or empty. For SELECT INTO statements, verify each column has a name. For other statements, look for empty alias names. Aliases defined as "" or [] are not allowed. Change the alias to a valid name.',
    });
  if (target.name.startsWith('#')) db.createTempTable(target.name, columns, []);
  else db.createTable(target.schema, target.name, columns, []);
  const table = db.table(target.schema, target.name);
  if (!table) throw cannotFind(208, target.name);
  return insertRows(
    db,
    table,
    columns.map((c) => c.name),
    selected.resultSet?.rows ?? [],
  );
}
