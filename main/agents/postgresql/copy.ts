// Rows loaded with COPY … FROM STDIN in PostgreSQL's text format ("COPY", File Formats: Text Format):
// one line per row, columns separated by tabs, \N for null, and backslash, tab, newline and carriage
// return written as backslash sequences. A value arrives as the target binds it (bindable in
// target.ts), so COPY and a bound parameter give a column the same text.
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

const SPECIAL = /[\\\t\n\r]/;
const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** One bound value as COPY's text format writes it. */
export function copyText(v: unknown): string {
  if (v === null || v === undefined) return '\\N';
  if (typeof v === 'string') return SPECIAL.test(v) ? v.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c] ?? c) : v;
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (typeof v === 'boolean') return v ? 't' : 'f';
  // bytea's hex form, its backslash written as COPY's escape.
  if (v instanceof Uint8Array)
    return `\\\\x${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex')}`;
  if (v instanceof Date) return v.toISOString();
  throw new TypeError(`A ${typeof v} value cannot be written by COPY.`);
}

const LINES_PER_CHUNK = 1000;

/**
 * `rows` into `table` by one COPY on `client`, each written as its line by `line` (values bound as the
 * target binds them, joined by copyLine): no array of values is made per row.
 */
export async function copyRows<T>(
  client: pg.PoolClient,
  table: string,
  columns: readonly string[],
  rows: readonly T[],
  line: (row: T) => string,
): Promise<void> {
  function* chunks() {
    for (let from = 0; from < rows.length; from += LINES_PER_CHUNK) {
      let text = '';
      const to = Math.min(rows.length, from + LINES_PER_CHUNK);
      for (let i = from; i < to; i++) text += `${line(rows[i] as T)}\n`;
      yield text;
    }
  }
  const copy = client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`));
  await pipeline(Readable.from(chunks()), copy);
}

/** A line of COPY's text format from one value per column, each as `value(i)` gives it. */
export function copyLine(columns: number, value: (i: number) => unknown): string {
  let text = copyText(value(0));
  for (let i = 1; i < columns; i++) text += `\t${copyText(value(i))}`;
  return text;
}
