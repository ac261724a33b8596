// decimal, numeric, money and smallmoney keep every digit, as SQL Server does (38 of them for a
// decimal). SQLite's NUMERIC affinity would turn a long value into a double (15 significant digits),
// so these columns have no affinity and each value is stored by this rule: as a number when a double
// holds it exactly (so it compares and sorts as a number), otherwise as its exact digits at the
// column's scale. Known limit: a value stored as digits compares with numbers as SQLite compares text.
import { decimalToUnscaled, exactText, unscaledToDecimal, type SqlType, type SqlValue } from '../tds/types';

export const isExactNumeric = (t: SqlType | undefined): boolean =>
  t !== undefined &&
  (t.name === 'decimal' || t.name === 'numeric' || t.name === 'money' || t.name === 'smallmoney');

/** The scale a value of an exact numeric type is kept at. */
export const scaleOf = (t: SqlType): number => ('scale' in t ? t.scale : 4);

/** Whether a double holds this decimal text exactly (compared at the text's own digits). */
function doubleHolds(text: string, n: number): boolean {
  // A double JavaScript would show with an exponent (1e-10) is kept as digits: CONVERT shows those.
  if (!Number.isFinite(n) || /e/i.test(String(n))) return false;
  const places = (/\.(\d*)/.exec(text)?.[1] ?? '').length;
  return decimalToUnscaled(exactText(n), places) === decimalToUnscaled(text, places);
}

/** A value bound or written into a column of an exact numeric type, in the form SQLite should keep. */
export function storedExact(t: SqlType, v: SqlValue): SqlValue {
  if (typeof v !== 'string' || !/^\s*[+-]?(\d+\.?\d*|\.\d+)\s*$/.test(v)) return v;
  const text = unscaledToDecimal(decimalToUnscaled(v, scaleOf(t)), scaleOf(t));
  const n = Number(text);
  return doubleHolds(text, n) ? n : text;
}

/** A stored value as the exact digits at the type's scale (`12.50` for decimal(9,2)). */
export function exactDigits(t: SqlType, v: SqlValue): SqlValue {
  if (v === null || Buffer.isBuffer(v) || typeof v === 'boolean') return v;
  return unscaledToDecimal(decimalToUnscaled(exactText(v), scaleOf(t)), scaleOf(t));
}

/** A numeric literal of T-SQL text that a double would round (more digits than it holds). */
export function roundedByDouble(literal: string): boolean {
  if (!/^(\d+\.?\d*|\.\d+)$/.test(literal)) return false;
  // An integer within bigint's range is SQLite's exact 64-bit integer already.
  if (!literal.includes('.') && BigInt(literal) <= 9223372036854775807n) return false;
  return !doubleHolds(literal, Number(literal));
}
