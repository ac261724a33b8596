// Rows written in place into one growing buffer. Writing a Buffer per value and joining them was the
// simulated server's largest cost per row (docs/performance.md). The common types have a writer of
// their own here; each produces the same bytes as writeValue, which every other type and every
// unusual value still goes through (simulators/mssql/test/rowWriter.unit.test.ts compares the two).
import { decimalBytes, timeBytes, type SqlType, type SqlValue } from './dataTypes/sqlTypes';
import { datetime2Into } from './dataTypes/temporal';
import { smallUnscaled } from './dataTypes/decimalText';
import { writeValue } from './dataTypes/values';

export class ByteSink {
  private buf = Buffer.allocUnsafe(1024);
  private used = 0;

  get length(): number {
    return this.used;
  }

  /** Room for `n` more bytes; returns the buffer to write into at `at()`. */
  room(n: number): Buffer {
    if (this.used + n > this.buf.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.used + n));
      this.buf.copy(grown, 0, 0, this.used);
      this.buf = grown;
    }
    return this.buf;
  }

  at(): number {
    return this.used;
  }

  advance(n: number): void {
    this.used += n;
  }

  put(bytes: Buffer): void {
    this.room(bytes.length);
    bytes.copy(this.buf, this.used);
    this.used += bytes.length;
  }

  byte(n: number): void {
    this.room(1)[this.used++] = n;
  }

  /** What was written, as a buffer of its own; the sink starts again empty (and keeps its memory). */
  take(): Buffer {
    const out = Buffer.allocUnsafe(this.used);
    this.buf.copy(out, 0, 0, this.used);
    this.used = 0;
    return out;
  }
}

/** Writes a value that is not null (a null is only in NBCROW's bitmap). */
export type ValueWriter = (sink: ByteSink, value: SqlValue) => void;

const MAX_US_LENGTH = 0xffff;
const TWO_32 = 2 ** 32;

export function valueWriter(t: SqlType): ValueWriter {
  const general: ValueWriter = (sink, v) => sink.put(writeValue(t, v));
  switch (t.name) {
    case 'bit':
      return (sink, v) => {
        const b = sink.room(2);
        const at = sink.at();
        b[at] = 1;
        b[at + 1] = v === true || v === 1 || v === 1n ? 1 : 0;
        sink.advance(2);
      };
    case 'int':
      return (sink, v) => {
        if (typeof v !== 'number' || !Number.isInteger(v)) return general(sink, v);
        const b = sink.room(5);
        b[sink.at()] = 4;
        b.writeInt32LE(v, sink.at() + 1);
        sink.advance(5);
      };
    case 'bigint':
      return (sink, v) => {
        if (typeof v !== 'bigint') return general(sink, v);
        const b = sink.room(9);
        b[sink.at()] = 8;
        b.writeBigInt64LE(v, sink.at() + 1);
        sink.advance(9);
      };
    case 'nchar':
    case 'char':
    case 'nvarchar':
    case 'varchar': {
      if (t.length === 'max') return general;
      const wide = t.name === 'nvarchar' || t.name === 'nchar';
      // char(n) and nchar(n) are padded with spaces to their length, as writeValue pads them.
      const width = t.name === 'nchar' || t.name === 'char' ? t.length : 0;
      return (sink, v) => {
        if (typeof v !== 'string') return general(sink, v);
        const text = v.length < width ? v.padEnd(width, ' ') : v;
        // utf16le is two bytes per UTF-16 unit and latin1 one, as Buffer.from writes them.
        const size = wide ? text.length * 2 : text.length;
        if (size > MAX_US_LENGTH) return general(sink, v);
        const b = sink.room(2 + size);
        b.writeUInt16LE(size, sink.at());
        b.write(text, sink.at() + 2, size, wide ? 'utf16le' : 'latin1');
        sink.advance(2 + size);
      };
    }
    case 'datetime2': {
      const size = 4 + timeBytes(t.scale);
      return (sink, v) => {
        if (typeof v !== 'string' || !datetime2Into(v, t.scale, sink.room(size), sink.at()))
          return general(sink, v);
        sink.advance(size);
      };
    }
    case 'decimal':
    case 'numeric': {
      const size = decimalBytes(t.precision);
      return (sink, v) => {
        const units =
          typeof v === 'string' || typeof v === 'number' ? smallUnscaled(String(v), t.scale) : null;
        if (units === null) return general(sink, v);
        const b = sink.room(2 + size);
        const at = sink.at();
        const magnitude = Math.abs(units);
        b[at] = 1 + size;
        b[at + 1] = units < 0 ? 0 : 1;
        b.writeUInt32LE(magnitude % TWO_32, at + 2);
        if (size > 4) {
          b.writeUInt32LE(Math.floor(magnitude / TWO_32), at + 6);
          b.fill(0, at + 10, at + 2 + size);
        }
        sink.advance(2 + size);
      };
    }
    default:
      return general;
  }
}
