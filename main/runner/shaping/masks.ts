// A column's mask as a function of its values, and the column as the target then declares it. A mask
// works on the value's portable form (the text a target would write), so a copy and a change of one
// value mask alike whichever driver read it, and a hash of 10.50 is the same from SQL Server and IBM i.
import { Buffer } from 'node:buffer';
import type { Mask } from '../../../shared/shaping';
import type { ColumnShape, RowValue } from '../../agents/source';
import { portable } from '../../agents/targetValues';
import { hmacSha256 } from './hmacSha256';

/** The hash's output: 64 lower-case hex digits. */
const HASHED_TYPE = 'varchar(64)';

/** The column as the target declares it once masked: text for a hash or a constant, nullable for null. */
export function maskedColumn(c: ColumnShape, mask: Mask): ColumnShape {
  switch (mask.kind) {
    case 'hash':
      return { ...c, sourceType: HASHED_TYPE };
    case 'constant':
      return { ...c, sourceType: `nvarchar(${Math.max(1, [...mask.value].length)})` };
    case 'null':
      return { ...c, nullable: true };
    default:
      return c;
  }
}

const stars = (n: number) => '*'.repeat(Math.max(0, n));

/** The function a column's values go through; null stays null under every mask. */
export function maskWriter(c: ColumnShape, mask: Mask, salt: string | undefined): (v: RowValue) => RowValue {
  const text = (v: RowValue): string => {
    const p = portable(c, v);
    return p instanceof Uint8Array ? Buffer.from(p).toString('utf8') : String(p);
  };
  switch (mask.kind) {
    case 'hash': {
      if (salt === undefined) throw new Error(`column ${c.name} is hashed, but the source has no mask salt`);
      const hmac = hmacSha256(salt);
      return (v) => {
        if (v === null) return null;
        const p = portable(c, v);
        return p instanceof Uint8Array ? hmac.bytes(p) : hmac.text(String(p));
      };
    }
    case 'constant':
      return (v) => (v === null ? null : mask.value);
    case 'null':
      return () => null;
    case 'keepFirst':
      return (v) => {
        if (v === null) return null;
        const chars = [...text(v)];
        return chars.slice(0, mask.chars).join('') + stars(chars.length - mask.chars);
      };
    case 'keepLast':
      return (v) => {
        if (v === null) return null;
        const chars = [...text(v)];
        const kept = Math.min(mask.chars, chars.length);
        return stars(chars.length - kept) + chars.slice(chars.length - kept).join('');
      };
    case 'truncate':
      return (v) => (v === null ? null : [...text(v)].slice(0, mask.chars).join(''));
  }
}
