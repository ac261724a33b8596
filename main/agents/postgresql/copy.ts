// Rows loaded with COPY … FROM STDIN in PostgreSQL's text format ("COPY", File Formats: Text Format):
// one line per row, columns separated by tabs, \N for null, and backslash, tab, newline and carriage
// return written as backslash sequences. A value arrives as the target binds it (bindable in
// target.ts), so COPY and a bound parameter give a column the same text. The text is written as
// UTF-8 bytes straight into blocks outside V8's heap: a copy's millions of values make no string per
// line, which would otherwise be the copy's largest share of the collector's work.
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/** A block of COPY bytes: large enough for many lines, small next to the write-ahead bound. */
const BLOCK_BYTES = 256 * 1024;

/**
 * COPY text as bytes. Lines are written at `at` into `block`; `take` hands over what was written since
 * the last take (a block is never written again once its bytes are handed over: a new one follows).
 * CopyData messages need not end at a line's end, so a block may end within one.
 */
export class CopyBytes {
  block = Buffer.allocUnsafeSlow(BLOCK_BYTES);
  at = 0;
  private from = 0;
  private readonly ready: Buffer[] = [];

  /** Makes room for `n` more bytes: the block is set aside and a new one begun when it is full. */
  room(n: number): void {
    if (this.at + n <= this.block.length) return;
    this.setAside();
    this.block = Buffer.allocUnsafeSlow(Math.max(BLOCK_BYTES, n));
    this.from = this.at = 0;
  }

  /** The bytes written since the last take, in order. */
  take(): Buffer[] {
    this.setAside();
    return this.ready.splice(0);
  }

  private setAside(): void {
    if (this.at > this.from) this.ready.push(this.block.subarray(this.from, this.at));
    this.from = this.at;
  }
}

const BACKSLASH = 0x5c;
const TAB = 0x09;
const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const SPECIAL = /[\\\t\n\r]/g;
const HEX = Buffer.from('0123456789abcdef', 'latin1');

/** COPY's escape letter of a special character (t, n, r, or the backslash itself), or 0. */
function escapeOf(c: number): number {
  if (c === BACKSLASH) return BACKSLASH;
  if (c === TAB) return 0x74;
  if (c === NEWLINE) return 0x6e;
  if (c === CARRIAGE_RETURN) return 0x72;
  return 0;
}

/**
 * Text as UTF-8, escaped. ASCII is copied unit by unit (a call into the encoder per short value costs
 * more than the loop); from the first other character on, the rest goes through the encoder.
 */
function putString(out: CopyBytes, s: string): void {
  // A UTF-16 unit is at most three bytes of UTF-8 (a surrogate pair, two units, makes four), and an
  // escaped ASCII character two.
  out.room(s.length * 3);
  const b = out.block;
  let at = out.at;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) {
      // Within the room made: 2 bytes a unit so far, at most 3 a unit of the rest, escapes included.
      const rest = s.slice(i).replace(SPECIAL, (x) => `\\${String.fromCharCode(escapeOf(x.charCodeAt(0)))}`);
      at += b.write(rest, at, 'utf8');
      break;
    }
    const escape = escapeOf(c);
    if (escape) {
      b[at++] = BACKSLASH;
      b[at++] = escape;
    } else b[at++] = c;
  }
  out.at = at;
}

function putAscii(out: CopyBytes, s: string): void {
  out.room(s.length);
  out.at += out.block.write(s, out.at, 'latin1');
}

/** A whole number's digits, written from the last: no string is made for the commonest value. */
function putInteger(out: CopyBytes, v: number): void {
  out.room(17);
  const b = out.block;
  if (v < 0) {
    b[out.at++] = 0x2d;
    v = -v;
  }
  let digits = 1;
  for (let rest = v; rest >= 10; rest = Math.floor(rest / 10)) digits++;
  let i = out.at + digits;
  out.at = i;
  do {
    b[--i] = 0x30 + (v % 10);
    v = Math.floor(v / 10);
  } while (v > 0);
}

/** bytea's hex form, its backslash written as COPY's escape: `\\x…`. */
function putBytes(out: CopyBytes, v: Uint8Array): void {
  out.room(3 + v.byteLength * 2);
  const b = out.block;
  b[out.at++] = BACKSLASH;
  b[out.at++] = BACKSLASH;
  b[out.at++] = 0x78;
  for (const x of v) {
    b[out.at++] = HEX[x >> 4] as number;
    b[out.at++] = HEX[x & 15] as number;
  }
}

/** One bound value as COPY's text format writes it. */
export function putCopyValue(out: CopyBytes, v: unknown): void {
  if (v === null || v === undefined) {
    out.room(2);
    out.block[out.at++] = BACKSLASH;
    out.block[out.at++] = 0x4e;
  } else if (typeof v === 'string') putString(out, v);
  // Safe integers only: beyond 2^53 a number's digits are not its value's, and String says so.
  else if (typeof v === 'number') {
    if (Number.isSafeInteger(v)) putInteger(out, v);
    else putAscii(out, String(v));
  } else if (typeof v === 'bigint') putAscii(out, String(v));
  else if (typeof v === 'boolean') putAscii(out, v ? 't' : 'f');
  else if (v instanceof Uint8Array) putBytes(out, v);
  else if (v instanceof Date) putAscii(out, v.toISOString());
  else throw new TypeError(`A ${typeof v} value cannot be written by COPY.`);
}

/** Lines per write: few enough calls, and PostgreSQL parses while the next are made. */
const LINES_PER_WRITE = 1000;
/**
 * Bytes a COPY may hold written ahead of the socket: PostgreSQL keeps parsing while this thread is
 * busy elsewhere (a chunk read decoded meanwhile), and memory stays bounded.
 */
const WRITE_AHEAD_BYTES = 8 * 2 ** 20;

/** Writes a row's line (and its newline) into `out`. */
export type CopyLine<T> = (row: T, out: CopyBytes) => void;

/**
 * `rows` into `table` by one COPY on `client`, each written as its line by `line` (values bound as the
 * target binds them, copyLineOf): no array of values is made per row.
 */
export async function copyRows<T>(
  client: pg.ClientBase,
  table: string,
  columns: readonly string[],
  rows: readonly T[],
  line: CopyLine<T>,
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
  const out = new CopyBytes();
  for (let from = 0; from < rows.length && !refused; from += LINES_PER_WRITE) {
    const to = Math.min(rows.length, from + LINES_PER_WRITE);
    try {
      for (let i = from; i < to; i++) line(rows[i] as T, out);
    } catch (error) {
      // A value COPY cannot carry: the COPY is failed (CopyFail), so the connection can roll back.
      copy.destroy(error as Error);
      await done.catch(() => undefined);
      throw error;
    }
    let open = true;
    for (const bytes of out.take()) open = copy.write(bytes) && open;
    // Back to the event loop between writes: PostgreSQL's answers come in and the bytes go out.
    if (!open) await Promise.race([once(copy, 'drain'), done]);
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
): CopyLine<Readonly<Record<string, V>>> {
  const width = names.length;
  return (row, out) => {
    for (let i = 0; i < width; i++) {
      if (i > 0) {
        out.room(1);
        out.block[out.at++] = TAB;
      }
      putCopyValue(out, (binders[i] as Binder<V>)(row[names[i] as string] ?? missing));
    }
    out.room(1);
    out.block[out.at++] = NEWLINE;
  };
}
