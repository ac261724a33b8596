// TDS packets (MS-TDS 2.2.3): an 8-byte header, then data; a message is packets up to one with EOM set.
export const PACKET = {
  SQL_BATCH: 0x01,
  RPC: 0x03,
  TABULAR_RESULT: 0x04,
  ATTENTION: 0x06,
  TRANSACTION_MANAGER: 0x0e,
  LOGIN7: 0x10,
  PRELOGIN: 0x12,
} as const;

export const STATUS_EOM = 0x01;
export const STATUS_RESET_CONNECTION = 0x08;
export const HEADER_LENGTH = 8;
export const DEFAULT_PACKET_SIZE = 4096;

export interface Message {
  type: number;
  /** Set by the client on the first packet of a request to reset the session. */
  resetConnection: boolean;
  data: Buffer;
}

/** Collects bytes into whole messages; a malformed header throws, and the connection is dropped. */
export class MessageReader {
  private buffer: Buffer = Buffer.alloc(0);
  private parts: Buffer[] = [];
  private type = -1;
  private reset = false;

  push(chunk: Buffer): Message[] {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const messages: Message[] = [];
    while (this.buffer.length >= HEADER_LENGTH) {
      const length = this.buffer.readUInt16BE(2);
      if (length < HEADER_LENGTH) throw new Error(`TDS packet length ${length} is shorter than its header.`);
      if (this.buffer.length < length) break;
      const type = this.buffer[0] ?? 0;
      const status = this.buffer[1] ?? 0;
      if (this.type === -1) {
        this.type = type;
        this.reset = (status & STATUS_RESET_CONNECTION) !== 0;
      }
      this.parts.push(this.buffer.subarray(HEADER_LENGTH, length));
      this.buffer = this.buffer.subarray(length);
      if (status & STATUS_EOM) {
        messages.push({ type: this.type, resetConnection: this.reset, data: Buffer.concat(this.parts) });
        this.parts = [];
        this.type = -1;
        this.reset = false;
      }
    }
    return messages;
  }
}

/**
 * Splits a message into packets of at most `packetSize` bytes, the last one marked EOM — unless the
 * message is left unfinished (a fault drill's connection dropping mid-answer).
 */
export function encodeMessage(
  type: number,
  data: Buffer,
  packetSize = DEFAULT_PACKET_SIZE,
  spid = 0,
  endOfMessage = true,
): Buffer {
  const room = packetSize - HEADER_LENGTH;
  const packets: Buffer[] = [];
  let offset = 0;
  let id = 1;
  do {
    const part = data.subarray(offset, offset + room);
    offset += part.length;
    const header = Buffer.alloc(HEADER_LENGTH);
    header[0] = type;
    header[1] = endOfMessage && offset >= data.length ? STATUS_EOM : 0;
    header.writeUInt16BE(HEADER_LENGTH + part.length, 2);
    header.writeUInt16BE(spid, 4);
    header[6] = id++ % 256;
    packets.push(header, part);
  } while (offset < data.length);
  return Buffer.concat(packets);
}
