// Db2 for i SQL tokens: ordinary identifiers fold to upper case, "delimited" ones keep theirs,
// strings in single quotes (X'…' for hex), `?` parameter markers.
import { IBMI_NATIONAL_CHARACTERS, ibmiFold } from '../../../shared/names';
import { sqlError } from '../system/messages';

// $ # @ as any CCSID shows them: which of them a name may hold is the system's rule (shortName).
const WORD = new RegExp(`^[A-Za-z_${IBMI_NATIONAL_CHARACTERS}][A-Za-z0-9_${IBMI_NATIONAL_CHARACTERS}]*`, 'u');

export type TokenKind = 'word' | 'quoted' | 'string' | 'hex' | 'number' | 'param' | 'op' | 'space';

export interface Token {
  kind: TokenKind;
  /** For words upper-cased; for quoted identifiers and strings the value without quotes. */
  value: string;
  text: string;
}

export function lex(sql: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const push = (kind: TokenKind, value: string, end: number) => {
    out.push({ kind, value, text: sql.slice(i, end) });
    i = end;
  };
  while (i < sql.length) {
    const c = sql[i] ?? '';
    const rest = sql.slice(i);
    let m: RegExpExecArray | null;
    if ((m = /^(\s+|--[^\n]*|\/\*[\s\S]*?\*\/)/.exec(rest))) push('space', ' ', i + (m[0] ?? '').length);
    else if ((m = /^[Xx]'([0-9A-Fa-f]*)'/.exec(rest))) push('hex', m[1] ?? '', i + (m[0] ?? '').length);
    else if (c === "'") {
      let j = i + 1;
      let value = '';
      for (;;) {
        if (j >= sql.length) throw sqlError(-104, sql.slice(i, i + 20), "'");
        if (sql[j] === "'") {
          if (sql[j + 1] === "'") {
            value += "'";
            j += 2;
            continue;
          }
          break;
        }
        value += sql[j++];
      }
      push('string', value, j + 1);
    } else if (c === '"') {
      // A delimited identifier: two quotes in a row stand for one quote of the name.
      let j = i + 1;
      let value = '';
      for (;;) {
        const end = sql.indexOf('"', j);
        if (end < 0) throw sqlError(-104, sql.slice(i, i + 20), '"');
        value += sql.slice(j, end);
        if (sql[end + 1] !== '"') {
          j = end + 1;
          break;
        }
        value += '"';
        j = end + 2;
      }
      push('quoted', value, j);
    } else if ((m = /^(\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+)/.exec(rest)))
      push('number', m[0] ?? '', i + (m[0] ?? '').length);
    else if ((m = WORD.exec(rest))) push('word', ibmiFold(m[0] ?? ''), i + (m[0] ?? '').length);
    else if (c === '?') push('param', '?', i + 1);
    else if ((m = /^(\|\||<>|<=|>=|!=|¬=)/.exec(rest))) push('op', m[0] ?? '', i + (m[0] ?? '').length);
    else push('op', c, i + 1);
  }
  return out;
}

/** Whether a name is written as an ordinary identifier would be (then shown upper-cased). */
export const isOrdinaryIdentifier = (name: string): boolean => WORD.exec(name)?.[0] === name;

export const solid = (tokens: Token[]) => tokens.filter((t) => t.kind !== 'space');
export const isWord = (t: Token | undefined, ...words: string[]) =>
  t?.kind === 'word' && words.includes(t.value);
export const isOp = (t: Token | undefined, op: string) => t?.kind === 'op' && t.value === op;
/** An identifier's name as Db2 stores it: ordinary ones upper-cased, delimited ones as written. */
export const nameOf = (t: Token | undefined) =>
  t && (t.kind === 'word' || t.kind === 'quoted') ? t.value : undefined;

/** The index of the parenthesis closing the one at `open`. */
export function closing(tokens: Token[], open: number): number {
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    if (isOp(tokens[i], '(')) depth++;
    else if (isOp(tokens[i], ')') && --depth === 0) return i;
  }
  throw sqlError(-104, '<END-OF-STATEMENT>', ')');
}

/** Splits a token list at top-level commas. */
export function splitCommas(tokens: Token[]): Token[][] {
  const out: Token[][] = [[]];
  let depth = 0;
  for (const t of tokens) {
    if (isOp(t, '(')) depth++;
    if (isOp(t, ')')) depth--;
    if (depth === 0 && isOp(t, ',')) out.push([]);
    else out.at(-1)?.push(t);
  }
  return out;
}
