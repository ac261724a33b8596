// The table a statement names, read from its tokens.
import type { SandboxDatabase } from './database';
import type { TableInfo } from './schema';
import { dotted, isWord, syntax, type Token } from './lexer';

/** Reads `[schema.]name` (or `db.schema.name`, `#temp`) starting at tokens[i]. */
export function readName(tokens: Token[], i: number): { schema?: string; name: string; next: number } {
  const { parts, next } = dotted(tokens, i);
  if (parts.length === 0) throw syntax(tokens[i]);
  return { schema: parts.length >= 2 ? parts.at(-2) : undefined, name: parts.at(-1) ?? '', next };
}

/** The table a dotted name (as `dotted` reads it) names: the last part, and the one before as schema. */
export function tableNamed(db: SandboxDatabase, parts: string[]): TableInfo | undefined {
  return db.table(parts.length >= 2 ? parts.at(-2) : undefined, parts.at(-1) ?? '');
}

/** The table a write names (INSERT INTO t, UPDATE t, DELETE [FROM] t, TRUNCATE TABLE t). */
export function writeTarget(s: Token[], db: SandboxDatabase): TableInfo | undefined {
  let i = 1;
  if (isWord(s[i], 'into', 'from', 'table')) i++;
  const { parts } = dotted(s, i);
  return tableNamed(db, parts);
}
