// PRELOGIN (MS-TDS 2.2.6.5): option tokens with big-endian offsets, then their data.
export const PRELOGIN_OPTION = {
  VERSION: 0x00,
  ENCRYPTION: 0x01,
  INSTOPT: 0x02,
  THREADID: 0x03,
  MARS: 0x04,
  TRACEID: 0x05,
  TERMINATOR: 0xff,
} as const;
export const ENCRYPT = { OFF: 0x00, ON: 0x01, NOT_SUP: 0x02, REQ: 0x03 } as const;
export type EncryptOption = (typeof ENCRYPT)[keyof typeof ENCRYPT];

export interface ClientPrelogin {
  encryption: number;
  mars: number;
}

export function parsePrelogin(data: Buffer): ClientPrelogin {
  const result: ClientPrelogin = { encryption: ENCRYPT.NOT_SUP, mars: 0 };
  let offset = 0;
  while (offset < data.length && data[offset] !== PRELOGIN_OPTION.TERMINATOR) {
    if (offset + 5 > data.length) throw new Error('PRELOGIN option list is cut short.');
    const token = data[offset];
    const at = data.readUInt16BE(offset + 1);
    const length = data.readUInt16BE(offset + 3);
    if (at + length > data.length) throw new Error('PRELOGIN option points past the message.');
    if (token === PRELOGIN_OPTION.ENCRYPTION && length >= 1) result.encryption = data[at] ?? ENCRYPT.NOT_SUP;
    if (token === PRELOGIN_OPTION.MARS && length >= 1) result.mars = data[at] ?? 0;
    offset += 5;
  }
  return result;
}

/**
 * The server's answer to the client's ENCRYPTION option (MS-TDS 2.2.6.5 and 3.3.5.1):
 * with a certificate, ON answers ON; OFF or NOT_SUP answer the same unless encryption is forced (REQ).
 */
export function negotiateEncryption(
  client: number,
  hasCertificate: boolean,
  forceEncryption: boolean,
): EncryptOption {
  if (!hasCertificate) return ENCRYPT.NOT_SUP;
  if (client === ENCRYPT.ON || client === ENCRYPT.REQ) return ENCRYPT.ON;
  if (forceEncryption) return ENCRYPT.REQ;
  return client === ENCRYPT.OFF ? ENCRYPT.OFF : ENCRYPT.NOT_SUP;
}

/** The server's PRELOGIN answer: version 16.0.1000 (SQL Server 2022), the encryption decided, no MARS. */
export function buildPreloginResponse(encryption: EncryptOption): Buffer {
  const version = Buffer.from([16, 0, 0x03, 0xe8, 0, 0]);
  const options: [number, Buffer][] = [
    [PRELOGIN_OPTION.VERSION, version],
    [PRELOGIN_OPTION.ENCRYPTION, Buffer.from([encryption])],
    [PRELOGIN_OPTION.INSTOPT, Buffer.from([0])],
    [PRELOGIN_OPTION.THREADID, Buffer.alloc(0)],
    [PRELOGIN_OPTION.MARS, Buffer.from([0])],
  ];
  const head = Buffer.alloc(options.length * 5 + 1);
  let dataOffset = head.length;
  options.forEach(([token, value], i) => {
    head[i * 5] = token;
    head.writeUInt16BE(dataOffset, i * 5 + 1);
    head.writeUInt16BE(value.length, i * 5 + 3);
    dataOffset += value.length;
  });
  head[head.length - 1] = PRELOGIN_OPTION.TERMINATOR;
  return Buffer.concat([head, ...options.map(([, v]) => v)]);
}
