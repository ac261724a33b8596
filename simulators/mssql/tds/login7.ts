// LOGIN7 (MS-TDS 2.2.6.4): a fixed part, then offset/length pairs into UCS-2 strings.
export interface Login7 {
  tdsVersion: number;
  packetSize: number;
  hostName: string;
  userName: string;
  password: string;
  appName: string;
  serverName: string;
  library: string;
  language: string;
  database: string;
  /** fReadOnlyIntent and the like are not modelled; integrated security (SSPI) is refused. */
  usesSspi: boolean;
}

/** Passwords are sent with each byte's nibbles swapped and XORed with 0xA5 (MS-TDS 2.2.6.4). */
export function decodePassword(bytes: Buffer): string {
  const plain = Buffer.from(
    bytes.map((b) => {
      const x = b ^ 0xa5;
      return ((x & 0x0f) << 4) | (x >> 4);
    }),
  );
  return plain.toString('utf16le');
}

export function parseLogin7(data: Buffer): Login7 {
  if (data.length < 94) throw new Error('LOGIN7 is shorter than its fixed part.');
  const length = data.readUInt32LE(0);
  if (length > data.length) throw new Error('LOGIN7 length is larger than the message.');
  const text = (at: number, raw = false): string | Buffer => {
    const offset = data.readUInt16LE(at);
    const chars = data.readUInt16LE(at + 2);
    if (offset + chars * 2 > data.length) throw new Error('LOGIN7 string points past the message.');
    const bytes = data.subarray(offset, offset + chars * 2);
    return raw ? bytes : bytes.toString('utf16le');
  };
  const str = (at: number) => text(at) as string;
  return {
    tdsVersion: data.readUInt32LE(4),
    packetSize: data.readUInt32LE(8),
    hostName: str(36),
    userName: str(40),
    password: decodePassword(text(44, true) as Buffer),
    appName: str(48),
    serverName: str(52),
    library: str(60),
    language: str(64),
    database: str(68),
    usesSspi: data.readUInt16LE(80) > 0,
  };
}
