// xml: XML_INFO without a schema collection (untyped XML), values as UTF-16 in PLP chunks (MS-TDS 2.2.5.5.3).
import { TYPE } from './sqlTypes';
import type { DataType, Named } from './dataType';
import { plp, readPlp } from './wire';

export const xmlType: DataType<Named<'xml'>> = {
  info: () => Buffer.from([TYPE.XML, 0]),
  write: (_t, value) => plp(value === null ? null : Buffer.from(String(value), 'utf16le')),
  read: (_t, c) => readPlp(c)?.toString('utf16le') ?? null,
  tokens: {
    [TYPE.XML]: (c) => {
      // SCHEMA_PRESENT, then (when 1) the schema collection's database, owner and name.
      if (c.u8() === 1) {
        c.bVarchar();
        c.bVarchar();
        c.usVarchar();
      }
      return { name: 'xml' };
    },
  },
};
