// Token stream written by the server (MS-TDS 2.2.7): each method appends one token.
import { ByteSink, valueWriter, type ValueWriter } from './rowWriter';
import { DEFAULT_COLLATION, type SqlType, type SqlValue } from './dataTypes/sqlTypes';
import { writeTypeInfo, writeValue } from './dataTypes/values';

export const TOKEN = {
  RETURNSTATUS: 0x79,
  COLMETADATA: 0x81,
  ERROR: 0xaa,
  INFO: 0xab,
  RETURNVALUE: 0xac,
  LOGINACK: 0xad,
  ROW: 0xd1,
  NBCROW: 0xd2,
  ENVCHANGE: 0xe3,
  DONE: 0xfd,
  DONEPROC: 0xfe,
  DONEINPROC: 0xff,
} as const;

export const DONE_STATUS = {
  FINAL: 0x00,
  MORE: 0x01,
  ERROR: 0x02,
  INXACT: 0x04,
  COUNT: 0x10,
  ATTN: 0x20,
  SRVERROR: 0x100,
} as const;
export const ENV = {
  DATABASE: 1,
  LANGUAGE: 2,
  PACKET_SIZE: 4,
  SQL_COLLATION: 7,
  BEGIN_TRAN: 8,
  COMMIT_TRAN: 9,
  ROLLBACK_TRAN: 10,
} as const;

/** TDS 7.4 as LOGINACK states it (MS-TDS 2.2.7.14). */
export const TDS_74 = 0x74000004;
export const SERVER_NAME = 'SANDBOX';

export interface Column {
  name: string;
  type: SqlType;
  nullable: boolean;
  identity?: boolean;
}

export interface ServerMessage {
  number: number;
  state: number;
  class: number;
  message: string;
  procName?: string;
  line?: number;
}

const bVarchar = (s: string) => Buffer.concat([Buffer.from([s.length]), Buffer.from(s, 'utf16le')]);
const usVarchar = (s: string) => {
  const head = Buffer.alloc(2);
  head.writeUInt16LE(s.length);
  return Buffer.concat([head, Buffer.from(s, 'utf16le')]);
};
const withLength = (token: number, body: Buffer) => {
  const head = Buffer.alloc(3);
  head[0] = token;
  head.writeUInt16LE(body.length, 1);
  return Buffer.concat([head, body]);
};

/** Bytes of rows held before they are handed on as packets (a streaming writer's batch). */
const STREAM_BYTES = 32 * 1024;

export class TokenWriter {
  private readonly sink = new ByteSink();
  /** The columns the last rows were written for, and a writer per column made once for them. */
  private rowColumns: readonly Column[] = [];
  private writers: ValueWriter[] = [];

  /**
   * `stream`: where rows go as they are written, a batch at a time, so a large result leaves in
   * packets while it is produced instead of as one buffer at its end.
   */
  constructor(private readonly stream?: (bytes: Buffer) => void) {}

  get length(): number {
    return this.sink.length;
  }

  take(): Buffer {
    return this.sink.take();
  }

  private push(...bytes: Buffer[]): void {
    for (const b of bytes) this.sink.put(b);
  }

  loginAck(programName = 'Microsoft SQL Server'): this {
    const version = Buffer.alloc(4);
    version.writeUInt32BE(TDS_74);
    const body = Buffer.concat([
      Buffer.from([1]),
      version,
      bVarchar(programName),
      Buffer.from([16, 0, 0x03, 0xe8]),
    ]);
    this.push(withLength(TOKEN.LOGINACK, body));
    return this;
  }

  envChange(type: number, newValue: string, oldValue: string): this {
    this.push(
      withLength(
        TOKEN.ENVCHANGE,
        Buffer.concat([Buffer.from([type]), bVarchar(newValue), bVarchar(oldValue)]),
      ),
    );
    return this;
  }

  envChangeBytes(type: number, newValue: Buffer, oldValue: Buffer): this {
    const body = Buffer.concat([
      Buffer.from([type, newValue.length]),
      newValue,
      Buffer.from([oldValue.length]),
      oldValue,
    ]);
    this.push(withLength(TOKEN.ENVCHANGE, body));
    return this;
  }

