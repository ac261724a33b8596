// Conversions to and from SQL Server's CLR types as CAST, CONVERT and a write into a column make them
// ("Data type conversion": a string converts to hierarchyid by Parse and to geography or geometry
// by STGeomFromText with SRID 4326 or 0; binary converts to the stored form and back unchanged; the
// types convert to a string by ToString). Other conversions are SQL Server's error 529.
import type { SqlType, SqlValue } from '../tds/dataTypes/sqlTypes';
import { statementError } from './basics';
import { hierarchyIdBytes, hierarchyIdText } from './clrHierarchyid';
import {
  spatialFromBytes,
  spatialFromText,
  spatialPoint,
  spatialSrid,
  spatialText,
  type SpatialKind,
} from './clrSpatial';

export type ClrTypeName = 'hierarchyid' | 'geography' | 'geometry';
export const isClrType = (t: SqlType | undefined): t is { name: ClrTypeName } =>
  t !== undefined && (t.name === 'hierarchyid' || t.name === 'geography' || t.name === 'geometry');

const isString = (t: SqlType) => ['char', 'varchar', 'nchar', 'nvarchar', 'text', 'ntext'].includes(t.name);
const isBinary = (t: SqlType) => ['binary', 'varbinary', 'image'].includes(t.name);
const refused = (from: SqlType, to: SqlType) =>
  statementError(529, `Explicit conversion from data type ${from.name} to ${to.name} is not allowed.`);

/** A value of type `from` as a value of the CLR type `to`, in its stored bytes. */
export function toClr(from: SqlType, value: SqlValue, to: { name: ClrTypeName }): Buffer {
  if (isClrType(from)) {
    if (from.name !== to.name) throw refused(from, to);
    return value as Buffer;
  }
  if (Buffer.isBuffer(value) && (isBinary(from) || typeof value !== 'string'))
    return to.name === 'hierarchyid'
      ? hierarchyIdBytes(hierarchyIdText(value))
      : spatialFromBytes(to.name, value);
  if (!isString(from) || typeof value !== 'string') throw refused(from, to);
  return to.name === 'hierarchyid' ? hierarchyIdBytes(value.trim()) : spatialFromText(to.name, value);
}

/** ToString() of a stored CLR value: the path, or the WKT. */
export function clrText(type: ClrTypeName, bytes: Buffer): string {
  return type === 'hierarchyid' ? hierarchyIdText(bytes) : spatialText(type as SpatialKind, bytes);
}

const numberArg = (v: unknown, kind: string): number => {
  const n = typeof v === 'bigint' ? Number(v) : typeof v === 'number' ? v : Number(v);
  if (v === null || !Number.isFinite(n))
    throw statementError(
      6522,
      `A .NET Framework error occurred during execution of user-defined routine or aggregate "${kind}": \nSystem.ArgumentException: a number was expected.`,
    );
  return n;
};

/** hierarchyid::Parse/GetRoot, geography::Point/STGeomFromText/STGeomFromWKB, geometry likewise. */
export function clrStatic(type: ClrTypeName, method: string, args: unknown[]): Buffer | null {
  if (args.some((a) => a === null)) return null;
  if (type === 'hierarchyid') {
    if (method === 'getroot') return Buffer.alloc(0);
    if (method === 'parse') return hierarchyIdBytes(String(args[0]).trim());
  } else {
    if (method === 'point')
      return spatialPoint(type, numberArg(args[0], type), numberArg(args[1], type), numberArg(args[2], type));
    if (method === 'stgeomfromtext') return spatialFromText(type, String(args[0]), numberArg(args[1], type));
    if (method === 'parse') return spatialFromText(type, String(args[0]));
  }
  throw statementError(
    6506,
    `Could not find method '${method}' for type '${type === 'hierarchyid' ? 'Microsoft.SqlServer.Types.SqlHierarchyId' : type === 'geography' ? 'Microsoft.SqlServer.Types.SqlGeography' : 'Microsoft.SqlServer.Types.SqlGeometry'}' in assembly 'Microsoft.SqlServer.Types'`,
  );
}

/** An instance method or property of a stored value: ToString, STAsText, STSrid, GetLevel. */
export function clrMember(type: ClrTypeName, value: unknown, member: string): string | number | null {
  if (!Buffer.isBuffer(value)) return null;
  if (member === 'tostring' || (member === 'stastext' && type !== 'hierarchyid')) return clrText(type, value);
  if (type === 'hierarchyid' && member === 'getlevel') {
    const text = hierarchyIdText(value);
    return text === '/' ? 0 : text.split('/').length - 2;
  }
  if (type !== 'hierarchyid' && member === 'stsrid') return spatialSrid(type, value);
  throw statementError(
    6506,
    `Could not find method '${member}' for type '${type}' in assembly 'Microsoft.SqlServer.Types'`,
  );
}
