// CL command strings as QCMDEXC takes them: `CMD KWD(value) KWD(v1 v2) KWD((a b) (c d))`, values
// in positional order before the first keyword, quoted strings keeping their case, names upper-cased
// (a–z only: the national characters of a name stay as they are, shared/names.ts).
import { IbmiError } from '../../../lib/ibmi/connection';
import { ibmiFold } from '../../../shared/names';

export type ClValue = { text: string; quoted: boolean } | ClValue[];

export interface ClCommand {
  name: string;
  positional: ClValue[];
  keywords: Map<string, ClValue>;
}

/** CPF0006, the escape message QCMDEXC sends for a command it cannot run, with the diagnostic first. */
export function commandError(diagnostic: string, text: string): IbmiError {
  return new IbmiError('CPF0006', `Errors occurred in command. ${diagnostic}: ${text}`);
}

class Reader {
  i = 0;
  constructor(readonly s: string) {}
  skip() {
    while (this.i < this.s.length && /[\s+]/.test(this.s[this.i] ?? '')) this.i++;
  }
  peek() {
    this.skip();
    return this.s[this.i];
  }
}

function value(r: Reader): ClValue {
  const c = r.peek();
  if (c === '(') {
    r.i++;
    const list: ClValue[] = [];
    while (r.peek() !== ')') {
      if (r.i >= r.s.length) throw commandError('CPD0013', 'A matching parenthesis not found.');
      list.push(value(r));
    }
    r.i++;
    return list;
  }
  if (c === "'") {
    let text = '';
    r.i++;
    for (;;) {
      if (r.i >= r.s.length) throw commandError('CPD0014', 'Quoted string not ended.');
      const ch = r.s[r.i++];
      if (ch === "'") {
        if (r.s[r.i] === "'") {
          text += "'";
          r.i++;
          continue;
        }
        break;
      }
      text += ch;
    }
    return { text, quoted: true };
  }
  const start = r.i;
  while (r.i < r.s.length && !/[\s()']/.test(r.s[r.i] ?? '')) r.i++;
  return { text: ibmiFold(r.s.slice(start, r.i)), quoted: false };
}

export function parseCommand(text: string): ClCommand {
  const r = new Reader(text);
  r.skip();
  const start = r.i;
  while (r.i < r.s.length && /[A-Za-z0-9_$#@/]/.test(r.s[r.i] ?? '')) r.i++;
  const name = r.s
    .slice(start, r.i)
    .toUpperCase()
    .replace(/^QSYS\//, '');
  if (!name) throw commandError('CPD0020', 'Character in CL command not valid.');
  const positional: ClValue[] = [];
  const keywords = new Map<string, ClValue>();
  while (r.peek() !== undefined) {
    const m = /^([A-Za-z][A-Za-z0-9]*)\(/.exec(r.s.slice(r.i));
    if (m) {
      r.i += (m[1] ?? '').length;
      const kw = (m[1] ?? '').toUpperCase();
      if (keywords.has(kw)) throw commandError('CPD0026', `Keyword ${kw} specified more than once.`);
      const v = value(r);
      keywords.set(kw, Array.isArray(v) && v.length === 1 && !Array.isArray(v[0]) ? v : v);
    } else {
      if (keywords.size > 0) throw commandError('CPD0009', 'Positional value not allowed after a keyword.');
      positional.push(value(r));
    }
  }
  return { name, positional, keywords };
}

/** The elements of a keyword's value: `KWD(a b)` → [a, b], `KWD(a)` → [a]. */
export const elements = (v: ClValue | undefined): ClValue[] =>
  v === undefined ? [] : Array.isArray(v) ? v : [v];

export const atom = (v: ClValue | undefined): string | undefined => {
  if (v === undefined) return undefined;
  if (Array.isArray(v)) return v.length === 1 ? atom(v[0]) : undefined;
  return v.text;
};