  collation(): this {
    return this.envChangeBytes(ENV.SQL_COLLATION, DEFAULT_COLLATION, Buffer.alloc(0));
  }

  message(kind: 'error' | 'info', m: ServerMessage): this {
    const head = Buffer.alloc(6);
    head.writeInt32LE(m.number);
    head[4] = m.state;
    head[5] = m.class;
    const line = Buffer.alloc(4);
    line.writeInt32LE(m.line ?? 1);
    const body = Buffer.concat([
      head,
      usVarchar(m.message),
      bVarchar(SERVER_NAME),
      bVarchar(m.procName ?? ''),
      line,
    ]);
    this.push(withLength(kind === 'error' ? TOKEN.ERROR : TOKEN.INFO, body));
    return this;
  }

  done(token: number, status: number, rowCount = 0, curCmd = 0xc1): this {
    const b = Buffer.alloc(13);
    b[0] = token;
    b.writeUInt16LE(status, 1);
    b.writeUInt16LE(curCmd, 3);
    b.writeBigUInt64LE(BigInt(rowCount), 5);
    this.push(b);
    return this;
  }

  colMetadata(columns: readonly Column[]): this {
    const head = Buffer.alloc(3);
    head[0] = TOKEN.COLMETADATA;
    head.writeUInt16LE(columns.length, 1);
    const cols = columns.map((c) => {
      const meta = Buffer.alloc(6);
      meta.writeUInt32LE(0, 0);
      meta.writeUInt16LE((c.nullable ? 0x0001 : 0) | (c.identity ? 0x0010 : 0) | 0x0008, 4);
      return Buffer.concat([meta, writeTypeInfo(c.type), bVarchar(c.name)]);
    });
    this.push(head, ...cols);
    return this;
  }

  /** A row; NBCROW (with a null bitmap) when it holds nulls, as SQL Server sends it. */
  row(columns: readonly Column[], values: readonly SqlValue[]): this {
    if (columns !== this.rowColumns) {
      this.rowColumns = columns;
      this.writers = columns.map((c) => valueWriter(c.type));
    }
    const count = columns.length;
    let nulls = false;
    for (let i = 0; i < count; i++)
      if (values[i] === null || values[i] === undefined) {
        nulls = true;
        break;
      }
    const sink = this.sink;
    if (nulls) {
      const bitmapBytes = Math.ceil(count / 8);
      const b = sink.room(1 + bitmapBytes);
      const at = sink.at();
      b[at] = TOKEN.NBCROW;
      b.fill(0, at + 1, at + 1 + bitmapBytes);
      for (let i = 0; i < count; i++)
        if (values[i] === null || values[i] === undefined)
          b[at + 1 + (i >> 3)] = (b[at + 1 + (i >> 3)] ?? 0) | (1 << (i & 7));
      sink.advance(1 + bitmapBytes);
    } else sink.byte(TOKEN.ROW);
    for (let i = 0; i < count; i++) {
      const v = values[i];
      // A null is only in the bitmap: NBCROW leaves its value out.
      if (v !== null && v !== undefined) (this.writers[i] as ValueWriter)(sink, v);
    }
    if (this.stream && sink.length >= STREAM_BYTES) this.stream(this.take());
    return this;
  }

  returnStatus(status: number): this {
    const b = Buffer.alloc(5);
    b[0] = TOKEN.RETURNSTATUS;
    b.writeInt32LE(status, 1);
    this.push(b);
    return this;
  }

  returnValue(ordinal: number, name: string, type: SqlType, value: SqlValue): this {
    const head = Buffer.alloc(3);
    head[0] = TOKEN.RETURNVALUE;
    head.writeUInt16LE(ordinal, 1);
    const meta = Buffer.alloc(7);
    meta[0] = 0x01;
    meta.writeUInt32LE(0, 1);
    meta.writeUInt16LE(0x0001, 5);
    this.push(head, bVarchar(name), meta, writeTypeInfo(type), writeValue(type, value));
    return this;
  }
}
