// DATALENGTH: the bytes a value takes as its column's type stores it (T-SQL reference, DATALENGTH): two
// per UTF-16 unit for nchar, nvarchar and ntext, one per character for char, varchar and text in the
// sandbox's code page 1252, a fixed type's full width, a binary value's bytes, a sql_variant's base
// value without its type header. NULL for NULL. xml is stored by SQL Server in a binary form of its
// own; the sandbox counts its UTF-16 text, near that size for text-heavy documents (CONFORMANCE.md).
import { SqlError } from './basics';
import type { SqlType, SqlValue } from '../tds/dataTypes/sqlTypes';

export function dataLength(value: SqlValue, type: SqlType): number | null {
  if (value === null) return null;
  if (Buffer.isBuffer(value)) {
    // A sql_variant instance: the base type's token, its properties' length, the properties, the value.
    if (type.name === 'sql_variant') return value.length - 2 - (value[1] ?? 0);
    return value.length;
  }
  const text = String(value);
  switch (type.name) {
    case 'nchar':
      return typeof type.length === 'number' ? type.length * 2 : text.length * 2;
    case 'char':
      return typeof type.length === 'number' ? type.length : text.length;
    case 'nvarchar':
    case 'ntext':
    case 'xml':
      return text.length * 2;
    case 'varchar':
    case 'text':
      return Buffer.byteLength(text, 'latin1');
    default:
      throw new SqlError({
        number: 50000,
        state: 1,
        class: 16,
        message: `The sandbox does not support DATALENGTH of a ${type.name} column yet.`,
      });
  }
}
