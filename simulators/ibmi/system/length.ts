// LENGTH(column) as Db2 for i answers it (SQL reference, LENGTH): a string's bytes in its column's
// CCSID, a graphic string's double-byte characters, a binary string's bytes; XML is refused (SQL0171,
// by the translation).
// Other columns and expressions are left to SQLite's LENGTH, as before.
import type { Database } from 'better-sqlite3';
import { encodeText } from '../../../lib/ibmi/ccsid';
import type { FieldType } from '../../../lib/ibmi/recordImage';

/** The column types LENGTH is answered for here; a value of another type passes through unchanged. */
export function lengthKind(t: FieldType): string | undefined {
  switch (t.kind) {
    case 'char':
    case 'varchar':
      return `bytes:${t.ccsid}`;
    case 'graphic':
    case 'vargraphic':
      return `graphic:${t.ccsid}`;
    case 'lob':
      if (t.lob === 'XML') return 'xml';
      return t.lob === 'BLOB' ? 'binary' : `${t.lob === 'DBCLOB' ? 'graphic' : 'bytes'}:${t.ccsid}`;
    case 'hex':
    case 'varhex':
      return 'binary';
    default:
      return undefined;
  }
}

export function registerLength(db: Database): void {
  db.function('DB2_LENGTH', { deterministic: true }, (value: unknown, kind: unknown) => {
    if (value === null) return null;
    const [how, ccsid] = String(kind).split(':');
    if (Buffer.isBuffer(value)) return value.length;
    const bytes = encodeText(String(value), Number(ccsid)).length;
    return how === 'graphic' ? bytes / 2 : bytes;
  });
}
