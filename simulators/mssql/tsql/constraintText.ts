// The text of constraints, shared by CREATE TABLE, ALTER TABLE and DEFAULT: a CHECK's expression as
// SQLite reads it, and the names SQL Server gives unnamed constraints.
import { randomBytes } from 'node:crypto';
import { quote } from './basics';
import { isOp, isWord, syntax, type Token } from './lexer';

/** A CHECK's T-SQL expression as SQLite reads it: bracketed names quoted, N'…' as '…'. */
export function checkSql(expression: Token[]): string {
  return expression
    .map((t) =>
      t.kind === 'quoted'
        ? quote(t.value)
        : t.kind === 'nstring'
          ? `'${t.value.replaceAll("'", "''")}'`
          : t.text,
    )
    .join('')
    .trim();
}

/** A name as SQL Server makes one for an unnamed constraint: CK__Table__Colum__3A81B327. */
export function generatedName(kind: 'CK' | 'UQ' | 'PK' | 'DF', table: string, column?: string): string {
  const hex = randomBytes(4).toString('hex').toUpperCase();
  return `${kind}__${table.slice(0, 8)}__${column ? `${column.slice(0, 5)}__` : ''}${hex}`;
}

/** The expression of `CHECK ( … )` at tokens[at], and the index after its closing parenthesis. */
export function checkAt(s: Token[], at: number): { sql: string; next: number } {
  if (!isWord(s[at], 'check') || !isOp(s[at + 1], '(')) throw syntax(s[at]);
  let depth = 0;
  for (let k = at + 1; k < s.length; k++) {
    if (isOp(s[k], '(')) depth++;
    if (isOp(s[k], ')') && --depth === 0) return { sql: checkSql(s.slice(at + 2, k)), next: k + 1 };
  }
  throw syntax(s[at]);
}
