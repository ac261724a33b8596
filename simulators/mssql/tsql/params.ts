// A statement's parameters (sp_executesql's, or DECLAREd variables): bound by name, and read as
// constants where T-SQL wants a value at translation time.
import type { SqlType, SqlValue } from '../tds/dataTypes/sqlTypes';
import { isWord, solid, syntax, textOf, type Token } from './lexer';
import { undeclared } from './basics';
import { isExactNumeric, storedExact } from './exactDecimals';

export type Parameters = Map<string, { type: SqlType; value: SqlValue }>;

export const paramName = (variable: string) => `p_${variable.slice(1).toLowerCase().replace(/[^\w]/g, '_')}`;

export function bindings(params: Parameters): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, { type, value }] of params)
    out[paramName(name)] =
      typeof value === 'boolean'
        ? value
          ? 1n
          : 0n
        : isExactNumeric(type)
          ? storedExact(type, value)
          : value;
  return out;
}

/** A literal or parameter value at translation time (OBJECT_ID, context), for names and blobs. */
export function constant(tokens: Token[], params: Parameters): SqlValue {
  const t = solid(tokens)[0];
  if (!t || isWord(t, 'null')) return null;
  if (t.kind === 'variable') {
    const p = params.get(t.text.toLowerCase());
    if (!p) throw undeclared(t.text);
    return p.value;
  }
  if (t.kind === 'string' || t.kind === 'nstring') return t.value;
  if (t.kind === 'number' && /^0x[0-9a-f]*$/i.test(textOf(solid(tokens))))
    return Buffer.from(textOf(solid(tokens)).slice(2), 'hex');
  if (t.kind === 'number') return t.text;
  throw syntax(t);
}
