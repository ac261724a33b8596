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
 * One message leaving as packets of at most `packetSize` bytes while it is being written: add() sends
 * every packet its data fills and keeps the rest, end() sends what is left, the last packet marked EOM
 * unless the message is left unfinished (a fault drill's connection dropping mid-answer). Packet ids
 * count on across add() calls, as one message's packets do.
 */
export class PacketStream {
  private held: Buffer = Buffer.alloc(0);
  private id = 1;

  constructor(
    private readonly type: number,
    private readonly packetSize: number,
    private readonly spid: number,
    private readonly write: (bytes: Buffer) => void,
  ) {}

  add(data: Buffer): void {
    this.held = this.held.length === 0 ? data : Buffer.concat([this.held, data]);
    const room = this.packetSize - HEADER_LENGTH;
    // A packet is sent only when more follows it: the last one always has data to carry EOM.
    let offset = 0;
    const packets: Buffer[] = [];
    while (this.held.length - offset > room) {
      packets.push(this.packet(this.held.subarray(offset, offset + room), false));
      offset += room;
    }
    if (packets.length > 0) this.write(Buffer.concat(packets));
    this.held = this.held.subarray(offset);
  }

  end(data: Buffer, endOfMessage = true): void {
    this.add(data);
    this.write(this.packet(this.held, endOfMessage));
    this.held = Buffer.alloc(0);
  }

  private packet(part: Buffer, last: boolean): Buffer {
    const packet = Buffer.allocUnsafe(HEADER_LENGTH + part.length);
    packet[0] = this.type;
    packet[1] = last ? STATUS_EOM : 0;
    packet.writeUInt16BE(HEADER_LENGTH + part.length, 2);
    packet.writeUInt16BE(this.spid, 4);
    packet[6] = this.id++ % 256;
    packet[7] = 0;
    part.copy(packet, HEADER_LENGTH);
    return packet;
  }
}

/** A whole message as packets (see PacketStream). */
export function encodeMessage(
  type: number,
  data: Buffer,
  packetSize = DEFAULT_PACKET_SIZE,
  spid = 0,
  endOfMessage = true,
): Buffer {
  const packets: Buffer[] = [];
  new PacketStream(type, packetSize, spid, (bytes) => packets.push(bytes)).end(data, endOfMessage);
  return Buffer.concat(packets);
}
