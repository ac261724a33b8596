// sql_variant values as SQL Server keeps them: each value with its base type (MS-TDS 2.2.5.5.4: the
// base type's token, the length of its properties, the properties — precision and scale, a scale, a
// collation and a maximum length — then the value's bytes without a length). The sandbox stores this
// instance in the column and sends it as is, so a value keeps the type it was written with.
import { DEFAULT_COLLATION, TYPE, ValueError, type SqlType, type SqlValue } from './dataTypes/sqlTypes';
import { Cursor } from './dataTypes/cursor';
import { readValue, writeValue } from './dataTypes/values';

import { typeFacts } from './typeFacts';

const FIXED: Partial<Record<SqlType['name'], number>> = {
  tinyint: TYPE.INT1,
  smallint: TYPE.INT2,
  int: TYPE.INT4,
  bigint: TYPE.INT8,
  bit: TYPE.BIT,
  real: TYPE.FLT4,
  float: TYPE.FLT8,
  money: TYPE.MONEY,
  smallmoney: TYPE.MONEY4,
  datetime: TYPE.DATETIME,
  smalldatetime: TYPE.DATETIM4,
  uniqueidentifier: TYPE.GUID,
  date: TYPE.DATEN,
};

const u16 = (n: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n);
  return b;
};

/** The instance of a value of type t; the types sql_variant cannot hold are refused (206). */
export function variantInstance(t: SqlType, value: SqlValue): Buffer {
  const fixed = FIXED[t.name];
  // writeValue puts a one-byte length before these values; a variant keeps only the bytes.
  if (fixed !== undefined) return Buffer.concat([Buffer.from([fixed, 0]), writeValue(t, value).subarray(1)]);
  switch (t.name) {
    case 'decimal':
    case 'numeric':
      return Buffer.concat([
        Buffer.from([t.name === 'decimal' ? TYPE.DECIMALN : TYPE.NUMERICN, 2, t.precision, t.scale]),
        writeValue(t, value).subarray(1),
      ]);
    case 'time':
    case 'datetime2':
    case 'datetimeoffset': {
      const token = { time: TYPE.TIMEN, datetime2: TYPE.DATETIME2N, datetimeoffset: TYPE.DATETIMEOFFSETN }[
        t.name
      ];
      return Buffer.concat([Buffer.from([token, 1, t.scale]), writeValue(t, value).subarray(1)]);
    }
    case 'char':
    case 'varchar':
    case 'nchar':
    case 'nvarchar':
    case 'binary':
    case 'varbinary': {
      if (t.length === 'max') break;
      const token = {
        char: TYPE.BIGCHAR,
        varchar: TYPE.BIGVARCHR,
        nchar: TYPE.NCHAR,
        nvarchar: TYPE.NVARCHAR,
        binary: TYPE.BIGBINARY,
        varbinary: TYPE.BIGVARBIN,
      }[t.name];
      const text = t.name !== 'binary' && t.name !== 'varbinary';
      const maxBytes = t.length * (t.name === 'nchar' || t.name === 'nvarchar' ? 2 : 1);
      const props = text ? Buffer.concat([DEFAULT_COLLATION, u16(maxBytes)]) : u16(maxBytes);
      // Sized values carry a two-byte length in writeValue.
      const data = writeValue(t, value).subarray(2);
      return Buffer.concat([Buffer.from([token, props.length]), props, data]);
    }
  }
  throw new ValueError(`Operand type clash: ${t.name} is incompatible with sql_variant`);
}

const BY_TOKEN = new Map<number, string>([
  ...Object.entries(FIXED).map(([name, token]) => [token as number, name] as [number, string]),
  [TYPE.DECIMALN, 'decimal'],
  [TYPE.NUMERICN, 'numeric'],
  [TYPE.TIMEN, 'time'],
  [TYPE.DATETIME2N, 'datetime2'],
  [TYPE.DATETIMEOFFSETN, 'datetimeoffset'],
  [TYPE.BIGCHAR, 'char'],
  [TYPE.BIGVARCHR, 'varchar'],
  [TYPE.NCHAR, 'nchar'],
  [TYPE.NVARCHAR, 'nvarchar'],
  [TYPE.BIGBINARY, 'binary'],
  [TYPE.BIGVARBIN, 'varbinary'],
]);

/** The base type and value of a stored instance. */
export function fromVariant(instance: Buffer): { type: SqlType; value: SqlValue } {
  const token = instance[0] ?? 0;
  const name = BY_TOKEN.get(token);
  const propLength = instance[1] ?? 0;
  const props = instance.subarray(2, 2 + propLength);
  const data = instance.subarray(2 + propLength);
  if (!name) throw new ValueError(`A sql_variant value has the unknown base type 0x${token.toString(16)}.`);
  let type: SqlType;
  if (name === 'decimal' || name === 'numeric')
    type = { name, precision: props[0] ?? 18, scale: props[1] ?? 0 };
  else if (name === 'time' || name === 'datetime2' || name === 'datetimeoffset')
    type = { name, scale: props[0] ?? 7 };
  else if (['char', 'varchar', 'nchar', 'nvarchar', 'binary', 'varbinary'].includes(name)) {
    const max = props.readUInt16LE(props.length - 2);
    const unicode = name === 'nchar' || name === 'nvarchar';
    type = { name: name as 'varchar', length: unicode ? max / 2 : max };
    return { type, value: readValue(type, new Cursor(Buffer.concat([u16(data.length), data]))) };
  } else type = { name: name as 'int' };
  // The fixed and scaled types are read as a one-byte length and the bytes, as parameters are.
  return { type, value: readValue(type, new Cursor(Buffer.concat([Buffer.from([data.length]), data]))) };
}

/** SQL_VARIANT_PROPERTY(value, property): BaseType, Precision, Scale, TotalBytes, Collation, MaxLength. */
export function variantProperty(instance: Buffer, property: string): string | number | null {
  const { type } = fromVariant(instance);
  switch (property.toLowerCase()) {
    case 'basetype':
      return type.name;
    // As sys.types gives them: int 10, float 53, money 19 and 4, datetime 23 and 3, text 0.
    case 'precision':
      return typeFacts(type).precision;
    case 'scale':
      return typeFacts(type).scale;
    case 'totalbytes':
      return instance.length;
    case 'collation':
      return 'length' in type && !type.name.includes('binary') ? 'SQL_Latin1_General_CP1_CI_AS' : null;
    case 'maxlength':
      return 'length' in type && type.length !== 'max'
        ? type.length * (type.name === 'nchar' || type.name === 'nvarchar' ? 2 : 1)
        : instance.length - 2 - (instance[1] ?? 0);
    default:
      return null;
  }
}
