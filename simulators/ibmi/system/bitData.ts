// CAST(column AS CHAR(n) FOR BIT DATA) and VARCHAR(n) FOR BIT DATA, as Db2 for i casts a character
// column to bit data: the bytes as stored in the column's CCSID, no conversion (CCSID 65535). The
// sandbox keeps character columns as the text SQL reads, so the bytes are that text encoded back in
// the column's CCSID — exact for a single-byte CCSID, where every byte has a character.
import type { Database } from 'better-sqlite3';
import { encodeText } from '../../../lib/ibmi/ccsid';

/** EBCDIC blank: a fixed-length result is padded with it, as the column's own blanks are. */
const PAD = 0x40;

export function registerBitData(db: Database): void {
  db.function(
    'DB2_BIT_DATA',
    { deterministic: true },
    (value: unknown, ccsid: unknown, length: unknown, fixed: unknown) => {
      if (value === null) return null;
      const bytes = Buffer.isBuffer(value) ? value : Buffer.from(encodeText(String(value), Number(ccsid)));
      const n = Number(length);
      if (bytes.length > n) return bytes.subarray(0, n);
      return Number(fixed) === 1 && bytes.length < n
        ? Buffer.concat([bytes, Buffer.alloc(n - bytes.length, PAD)])
        : bytes;
    },
  );
}
