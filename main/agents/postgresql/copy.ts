// Rows loaded with COPY … FROM STDIN in PostgreSQL's text format ("COPY", File Formats: Text Format):
// one line per row, columns separated by tabs, \N for null, and backslash, tab, newline and carriage
// return written as backslash sequences. A value arrives as the target binds it (bindable in
// target.ts), so COPY and a bound parameter give a column the same text.
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
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

/** Lines joined into one write: few enough calls, and PostgreSQL parses while the next are made. */
const LINES_PER_WRITE = 1000;
/**
 * Text a COPY may hold written ahead of the socket: PostgreSQL keeps parsing while this thread is
 * busy elsewhere (a chunk read decoded meanwhile), and memory stays bounded.
 */
const WRITE_AHEAD_BYTES = 8 * 2 ** 20;

/**
 * `rows` into `table` by one COPY on `client`, each written as its line by `line` (values bound as the
 * target binds them, copyLineOf): no array of values is made per row.
 */
export async function copyRows<T>(
  client: pg.ClientBase,
  table: string,
  columns: readonly string[],
  rows: readonly T[],
  line: (row: T) => string,
): Promise<void> {
  const copy = client.query(
    copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`, { highWaterMark: WRITE_AHEAD_BYTES }),
  );
  const done = finished(copy);
  // A refusal (a duplicate key) ends the COPY early: it is reported by `done`, and nothing more is
  // written or ended (the stream has let go of its connection).
  let refused = false;
  done.catch(() => {
    refused = true;
  });
  for (let from = 0; from < rows.length && !refused; from += LINES_PER_WRITE) {
    let text = '';
    const to = Math.min(rows.length, from + LINES_PER_WRITE);
    try {
      for (let i = from; i < to; i++) text += `${line(rows[i] as T)}\n`;
    } catch (error) {
      // A value COPY cannot carry: the COPY is failed (CopyFail), so the connection can roll back.
      copy.destroy(error as Error);
      await done.catch(() => undefined);
      throw error;
    }
    // Back to the event loop between writes: PostgreSQL's answers come in and the text goes out.
    if (!copy.write(text)) await Promise.race([once(copy, 'drain'), done]);
    else await new Promise((resolve) => setImmediate(resolve));
  }
  if (!refused) copy.end();
  await done;
}

type Binder<V> = (v: V) => unknown;

/**
 * A row's line of COPY's text format, made once per table layout: each column's value read by its
 * name and bound by its binder, as a bound parameter would be.
 */
export function copyLineOf<V>(
  names: readonly string[],
  binders: readonly Binder<V>[],
  missing: V,
): (row: Readonly<Record<string, V>>) => string {
  const width = names.length;
  return (row) => {
    let text = copyText((binders[0] as Binder<V>)(row[names[0] as string] ?? missing));
    for (let i = 1; i < width; i++)
      text += `\t${copyText((binders[i] as Binder<V>)(row[names[i] as string] ?? missing))}`;
    return text;
  };
}
