// Every data type's wire form, by name and by token: one table of the files in dataTypes/, and the
// four entry points the TDS tokens and requests use.
import type { Cursor } from './cursor';
import { UnsupportedTypeError, type SqlType, type SqlValue } from './sqlTypes';
import { binaryTypes } from './binaries';
import { bitType } from './bit';
import { characterTypes } from './characters';
import { clrTypes } from './clr';
import type { DataType, Named } from './dataType';
import { dateType } from './date';
import { datetime2Type } from './datetime2';
import { datetimeOffsetType } from './datetimeOffset';
import { datetimeTypes } from './datetimes';
import { decimalTypes } from './decimal';
import { floatTypes } from './floats';
import { guidType } from './guid';
import { integerTypes } from './integers';
import { lobTypes } from './lobs';
import { moneyTypes } from './money';
import { rowversionType } from './rowversion';
import { sqlVariantType } from './sqlVariant';
import { timeType } from './time';
import { xmlType } from './xml';

/** What a type name needs of its file: how to write it and read it back. */
type Codec<T extends SqlType> = Pick<DataType<T>, 'info' | 'write' | 'read'>;

/** Each type name's file: the compiler checks that every name of SqlType has one, of its own shape. */
const DATA_TYPES: { readonly [N in SqlType['name']]: Codec<Named<N>> } = {
  bit: bitType,
  tinyint: integerTypes,
  smallint: integerTypes,
  int: integerTypes,
  bigint: integerTypes,
  float: floatTypes,
  real: floatTypes,
  decimal: decimalTypes,
  numeric: decimalTypes,
  money: moneyTypes,
  smallmoney: moneyTypes,
  date: dateType,
  time: timeType,
  datetime2: datetime2Type,
  datetimeoffset: datetimeOffsetType,
  datetime: datetimeTypes,
  smalldatetime: datetimeTypes,
  uniqueidentifier: guidType,
  char: characterTypes,
  varchar: characterTypes,
  nchar: characterTypes,
  nvarchar: characterTypes,
  binary: binaryTypes,
  varbinary: binaryTypes,
  text: lobTypes,
  ntext: lobTypes,
  image: lobTypes,
  xml: xmlType,
  hierarchyid: clrTypes,
  geography: clrTypes,
  geometry: clrTypes,
  rowversion: rowversionType,
  sql_variant: sqlVariantType,
};

/** A type's file, for a type whose name picks it (the table's shape guarantees the match). */
const fileOf = (t: SqlType) => DATA_TYPES[t.name] as Codec<SqlType>;

/** The token ids a client may send, each with the file that reads it. */
const BY_TOKEN = new Map<number, (c: Cursor, id: number) => SqlType>(
  [
    bitType,
    integerTypes,
    floatTypes,
    decimalTypes,
    moneyTypes,
    dateType,
    timeType,
    datetime2Type,
    datetimeOffsetType,
    datetimeTypes,
    guidType,
    characterTypes,
    binaryTypes,
    lobTypes,
    xmlType,
  ].flatMap((type): [number, (c: Cursor, id: number) => SqlType][] =>
    Object.entries(type.tokens).map(([id, read]) => [Number(id), read]),
  ),
);

/** A type's TYPE_INFO, as COLMETADATA and RETURNVALUE tokens carry it. */
export function writeTypeInfo(t: SqlType): Buffer {
  return fileOf(t).info(t);
}

/** A value as it follows its TYPE_INFO in a ROW or RETURNVALUE token. */
export function writeValue(t: SqlType, value: SqlValue): Buffer {
  return fileOf(t).write(t, value);
}

/** Reads a TYPE_INFO as a client sends it in an RPC parameter. */
export function readTypeInfo(c: Cursor): SqlType {
  const id = c.u8();
  const read = BY_TOKEN.get(id);
  if (!read) throw new UnsupportedTypeError(id);
  return read(c, id);
}

/** Reads a parameter value that follows its TYPE_INFO. */
export function readValue(t: SqlType, c: Cursor): SqlValue {
  return fileOf(t).read(t, c);
}
