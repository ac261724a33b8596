// Division and modulo in table statements as T-SQL computes them: SQLite answers NULL for x / 0 and
// x % 0 where SQL Server fails with 8134 ("Divide by zero error encountered."). Each `a / b` and
// `a % b` becomes a call of the sandbox's TSQL_DIVIDE or TSQL_MODULO before translation; the operands
// follow T-SQL's precedence (* / % bind tighter than + and -, left to right).
import type { SqlValue } from '../tds/dataTypes/sqlTypes';
import { statementError } from './basics';
import { isOp, isWord, type Token } from './lexer';

const op = (text: string): Token => ({ kind: 'op', text, value: text });
const word = (text: string): Token => ({ kind: 'word', text, value: text });
const skip = (t: Token | undefined) => t?.kind === 'space' || t?.kind === 'comment';

/** Where the primary ending at `end` starts: a literal, variable, column, call or parenthesis. */
function primaryStart(tokens: Token[], end: number): number {
  let k = end;
  const t = tokens[k];
  if (isOp(t, ')')) {
    let depth = 0;
    for (; k >= 0; k--) {
      if (isOp(tokens[k], ')')) depth++;
      if (isOp(tokens[k], '(') && --depth === 0) break;
    }
    // A function's name before its parentheses.
    let j = k - 1;
    while (skip(tokens[j])) j--;
    const before = tokens[j];
    if (
      (before?.kind === 'word' || before?.kind === 'quoted') &&
      !isWord(
        before,
        'and',
        'or',
        'not',
        'in',
        'select',
        'where',
        'when',
        'then',
        'else',
        'on',
        'by',
        'exists',
      )
    )
      k = j;
  }
  // Dotted names: t.col, dbo.t.col.
  while (isOp(tokens[k - 1], '.') && (tokens[k - 2]?.kind === 'word' || tokens[k - 2]?.kind === 'quoted'))
    k -= 2;
  return k;
}

/** Where the primary starting at `start` ends (a unary sign included). */
function primaryEnd(tokens: Token[], start: number): number {
  let k = start;
  if (isOp(tokens[k], '-') || isOp(tokens[k], '+')) {
    k++;
    while (skip(tokens[k])) k++;
  }
  while (
    (tokens[k]?.kind === 'word' || tokens[k]?.kind === 'quoted') &&
    isOp(tokens[k + 1], '.') &&
    (tokens[k + 2]?.kind === 'word' || tokens[k + 2]?.kind === 'quoted')
  )
    k += 2;
  let j = k + 1;
  while (skip(tokens[j])) j++;
  const open = isOp(tokens[k], '(') ? k : tokens[k]?.kind === 'word' && isOp(tokens[j], '(') ? j : -1;
  if (open < 0) return k;
  let depth = 0;
  for (let m = open; m < tokens.length; m++) {
    if (isOp(tokens[m], '(')) depth++;
    if (isOp(tokens[m], ')') && --depth === 0) return m;
  }
  return tokens.length - 1;
}

/** The statement with every `/` and `%` made a call; the tokens as given when there is none. */
export function divisions(tokens: Token[]): Token[] {
  let out = tokens;
  for (;;) {
    const at = out.findIndex((t) => isOp(t, '/') || isOp(t, '%'));
    if (at < 0) return out;
    let left = at - 1;
    while (skip(out[left])) left--;
    let right = at + 1;
    while (skip(out[right])) right++;
    // Left to right: a * b / c divides a * b (earlier / and % are calls already).
    let leftStart = primaryStart(out, left);
    for (;;) {
      let star = leftStart - 1;
      while (skip(out[star])) star--;
      if (!isOp(out[star], '*')) break;
      let before = star - 1;
      while (skip(out[before])) before--;
      const t = out[before];
      if (!t || (t.kind === 'word' && !isOp(out[before + 1], '.') && isWord(t, 'select', 'distinct', 'top')))
        break;
      if (isOp(t, '(') || isOp(t, ',')) break;
      leftStart = primaryStart(out, before);
    }
    const rightEnd = primaryEnd(out, right);
    const name = isOp(out[at], '/') ? 'TSQL_DIVIDE' : 'TSQL_MODULO';
    out = [
      ...out.slice(0, leftStart),
      word(name),
      op('('),
      ...out.slice(leftStart, left + 1),
      op(','),
      ...out.slice(right, rightEnd + 1),
      op(')'),
      ...out.slice(rightEnd + 1),
    ];
  }
}

const isZero = (v: SqlValue) =>
  v === 0 || v === 0n || (typeof v === 'string' && /^\s*[+-]?0*\.?0*\s*$/.test(v) && /0/.test(v));

/** a / b or a % b: integers stay integers (truncated, as T-SQL divides them); 8134 for zero. */
export function divide(a: SqlValue, b: SqlValue, modulo: boolean): SqlValue {
  if (a === null || b === null) return null;
  if (isZero(b)) throw statementError(8134, 'Divide by zero error encountered.');
  if (typeof a === 'bigint' && typeof b === 'bigint') return modulo ? a % b : a / b;
  const x = Number(a);
  const y = Number(b);
  return modulo ? x % y : x / y;
}
