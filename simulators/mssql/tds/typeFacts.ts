// What sys.columns and sys.types say of a type ("sys.types (Transact-SQL)"): the catalogue views and
// sql_variant's property functions both read it.
import { decimalBytes, timeBytes, type SqlType } from './dataTypes/sqlTypes';

export function typeFacts(t: SqlType): {
  typeName: string;
  systemTypeId: number;
  userTypeId?: number;
  maxLength: number;
  precision: number;
  scale: number;
  collation: string | null;
} {
  const collation = 'SQL_Latin1_General_CP1_CI_AS';
  const temporal = (
    base: number,
    id: number,
    bytesAtScale: (s: number) => number,
    precisionAtScale: (s: number) => number,
  ) => {
    const scale = 'scale' in t ? t.scale : 0;
    return {
      typeName: t.name,
      systemTypeId: id,
      maxLength: bytesAtScale(scale) + base,
      precision: precisionAtScale(scale),
      scale,
      collation: null,
    };
  };
  switch (t.name) {
    case 'bit':
      return { typeName: 'bit', systemTypeId: 104, maxLength: 1, precision: 1, scale: 0, collation: null };
    case 'tinyint':
      return { typeName: 'tinyint', systemTypeId: 48, maxLength: 1, precision: 3, scale: 0, collation: null };
    case 'smallint':
      return {
        typeName: 'smallint',
        systemTypeId: 52,
        maxLength: 2,
        precision: 5,
        scale: 0,
        collation: null,
      };
    case 'int':
      return { typeName: 'int', systemTypeId: 56, maxLength: 4, precision: 10, scale: 0, collation: null };
    case 'bigint':
      return {
        typeName: 'bigint',
        systemTypeId: 127,
        maxLength: 8,
        precision: 19,
        scale: 0,
        collation: null,
      };
    case 'float':
      return { typeName: 'float', systemTypeId: 62, maxLength: 8, precision: 53, scale: 0, collation: null };
    case 'real':
      return { typeName: 'real', systemTypeId: 59, maxLength: 4, precision: 24, scale: 0, collation: null };
    case 'decimal':
    case 'numeric': {
      const bytes = 1 + decimalBytes(t.precision);
      return {
        typeName: t.name,
        systemTypeId: t.name === 'decimal' ? 106 : 108,
        maxLength: bytes,
        precision: t.precision,
        scale: t.scale,
        collation: null,
      };
    }
    case 'date':
      return { typeName: 'date', systemTypeId: 40, maxLength: 3, precision: 10, scale: 0, collation: null };
    case 'datetime':
      return {
        typeName: 'datetime',
        systemTypeId: 61,
        maxLength: 8,
        precision: 23,
        scale: 3,
        collation: null,
      };
    case 'time':
      return temporal(0, 41, timeBytes, (s) => (s === 0 ? 8 : 9 + s));
    case 'datetime2':
      return temporal(3, 42, timeBytes, (s) => (s === 0 ? 19 : 20 + s));
    case 'datetimeoffset':
      return temporal(5, 43, timeBytes, (s) => (s === 0 ? 26 : 27 + s));
    case 'money':
      return { typeName: 'money', systemTypeId: 60, maxLength: 8, precision: 19, scale: 4, collation: null };
    case 'smallmoney':
      return {
        typeName: 'smallmoney',
        systemTypeId: 122,
        maxLength: 4,
        precision: 10,
        scale: 4,
        collation: null,
      };
    // sys.types still names rowversion by its old synonym ("rowversion (Transact-SQL)").
    case 'rowversion':
      return {
        typeName: 'timestamp',
        systemTypeId: 189,
        maxLength: 8,
        precision: 0,
        scale: 0,
        collation: null,
      };
    case 'xml':
      return { typeName: 'xml', systemTypeId: 241, maxLength: -1, precision: 0, scale: 0, collation: null };
    // The system CLR types share system type 240 and differ by user type ("sys.types").
    case 'hierarchyid':
    case 'geometry':
    case 'geography':
      return {
        typeName: t.name,
        systemTypeId: 240,
        userTypeId: { hierarchyid: 128, geometry: 129, geography: 130 }[t.name],
        maxLength: t.name === 'hierarchyid' ? 892 : -1,
        precision: 0,
        scale: 0,
        collation: null,
      };
    case 'sql_variant':
      return {
        typeName: 'sql_variant',
        systemTypeId: 98,
        maxLength: 8016,
        precision: 0,
        scale: 0,
        collation: null,
      };
    case 'smalldatetime':
      return {
        typeName: 'smalldatetime',
        systemTypeId: 58,
        maxLength: 4,
        precision: 16,
        scale: 0,
        collation: null,
      };
    // A text, ntext or image column's max_length is its 16-byte text pointer.
    case 'text':
      return { typeName: 'text', systemTypeId: 35, maxLength: 16, precision: 0, scale: 0, collation };
    case 'ntext':
      return { typeName: 'ntext', systemTypeId: 99, maxLength: 16, precision: 0, scale: 0, collation };
    case 'image':
      return { typeName: 'image', systemTypeId: 34, maxLength: 16, precision: 0, scale: 0, collation: null };
    case 'uniqueidentifier':
      return {
        typeName: 'uniqueidentifier',
        systemTypeId: 36,
        maxLength: 16,
        precision: 0,
        scale: 0,
        collation: null,
      };
    case 'char':
    case 'varchar':
    case 'nchar':
    case 'nvarchar':
    case 'binary':
    case 'varbinary': {
      const ids = {
        char: 175,
        varchar: 167,
        nchar: 239,
        nvarchar: 231,
        binary: 173,
        varbinary: 165,
      } as const;
      const unicode = t.name === 'nchar' || t.name === 'nvarchar';
      const text = t.name !== 'binary' && t.name !== 'varbinary';
      const maxLength = t.length === 'max' ? -1 : t.length * (unicode ? 2 : 1);
      return {
        typeName: t.name,
        systemTypeId: ids[t.name],
        maxLength,
        precision: 0,
        scale: 0,
        collation: text ? collation : null,
      };
    }
  }
}
