// What a column's declared type says of its values' size, read once here for every user: the
// message-size check (an event's widest value) and the copies (a first chunk's memory).
import type { ColumnShape } from './source';

/** Types whose values have no bound in the declaration: `(max)`, LOBs, xml, variants, spatial. */
const UNBOUNDED =
  /\(max\)|^(text|ntext|image|xml|sql_variant|geography|geometry|hierarchyid|clob|blob|dbclob)\b/i;

export const hasNoBound = (c: ColumnShape): boolean => UNBOUNDED.test(c.sourceType);

/** The declared kind and length: `nvarchar(50)` is text of 50, `binary(16)` bytes of 16. */
export function declaredSize(c: ColumnShape): { kind: 'text' | 'binary' | 'other'; length: number } {
  const type = c.sourceType.toLowerCase();
  const length = Number(/\((\d+)/.exec(type)?.[1] ?? 0);
  if (/binary|rowid/.test(type)) return { kind: 'binary', length: length || 40 };
  if (/char|graphic|text/.test(type)) return { kind: 'text', length: length || 1 };
  return { kind: 'other', length };
}

/**
 * The most memory one row of these columns can take as the agents hand rows on (text two bytes a
 * character, bytes as they are, a number, date or decimal's text under 96 bytes); Infinity when a
 * column has no bound.
 */
export function rowBytesBound(columns: readonly ColumnShape[]): number {
  let n = 0;
  for (const c of columns) {
    if (hasNoBound(c)) return Infinity;
    const { kind, length } = declaredSize(c);
    n += kind === 'text' ? length * 2 : kind === 'binary' ? length : 96;
  }
  return n;
}
