// Reading a SQLite replica back for verify: rows by key (row values, so a key of several columns is
// one IN list), keys in the table's own order after a cursor. Integers as bigints, so a
// value past 2^53 is compared as it is stored.
import type Database from 'better-sqlite3';
import { Buffer } from 'node:buffer';
import { keyCursor, keyValues, type ColumnShape, type Row, type RowValue } from '../source';
import { keyColumnsOf, paramSlices, type TargetReadBack, type TargetTable } from '../target';

const q = (name: string) => `"${name.replaceAll('"', '""')}"`;
/** SQLite binds up to 32,766 parameters per statement. */
const MAX_PARAMS = 30_000;

/** A history table's current versions only: the rows the source's are compared with. */
const current = (t: TargetTable) => (t.history ? ` AND ${q(t.history.to)} IS NULL` : '');

const rebind = (v: RowValue): unknown => (v instanceof Uint8Array ? Buffer.from(v) : v);

export function sqliteReadBack(
  db: Database.Database,
  bindable: (c: ColumnShape, v: RowValue) => unknown,
): TargetReadBack {
  return {
    async rows(t, keys) {
      const columns = keyColumnsOf(t);
      const out: Row[] = [];
      for (const slice of paramSlices(keys, columns.length, MAX_PARAMS)) {
        const tuple = `(${columns.map(() => '?').join(', ')})`;
        // One key column: a plain IN list, which SQLite seeks by the primary key.
        const list =
          columns.length === 1
            ? slice.map(() => '?').join(', ')
            : `VALUES ${slice.map(() => tuple).join(', ')}`;
        const sql = `SELECT * FROM ${q(t.name)} WHERE (${t.key.map(q).join(', ')}) IN (${list})${current(t)}`;
        const params = slice.flatMap((k) => columns.map((c) => bindable(c, k[c.name] ?? null)));
        out.push(
          ...(db
            .prepare(sql)
            .safeIntegers(true)
            .all(...params) as Row[]),
        );
      }
      return out;
    },
    async between(t, low, high) {
      const [key] = keyColumnsOf(t);
      return db
        .prepare(`SELECT * FROM ${q(t.name)} WHERE ${q(key?.name ?? '')} BETWEEN ? AND ?${current(t)}`)
        .safeIntegers(true)
        .all(low, high) as Row[];
    },
    async keys(t, cursor, limit) {
      const names = t.key.map(q).join(', ');
      const after = cursor === null ? [] : keyValues(cursor).map(rebind);
      const past = cursor === null ? '1 = 1' : `(${names}) > (${after.map(() => '?').join(', ')})`;
      const where = ` WHERE ${past}${current(t)}`;
      const rows = db
        .prepare(`SELECT ${names} FROM ${q(t.name)}${where} ORDER BY ${names} LIMIT ?`)
        .safeIntegers(true)
        .all(...after, limit) as Row[];
      const last = rows.at(-1);
      return {
        keys: rows,
        next: last && rows.length >= limit ? keyCursor(t.key.map((k) => last[k] ?? null)) : null,
      };
    },
    keptDigits: () => Infinity,
  };
}
