// A T-SQL lexer: enough to split batches, find names and literals, and translate to SQLite safely.
// Quotes follow T-SQL: 'it''s', N'…', [a]]b], "a""b"; comments -- and /* */ (nested, as T-SQL nests them).
import { SqlError } from './basics';

export type TokenKind =
  | 'word'
  | 'quoted'
  | 'string'
  | 'nstring'
  | 'number'
  | 'variable'
  | 'sysvar'
  | 'temp'
  | 'op'
  | 'space'
  | 'comment';

export interface Token {
  kind: TokenKind;
  text: string;
  /** For quoted names and strings: the value without quotes and escapes. */
  value: string;
}

export class LexError extends Error {}

// Character classes by code, not by a regular expression per character: a check at 1,000 tables
// sends statements of tens of thousands of characters.
const isSpace = (c: number) =>
  c === 32 || (c >= 9 && c <= 13) || c === 160 || (c > 255 && /\s/.test(String.fromCharCode(c)));
const isDigit = (c: number) => c >= 48 && c <= 57;
const isHex = (c: number) => isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
/** [A-Za-z_\u0080-\uffff]: where a word starts. */
const startsWord = (c: number) => isLetter(c) || c === 95 || c >= 0x80;
/** [\w$#@\u0080-\uffff]: what a word, variable or temp name holds. */
const inName = (c: number) => startsWord(c) || isDigit(c) || c === 36 || c === 35 || c === 64;
const TWO_CHARACTER_OPS = new Set(['<>', '<=', '>=', '!=', '!<', '!>', '::']);

export function lex(sql: string): Token[] {
  const tokens: Token[] = [];
  const n = sql.length;
  let i = 0;
  const at = (k: number) => (k < n ? sql.charCodeAt(k) : -1);
  const push = (kind: TokenKind, start: number, value?: string) => {
    const text = sql.slice(start, i);
    tokens.push({ kind, text, value: value ?? text });
  };
  const readQuoted = (close: string): string => {
    let value = '';
    i++;
    for (;;) {
      const end = sql.indexOf(close, i);
      if (end < 0) {
        value += sql.slice(i);
        throw new LexError(`Unclosed quotation mark after the character string '${value.slice(0, 40)}'.`);
      }
      value += sql.slice(i, end);
      if (sql[end + 1] === close) {
        value += close;
        i = end + 2;
        continue;
      }
      i = end + 1;
      return value;
    }
  };
  const skipName = () => {
    while (i < n && inName(sql.charCodeAt(i))) i++;
  };
  while (i < n) {
    const start = i;
    const ch = sql.charCodeAt(i);
    const next = at(i + 1);
    if (isSpace(ch)) {
      while (i < n && isSpace(sql.charCodeAt(i))) i++;
      push('space', start);
    } else if (ch === 45 && next === 45) {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? n : end;
      push('comment', start);
    } else if (ch === 47 && next === 42) {
      let depth = 0;
      do {
        if (sql.startsWith('/*', i)) {
          depth++;
          i += 2;
        } else if (sql.startsWith('*/', i)) {
          depth--;
          i += 2;
        } else if (i >= n) {
          throw new LexError("Missing end comment mark '*/'.");
        } else i++;
      } while (depth > 0);
      push('comment', start);
    } else if ((ch === 78 || ch === 110) && next === 39) {
      i++;
      const value = readQuoted("'");
      push('nstring', start, value);
    } else if (ch === 39) {
      const value = readQuoted("'");
      push('string', start, value);
    } else if (ch === 91) {
      const value = readQuoted(']');
      push('quoted', start, value);
    } else if (ch === 34) {
      const value = readQuoted('"');
      push('quoted', start, value);
    } else if (ch === 64 && next === 64) {
      i += 2;
      skipName();
      push('sysvar', start);
    } else if (ch === 64) {
      i++;
      skipName();
      push('variable', start);
    } else if (ch === 35) {
      i++;
      skipName();
      push('temp', start);
    } else if (ch === 48 && (next === 120 || next === 88)) {
      // A binary constant, 0x followed by hex digits (none: an empty varbinary).
      i += 2;
      while (i < n && isHex(sql.charCodeAt(i))) i++;
      push('number', start);
    } else if (isDigit(ch) || (ch === 46 && isDigit(next))) {
      while (i < n && (isDigit(sql.charCodeAt(i)) || sql.charCodeAt(i) === 46)) i++;
      const e = at(i);
      const sign = at(i + 1);
      if ((e === 101 || e === 69) && (isDigit(sign) || sign === 43 || sign === 45)) {
        i += 2;
        while (i < n && isDigit(sql.charCodeAt(i))) i++;
      }
      push('number', start);
    } else if (startsWord(ch)) {
      skipName();
      push('word', start);
    } else {
      i += TWO_CHARACTER_OPS.has(sql.slice(i, i + 2)) ? 2 : 1;
      push('op', start);
    }
  }
  return tokens;
}

const STATEMENT_START = new Set(
  'set select use waitfor raiserror throw print declare insert update delete create alter drop begin commit rollback exec execute merge truncate with if grant revoke deny save'.split(
    ' ',
  ),
);

