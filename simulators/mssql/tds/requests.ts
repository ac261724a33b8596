// Client requests: SQL batches (MS-TDS 2.2.6.7) and RPC calls (2.2.6.6), each after ALL_HEADERS (2.2.5.3).
import { type SqlType, type SqlValue } from './dataTypes/sqlTypes';
import { Cursor } from './dataTypes/cursor';
import { readTypeInfo, readValue } from './dataTypes/values';

function skipAllHeaders(c: Cursor): void {
  const total = c.u32();
  if (total < 4) throw new Error('ALL_HEADERS is too short.');
  c.bytes(total - 4);
}

export function parseSqlBatch(data: Buffer): string {
  const c = new Cursor(data);
  skipAllHeaders(c);
  return data.subarray(c.offset).toString('utf16le');
}

/** Well-known procedures a client names by number instead of by name (MS-TDS 2.2.6.6). */
export const PROC_IDS: Record<number, string> = {
  1: 'sp_cursor',
  2: 'sp_cursoropen',
  3: 'sp_cursorprepare',
  4: 'sp_cursorexecute',
  5: 'sp_cursorprepexec',
  6: 'sp_cursorunprepare',
  7: 'sp_cursorfetch',
  8: 'sp_cursoroption',
  9: 'sp_cursorclose',
  10: 'sp_executesql',
  11: 'sp_prepare',
  12: 'sp_execute',
  13: 'sp_prepexec',
  14: 'sp_prepexecrpc',
  15: 'sp_unprepare',
};

export interface RpcParam {
  name: string;
  output: boolean;
  type: SqlType;
  value: SqlValue;
}
export interface RpcCall {
  procName: string;
  params: RpcParam[];
}

export function parseRpc(data: Buffer): RpcCall[] {
  const c = new Cursor(data);
  skipAllHeaders(c);
  const calls: RpcCall[] = [];
  while (c.offset < data.length) {
    const nameLength = c.u16();
    const procName =
      nameLength === 0xffff ? (PROC_IDS[c.u16()] ?? 'unknown') : c.bytes(nameLength * 2).toString('utf16le');
    c.u16(); // option flags (WITH RECOMPILE, NO_METADATA): no effect here
    const params: RpcParam[] = [];
    while (c.offset < data.length && data[c.offset] !== 0xff && data[c.offset] !== 0xfe) {
      const name = c.bVarchar();
      const status = c.u8();
      const type = readTypeInfo(c);
      params.push({ name, output: (status & 0x01) !== 0, type, value: readValue(type, c) });
    }
    calls.push({ procName, params });
    if (c.offset < data.length) c.u8(); // batch separator between calls
  }
  return calls;
}

/** Transaction manager requests (MS-TDS 2.2.6.9): how drivers begin, commit and roll back. */
export type TransactionRequest =
  | { kind: 'begin'; isolation: number; name: string }
  | { kind: 'commit' | 'rollback'; name: string; beginNew: boolean; isolation: number }
  | { kind: 'save'; name: string }
  | { kind: 'unsupported'; code: number };

export const ISOLATION = {
  UNCHANGED: 0,
  READ_UNCOMMITTED: 1,
  READ_COMMITTED: 2,
  REPEATABLE_READ: 3,
  SERIALIZABLE: 4,
  SNAPSHOT: 5,
} as const;

/** Transaction names count bytes, not characters (MS-TDS 2.2.6.9; tedious writes name.length * 2). */
export function parseTransactionManager(data: Buffer): TransactionRequest {
  const c = new Cursor(data);
  skipAllHeaders(c);
  const type = c.u16();
  if (type === 5) {
    const isolation = c.u8();
    return { kind: 'begin', isolation, name: c.offset < data.length ? c.bVarbyteText() : '' };
  }
  if (type === 7 || type === 8) {
    const name = c.offset < data.length ? c.bVarbyteText() : '';
    const flags = c.offset < data.length ? c.u8() : 0;
    const beginNew = (flags & 0x01) !== 0;
    const isolation = beginNew && c.offset < data.length ? c.u8() : 0;
    return { kind: type === 7 ? 'commit' : 'rollback', name, beginNew, isolation };
  }
  if (type === 9) return { kind: 'save', name: c.bVarbyteText() };
  return { kind: 'unsupported', code: type };
}
