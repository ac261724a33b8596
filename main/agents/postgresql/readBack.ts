// Reading a PostgreSQL replica back for verify: every value as PostgreSQL's own text (exact numerics,
// times to the microsecond, an instant in the session's zone with its offset) except bytes; rows by
// key with one IN list of typed row values, keys in the table's order after a cursor.
import { Buffer } from 'node:buffer';
import type pg from 'pg';
import { keyCursor, keyValues, type ColumnShape, type Row, type RowValue } from '../source';
import { keyColumnsOf, paramSlices, type TargetReadBack, type TargetTable } from '../target';
import { affinityOf } from '../targetValues';
import { keyTuples, MAX_PARAMS } from './params';
import { quoted as q } from './identifier';

const bytes = (c: ColumnShape) => affinityOf(c) === 'binary' || affinityOf(c) === 'spatial';
const selected = (c: ColumnShape) => (bytes(c) ? q(c.name) : `${q(c.name)}::text AS ${q(c.name)}`);

/** A history table's current versions only: the rows the source's are compared with. */
const current = (t: TargetTable, alias = '') => (t.history ? ` AND ${alias}${q(t.history.to)} IS NULL` : '');

export function postgresReadBack(
  pool: pg.Pool,
  name: (table: TargetTable) => string,
  typeOf: (c: ColumnShape) => string,
  bindable: (c: ColumnShape, v: RowValue) => unknown,
  keptDigits: (c: ColumnShape) => number,
): TargetReadBack {
  return {
    async rows(t, keys) {
      const columns = keyColumnsOf(t);
      const out: Row[] = [];
      for (const slice of paramSlices(keys, columns.length, MAX_PARAMS)) {
        const params: unknown[] = [];
        const tuples = keyTuples(slice, columns, params, bindable, typeOf);
        const { rows } = await pool.query<Row>(
          `SELECT ${t.columns.map(selected).join(', ')} FROM ${name(t)} WHERE (${t.key.map(q).join(', ')}) IN (${tuples})${current(t)}`,
          params,
        );
        out.push(...rows);
      }
      return out;
    },
    async between(t, low, high) {
      const [key] = keyColumnsOf(t);
      const { rows } = await pool.query<Row>(
        `SELECT ${t.columns.map(selected).join(', ')} FROM ${name(t)} WHERE ${q(key?.name ?? '')} BETWEEN $1 AND $2${current(t)}`,
        [String(low), String(high)],
      );
      return rows;
    },
    async keys(t, cursor, limit) {
      const columns = keyColumnsOf(t);
      // Qualified: ORDER BY "Id" alone would sort by the text the select list names "Id".
      const names = t.key.map((k) => `t.${q(k)}`).join(', ');
      const after =
        cursor === null ? [] : keyValues(cursor).map((v) => (v instanceof Uint8Array ? Buffer.from(v) : v));
      const past =
        cursor === null
          ? 'TRUE'
          : `(${names}) > (${columns.map((c, i) => `$${i + 1}::${typeOf(c)}`).join(', ')})`;
      const where = ` WHERE ${past}${current(t, 't.')}`;
      const { rows } = await pool.query<Row>(
        `SELECT ${columns.map((c) => `t.${selected(c)}`).join(', ')} FROM ${name(t)} t${where} ORDER BY ${names} LIMIT ${Math.max(1, Math.floor(limit))}`,
        after,
      );
      const last = rows.at(-1);
      return {
        keys: rows,
        next: last && rows.length >= limit ? keyCursor(t.key.map((k) => last[k] ?? null)) : null,
      };
    },
    keptDigits,
  };
}