/** Statements whose body follows on: what ends the wait for it. */
const STATEMENT_BODY: Record<string, Set<string>> = {
  insert: new Set(['select', 'values', 'exec', 'execute', 'default']),
  with: new Set(['select', 'insert', 'update', 'delete', 'merge']),
};

/** Splits a batch into statements: at semicolons, and where a line starts with a statement keyword. */
export function splitStatements(sql: string): Token[][] {
  const statements: Token[][] = [];
  let current: Token[] = [];
  let depth = 0;
  const meaningful = () => current.some((t) => t.kind !== 'space' && t.kind !== 'comment');
  // INSERT … and WITH … AS (…) are not whole until their body: a SELECT on the next line belongs to them.
  let awaiting: Set<string> | undefined;
  const previous = () => current.filter((x) => x.kind !== 'space' && x.kind !== 'comment').at(-1);
  for (const t of lex(sql)) {
    const word = t.kind === 'word' ? t.text.toLowerCase() : '';
    if (!meaningful() && word) awaiting = STATEMENT_BODY[word];
    else if (depth === 0 && awaiting?.has(word)) {
      awaiting = undefined;
      current.push(t);
      continue;
    }
    if (t.kind === 'op' && t.text === '(') depth++;
    if (t.kind === 'op' && t.text === ')') depth--;
    if (t.kind === 'op' && t.text === ';' && depth === 0) {
      if (meaningful()) statements.push(current);
      current = [];
      continue;
    }
    const lineStart =
      current.length > 0 && current.at(-1)?.kind === 'space' && current.at(-1)?.text.includes('\n');
    if (
      depth === 0 &&
      t.kind === 'word' &&
      lineStart &&
      STATEMENT_START.has(word) &&
      !isWord(previous(), 'union', 'all', 'except', 'intersect') &&
      meaningful()
    ) {
      awaiting = STATEMENT_BODY[word];
      statements.push(current);
      current = [];
    }
    current.push(t);
  }
  if (meaningful()) statements.push(current);
  return statements.map(trim);
}

/** Tokens without leading and trailing space or comments. */
export function trim(tokens: Token[]): Token[] {
  let a = 0;
  let b = tokens.length;
  while (a < b && (tokens[a]?.kind === 'space' || tokens[a]?.kind === 'comment')) a++;
  while (b > a && (tokens[b - 1]?.kind === 'space' || tokens[b - 1]?.kind === 'comment')) b--;
  return tokens.slice(a, b);
}

/** Splits at top-level commas. */
export function splitCommas(tokens: Token[]): Token[][] {
  const parts: Token[][] = [[]];
  let depth = 0;
  for (const t of tokens) {
    if (t.kind === 'op' && t.text === '(') depth++;
    if (t.kind === 'op' && t.text === ')') depth--;
    if (t.kind === 'op' && t.text === ',' && depth === 0) {
      parts.push([]);
      continue;
    }
    parts.at(-1)?.push(t);
  }
  return parts.map(trim);
}

export const isWord = (t: Token | undefined, ...words: string[]) =>
  t?.kind === 'word' && words.includes(t.text.toLowerCase());
export const isOp = (t: Token | undefined, op: string) => t?.kind === 'op' && t.text === op;
export const solid = (tokens: Token[]) => tokens.filter((t) => t.kind !== 'space' && t.kind !== 'comment');
/** The last `n` solid tokens before index `end`, in order: read backwards, so a rule costs no more near a long statement's end. */
export function solidBefore(tokens: readonly Token[], end: number, n: number): (Token | undefined)[] {
  const found: Token[] = [];
  for (let j = end - 1; j >= 0 && found.length < n; j--) {
    const t = tokens[j] as Token;
    if (t.kind !== 'space' && t.kind !== 'comment') found.unshift(t);
  }
  return [...Array<undefined>(n - found.length), ...found];
}
export const textOf = (tokens: Token[]) => tokens.map((t) => t.text).join('');
export const nameOf = (t: Token | undefined) => (t?.kind === 'quoted' ? t.value : (t?.text ?? ''));

/** Reads a dotted name (a.b.c, or #temp) at tokens[i]; answers its parts and the index after it. */
export function dotted(tokens: Token[], i: number): { parts: string[]; next: number } {
  const parts: string[] = [];
  let j = i;
  while (tokens[j]?.kind === 'word' || tokens[j]?.kind === 'quoted' || tokens[j]?.kind === 'temp') {
    parts.push(nameOf(tokens[j]));
    j++;
    if (!isOp(tokens[j], '.')) break;
    j++;
  }
  return { parts, next: j };
}

/** 102, as SQL Server words it, at the token it stopped on. */
export const syntax = (t: Token | undefined) =>
  new SqlError({
    number: 102,
    state: 1,
    class: 15,
    message: `Incorrect syntax near '${t?.text ?? 'end of statement'}'.`,
  });

/** The index of the `)` that closes the `(` at tokens[open]; 102 when none does. */
export function closing(tokens: Token[], open: number): number {
  let depth = 0;
  for (let k = open; k < tokens.length; k++) {
    if (isOp(tokens[k], '(')) depth++;
    if (isOp(tokens[k], ')') && --depth === 0) return k;
  }
  throw syntax(tokens[open]);
}
