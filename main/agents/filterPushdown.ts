// A row filter as the source's own SQL, so a copy reads only the rows it may need (docs/shaping.md,
// "Row filters"). The engine still decides every row read, so what is pushed may let more rows
// through than the filter does, never fewer: a part the source would decide otherwise than the engine
// (text under a case-insensitive collation, an order of characters, a pattern) is left to the engine.
//
// Exact parts (a number or a boolean compared, `is null`) go as they are. Text is compared by the
// source at least as loosely as by the engine (a collation may take 'a' for 'A', never 'a' for 'b'),
// so `=` and `in` may go where the filter needs them true, `<>` and `not in` where it needs them false
// (under a `not`). Every value is a bound parameter, made by the dialect; no text of the filter
// reaches the SQL but the columns' names, which the dialect quotes.
import type { CompareOp, FilterExpr, FilterLiteral } from '../../shared/rowFilter';

/** How far a source compares a column as the engine does (`nulls-only`: only whether it is null). */
export type PushedKind = 'exact-number' | 'boolean' | 'loose-text' | 'nulls-only';

export interface PushdownDialect {
  /**
   * The column as the query compares it, and how; null: the engine alone decides it. Loose text is
   * compared without its trailing blanks (RTRIM), as the engine compares, whether or not the source
   * pads a shorter text for `=` as SQL-92 says.
   */
  column(name: string): { sql: string; kind: PushedKind } | null;
  /** A parameter's place holding an exact decimal (its digits as text) of that precision and scale. */
  decimal(digits: string, precision: number, scale: number): string;
  text(value: string): string;
  boolean(value: boolean): string;
  /** The most digits the source's decimal type holds. */
  readonly maxPrecision: number;
}

/** `[sign]digits[.digits]` as SQL's exact decimal: its digits, precision and scale; null past `most`. */
function decimalOf(text: string, most: number): { digits: string; precision: number; scale: number } | null {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text);
  if (!m) return null;
  const whole = (m[2] ?? '').replace(/^0+/, '');
  const fraction = m[3] ?? '';
  const precision = Math.max(1, whole.length + fraction.length);
  if (precision > most || fraction.length > most) return null;
  const digits = `${m[1] === '-' ? '-' : ''}${whole || '0'}${fraction ? `.${fraction}` : ''}`;
  return { digits, precision, scale: fraction.length };
}

/**
 * A pushed part, written when the whole is known: a part left out binds nothing, and the parts that
 * stay bind their values in the order the SQL names them (a dialect with `?` places counts on it).
 */
type Written = () => string;

/** A literal to bind for a column of that kind; null when the pair is not pushed. */
function literal(d: PushdownDialect, kind: PushedKind, value: FilterLiteral): Written | null {
  if (kind === 'exact-number' && value.kind === 'number') {
    const n = decimalOf(value.text, d.maxPrecision);
    return n && (() => d.decimal(n.digits, n.precision, n.scale));
  }
  if (kind === 'boolean' && value.kind === 'boolean') return () => d.boolean(value.value);
  // Trailing blanks left out, as the engine compares (the column's too, by the dialect).
  if (kind === 'loose-text' && value.kind === 'text') {
    const text = value.text.replace(/ +$/, '');
    return () => d.text(text);
  }
  return null;
}

/** Whether a text comparison may go where the filter needs it `wanted` (true: holding, false: failing). */
const looseTextGoes = (op: CompareOp | 'in' | 'not in', wanted: boolean) =>
  wanted ? op === '=' || op === 'in' : op === '<>' || op === 'not in';

/**
 * The part of the filter the source decides, as SQL. Where the filter needs `expr` true (`wanted`),
 * the SQL is true at least wherever `expr` is; where it needs it false (under a `not`), the SQL is
 * false at least wherever `expr` is. Null: nothing to push (true, or false where `wanted` is false).
 */
function push(expr: FilterExpr, wanted: boolean, d: PushdownDialect): Written | null {
  switch (expr.kind) {
    case 'and':
    case 'or': {
      const l = push(expr.left, wanted, d);
      const r = push(expr.right, wanted, d);
      // Null is true where wanted, false where not: it absorbs `or` (wanted) and `and` (not wanted).
      const absorbs = (expr.kind === 'or') === wanted;
      if (l === null || r === null) return absorbs ? null : (l ?? r);
      return () => `(${l()} ${expr.kind === 'and' ? 'AND' : 'OR'} ${r()})`;
    }
    case 'not': {
      const inner = push(expr.inner, !wanted, d);
      return inner && (() => `NOT ${inner()}`);
    }
    case 'isNull': {
      const c = d.column(expr.column);
      return c && (() => `${c.sql} IS ${expr.negated ? 'NOT ' : ''}NULL`);
    }
    case 'compare': {
      const c = d.column(expr.column);
      if (!c || c.kind === 'nulls-only') return null;
      if (c.kind === 'loose-text' && !looseTextGoes(expr.op, wanted)) return null;
      if (c.kind === 'boolean' && expr.op !== '=' && expr.op !== '<>') return null;
      const value = literal(d, c.kind, expr.value);
      return value && (() => `(${c.sql} ${expr.op} ${value()})`);
    }
    case 'in': {
      const c = d.column(expr.column);
      if (!c || c.kind === 'boolean' || c.kind === 'nulls-only') return null;
      if (c.kind === 'loose-text' && !looseTextGoes(expr.negated ? 'not in' : 'in', wanted)) return null;
      const values = expr.values.map((v) => literal(d, c.kind, v));
      if (values.some((v) => v === null)) return null;
      return () =>
        `(${c.sql} ${expr.negated ? 'NOT IN' : 'IN'} (${values.map((v) => (v as Written)()).join(', ')}))`;
    }
    case 'like':
      return null;
  }
}

/** SQL the rows read must satisfy, or null when no part of the filter is pushed. */
export const pushdownSql = (expr: FilterExpr, d: PushdownDialect): string | null =>
  push(expr, true, d)?.() ?? null;
