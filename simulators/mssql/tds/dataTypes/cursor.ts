// Reads a request's bytes in order: the integers, lengths and texts MS-TDS writes little-endian.
export class Cursor {
  constructor(
    readonly buf: Buffer,
    public offset = 0,
  ) {}
  need(n: number): void {
    if (this.offset + n > this.buf.length) throw new Error('The request is cut short.');
  }
  u8(): number {
    this.need(1);
    return this.buf[this.offset++] ?? 0;
  }
  u16(): number {
    this.need(2);
    const v = this.buf.readUInt16LE(this.offset);
    this.offset += 2;
    return v;
  }
  u32(): number {
    this.need(4);
    const v = this.buf.readUInt32LE(this.offset);
    this.offset += 4;
    return v;
  }
  u64(): bigint {
    this.need(8);
    const v = this.buf.readBigUInt64LE(this.offset);
    this.offset += 8;
    return v;
  }
  bytes(n: number): Buffer {
    this.need(n);
    const v = this.buf.subarray(this.offset, this.offset + n);
    this.offset += n;
    return v;
  }
  /** B_VARCHAR: a byte count of UCS-2 characters, then the characters. */
  bVarchar(): string {
    return this.bytes(this.u8() * 2).toString('utf16le');
  }
  /** A BYTELEN count of bytes, then UCS-2 text: a transaction manager request's transaction name. */
  bVarbyteText(): string {
    return this.bytes(this.u8()).toString('utf16le');
  }
  /** US_VARCHAR: a USHORT count of UCS-2 characters. */
  usVarchar(): string {
    return this.bytes(this.u16() * 2).toString('utf16le');
  }
}
