// SQL Server data types (MS-TDS 2.2.5.4 TYPE_INFO, 2.2.5.5 values): their names, token ids and sizes.
// Each type's wire form is in dataTypes/, one file per type as tedious has them; values.ts sends a
// type to its file. The sandbox keeps
// values in exact, canonical forms: numbers, bigint, decimal digits as text, temporal values as text
// in T-SQL's own format (so datetime2(7) keeps its 100 ns), GUIDs as upper-case text, bytes as Buffer.

export type SqlType =
  | {
      name:
        | 'bit'
        | 'tinyint'
        | 'smallint'
        | 'int'
        | 'bigint'
        | 'float'
        | 'real'
        | 'date'
        | 'datetime'
        | 'uniqueidentifier'
        | 'money'
        | 'smallmoney'
        | 'rowversion'
        | 'xml'
        | 'smalldatetime'
        | 'text'
        | 'ntext'
        | 'image'
        | 'sql_variant'
        | 'hierarchyid'
        | 'geography'
        | 'geometry';
    }
  | { name: 'decimal' | 'numeric'; precision: number; scale: number }
  | { name: 'char' | 'varchar' | 'nchar' | 'nvarchar' | 'binary' | 'varbinary'; length: number | 'max' }
  | { name: 'time' | 'datetime2' | 'datetimeoffset'; scale: number };

export type SqlValue = null | boolean | number | bigint | string | Buffer;

export const TYPE = {
  GUID: 0x24,
  INTN: 0x26,
  DATEN: 0x28,
  TIMEN: 0x29,
  DATETIME2N: 0x2a,
  DATETIMEOFFSETN: 0x2b,
  BITN: 0x68,
  DECIMALN: 0x6a,
  NUMERICN: 0x6c,
  FLTN: 0x6d,
  DATETIMN: 0x6f,
  BIGVARBIN: 0xa5,
  BIGVARCHR: 0xa7,
  BIGBINARY: 0xad,
  BIGCHAR: 0xaf,
  NVARCHAR: 0xe7,
  NCHAR: 0xef,
  MONEYN: 0x6e,
  XML: 0xf1,
  UDT: 0xf0,
  // The deprecated large types: a text pointer and a timestamp before each value (MS-TDS 2.2.5.5.2).
  SSVARIANT: 0x62,
  TEXT: 0x23,
  NTEXT: 0x63,
  IMAGE: 0x22,
  // Fixed-length types a client may send in RPC parameters.
  INT1: 0x30,
  BIT: 0x32,
  INT2: 0x34,
  INT4: 0x38,
  DATETIM4: 0x3a,
  FLT4: 0x3b,
  DATETIME: 0x3d,
  FLT8: 0x3e,
  INT8: 0x7f,
  MONEY: 0x3c,
  MONEY4: 0x7a,
} as const;

/** SQL_Latin1_General_CP1_CI_AS: LCID 0x0409, case-insensitive flags, sort id 52 (code page 1252). */
export const DEFAULT_COLLATION = Buffer.from([0x09, 0x04, 0xd0, 0x00, 0x34]);

export function decimalBytes(precision: number): number {
  return precision <= 9 ? 4 : precision <= 19 ? 8 : precision <= 28 ? 12 : 16;
}
export function timeBytes(scale: number): number {
  return scale <= 2 ? 3 : scale <= 4 ? 4 : 5;
}

export class UnsupportedTypeError extends Error {
  constructor(readonly typeId: number) {
    super(`The data type 0x${typeId.toString(16)} is not supported by the sandbox.`);
  }
}

export class ValueError extends Error {}
