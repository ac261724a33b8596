// hierarchyid, geography and geometry, the system CLR types: UDT_INFO (MS-TDS 2.2.5.5.3) and their
// stored bytes, always PLP. Clients send them as varbinary, never as UDT parameters.
import { TYPE, UnsupportedTypeError } from './sqlTypes';
import type { DataType, Named } from './dataType';
import { plp } from './wire';

const CLR_CLASSES = {
  hierarchyid: 'SqlHierarchyId',
  geography: 'SqlGeography',
  geometry: 'SqlGeometry',
} as const;

/**
 * UDT_INFO of a system CLR type: the largest value (892 bytes for hierarchyid; 0xFFFF, unlimited, for
 * the spatial types), database, schema and type name, and the class's assembly-qualified name.
 */
function udtInfo(name: keyof typeof CLR_CLASSES): Buffer {
  const bVarchar = (s: string) => Buffer.concat([Buffer.from([s.length]), Buffer.from(s, 'utf16le')]);
  const assembly = `Microsoft.SqlServer.Types.${CLR_CLASSES[name]}, Microsoft.SqlServer.Types, Version=11.0.0.0, Culture=neutral, PublicKeyToken=89845dcd8080cc91`;
  const head = Buffer.alloc(3);
  head[0] = TYPE.UDT;
  head.writeUInt16LE(name === 'hierarchyid' ? 892 : 0xffff, 1);
  const usLength = Buffer.alloc(2);
  usLength.writeUInt16LE(assembly.length);
  return Buffer.concat([
    head,
    bVarchar(''),
    bVarchar('sys'),
    bVarchar(name),
    usLength,
    Buffer.from(assembly, 'utf16le'),
  ]);
}

export const clrTypes: DataType<Named<'hierarchyid' | 'geography' | 'geometry'>> = {
  info: (t) => udtInfo(t.name),
  write: (_t, value) => plp(value === null ? null : Buffer.isBuffer(value) ? value : Buffer.alloc(0)),
  read: () => {
    throw new UnsupportedTypeError(TYPE.UDT);
  },
  tokens: {},
};
