// An entity's row filter: a small expression over its source columns, parsed by a grammar of our
// own so no text of the DBA's ever reaches SQL as SQL. Comparisons (= <> != < <= > >=), IN, LIKE,
// IS [NOT] NULL, AND, OR, NOT and parentheses; literals are numbers, 'text' ('' for a quote), true
// and false. Evaluated as SQL does, in three values: a comparison with a null is unknown, and only a
// row the filter holds true for passes (docs/shaping.md). Free of Node and the DOM: the app shows a
// parse error beside the filter box, the engine evaluates it per row.

export type FilterLiteral =
  { kind: 'number'; text: string } | { kind: 'text'; text: string } | { kind: 'boolean'; value: boolean };
export type CompareOp = '=' | '<>' | '<' | '<=' | '>' | '>=';

export type FilterExpr =
  | { kind: 'and' | 'or'; left: FilterExpr; right: FilterExpr }
  | { kind: 'not'; inner: FilterExpr }
  | { kind: 'compare'; column: string; op: CompareOp; value: FilterLiteral }
  | { kind: 'in'; column: string; negated: boolean; values: FilterLiteral[] }
  | { kind: 'like'; column: string; negated: boolean; pattern: string }
  | { kind: 'isNull'; column: string; negated: boolean };

export class RowFilterError extends Error {
  constructor(
    message: string,
    /** The character offset the error is at (0-based), for the filter box to point to. */
    readonly at: number,
  ) {
    super(message);
  }
}

type Token =
  | { kind: 'word'; text: string; at: number }
  | { kind: 'name'; text: string; at: number }
  | { kind: 'number'; text: string; at: number }
  | { kind: 'text'; text: string; at: number }
  | { kind: 'symbol'; text: string; at: number }
  | { kind: 'end'; at: number };

const KEYWORDS = new Set(['and', 'or', 'not', 'in', 'like', 'is', 'null', 'true', 'false']);
const MAX_FILTER = 4000;

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source.charAt(i);
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    const at = i;
    const two = source.slice(i, i + 2);
    if (['<>', '!=', '<=', '>='].includes(two)) {
      tokens.push({ kind: 'symbol', text: two === '!=' ? '<>' : two, at });
      i += 2;
    } else if ('=<>(),'.includes(ch)) {
      tokens.push({ kind: 'symbol', text: ch, at });
      i++;
    } else if (ch === "'") {
      let text = '';
      i++;
      for (;;) {
        if (i >= source.length) throw new RowFilterError('a text literal is not closed', at);
        const c = source.charAt(i);
        if (c === "'" && source.charAt(i + 1) === "'") {
          text += "'";
          i += 2;
        } else if (c === "'") {
          i++;
          break;
        } else {
          text += c;
          i++;
        }
      }
      tokens.push({ kind: 'text', text, at });
    } else if (ch === '"' || ch === '[') {
      const close = ch === '"' ? '"' : ']';
      const end = source.indexOf(close, i + 1);
      if (end < 0) throw new RowFilterError(`a quoted column name is not closed with ${close}`, at);
      const text = source.slice(i + 1, end);
      if (text === '') throw new RowFilterError('a quoted column name is empty', at);
      tokens.push({ kind: 'name', text, at });
      i = end + 1;
    } else {
      const number = /^-?\d+(\.\d+)?/.exec(source.slice(i));
      const word = /^[\p{L}_@#$][\p{L}\p{N}_@#$]*/u.exec(source.slice(i));
      if (number) {
        tokens.push({ kind: 'number', text: number[0], at });
        i += number[0].length;
      } else if (word) {
        const lower = word[0].toLowerCase();
        tokens.push(
          KEYWORDS.has(lower) ? { kind: 'word', text: lower, at } : { kind: 'name', text: word[0], at },
        );
        i += word[0].length;
      } else throw new RowFilterError(`"${ch}" is not part of a filter`, at);
    }
  }
  tokens.push({ kind: 'end', at: source.length });
  return tokens;
}

const describeToken = (t: Token) => (t.kind === 'end' ? 'the end of the filter' : `"${t.text}"`);

/** Parses a filter; throws RowFilterError naming what was expected and where. */
export function parseRowFilter(source: string): FilterExpr {
  if (source.length > MAX_FILTER)
    throw new RowFilterError(`a filter is at most ${MAX_FILTER} characters`, MAX_FILTER);
  const tokens = tokenize(source);
  let p = 0;
  const peek = (): Token => tokens[p] as Token;
  const isWord = (w: string) => {
    const t = peek();
    return t.kind === 'word' && t.text === w;
  };
  const isSymbol = (s: string) => {
    const t = peek();
    return t.kind === 'symbol' && t.text === s;
  };
  const expect = (what: string, ok: boolean): Token => {
    const t = peek();
    if (!ok) throw new RowFilterError(`expected ${what}, found ${describeToken(t)}`, t.at);
    p++;
    return t;
  };
  const literal = (): FilterLiteral => {
    const t = peek();
    if (t.kind === 'number') return (p++, { kind: 'number', text: t.text });
    if (t.kind === 'text') return (p++, { kind: 'text', text: t.text });
    if (t.kind === 'word' && (t.text === 'true' || t.text === 'false'))
      return (p++, { kind: 'boolean', value: t.text === 'true' });
    throw new RowFilterError(`expected a number, a 'text' or true/false, found ${describeToken(t)}`, t.at);
  };
  const comparison = (): FilterExpr => {
    const name = expect('a column name', peek().kind === 'name');
    const column = name.kind === 'name' ? name.text : '';
    const t = peek();
    if (t.kind === 'symbol' && ['=', '<>', '<', '<=', '>', '>='].includes(t.text)) {
      p++;
      return { kind: 'compare', column, op: t.text as CompareOp, value: literal() };
    }
    if (isWord('is')) {
      p++;
      const negated = isWord('not') && p++ >= 0;
      expect('null after IS', isWord('null'));
      return { kind: 'isNull', column, negated };
    }
    const negated = isWord('not') && p++ >= 0;
    if (isWord('in')) {
      p++;
      expect('"(" after IN', isSymbol('('));
      const values = [literal()];
      while (isSymbol(',')) {
        p++;
        values.push(literal());
      }
      expect('"," or ")"', isSymbol(')'));
      return { kind: 'in', column, negated, values };
    }
    if (isWord('like')) {
      p++;
      const pattern = expect("a 'pattern' after LIKE", peek().kind === 'text');
      return { kind: 'like', column, negated, pattern: pattern.kind === 'text' ? pattern.text : '' };
    }
    throw new RowFilterError(
      `expected a comparison (= <> < <= > >=), IN, LIKE or IS NULL after ${column}, found ${describeToken(peek())}`,
      peek().at,
    );
  };
  const primary = (): FilterExpr => {
    if (isWord('not')) {
      p++;
      return { kind: 'not', inner: primary() };
    }
    if (isSymbol('(')) {
      p++;
      const inner = or();
      expect('")"', isSymbol(')'));
      return inner;
    }
    return comparison();
  };
  const and = (): FilterExpr => {
    let left = primary();
    while (isWord('and')) {
      p++;
      left = { kind: 'and', left, right: primary() };
    }
    return left;
  };
  const or = (): FilterExpr => {
    let left = and();
    while (isWord('or')) {
      p++;
      left = { kind: 'or', left, right: and() };
    }
    return left;
  };
  const expr = or();
  expect('and, or, or the end of the filter', peek().kind === 'end');
  return expr;
}

/** The column names a filter reads, as written, each once. */
export function filterColumns(expr: FilterExpr): string[] {
  const out = new Set<string>();
  const walk = (e: FilterExpr): void => {
    switch (e.kind) {
      case 'and':
      case 'or':
        walk(e.left);
        walk(e.right);
        return;
      case 'not':
        walk(e.inner);
        return;
      default:
        out.add(e.column);
    }
  };
  walk(expr);
  return [...out];
}

/** What a filter's comparisons take a column's values for. */
export type FilterColumnKind = 'number' | 'text' | 'boolean' | 'datetime' | 'date';

/**
 * A value as the evaluator compares it: a number's exact digits as text (never through a double),
 * text, a boolean, or a date and time as `YYYY-MM-DD HH:MM:SS.fffffff` (a date `YYYY-MM-DD`).
 */
export type FilterValue = string | boolean | null;

/** Whether the text is an exact decimal number (the evaluator's number form). */
const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?$/;

/** Exact comparison of two decimal texts: -1, 0 or 1; null when either is not a decimal. */
export function compareDecimal(a: string, b: string): number | null {
  const x = DECIMAL.exec(a);
  const y = DECIMAL.exec(b);
  if (!x || !y) return null;
  const norm = (m: RegExpExecArray) => {
    const whole = (m[2] ?? '').replace(/^0+/, '');
    const fraction = (m[3] ?? '').replace(/0+$/, '');
    const negative = m[1] === '-' && (whole !== '' || fraction !== '');
    return { negative, whole, fraction };
  };
  const u = norm(x);
  const v = norm(y);
  if (u.negative !== v.negative) return u.negative ? -1 : 1;
  const sign = u.negative ? -1 : 1;
  if (u.whole.length !== v.whole.length) return u.whole.length < v.whole.length ? -sign : sign;
  if (u.whole !== v.whole) return u.whole < v.whole ? -sign : sign;
  const width = Math.max(u.fraction.length, v.fraction.length);
  const f = u.fraction.padEnd(width, '0');
  const g = v.fraction.padEnd(width, '0');
  return f === g ? 0 : f < g ? -sign : sign;
}

/** A date or date-and-time literal as the evaluator compares it, or null when it is neither. */
export function dateTimeLiteral(text: string, kind: 'date' | 'datetime'): string | null {
  const m = /^(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,7}))?)?)?$/.exec(text);
  if (!m) return null;
  if (kind === 'date') return m[2] === undefined ? (m[1] ?? null) : null;
  return `${m[1]} ${m[2] ?? '00'}:${m[3] ?? '00'}:${m[4] ?? '00'}.${(m[5] ?? '').padEnd(7, '0')}`;
}

/** A column's date-and-time value text (`YYYY-MM-DD HH:MM:SS[.f…]`) at the evaluator's 7 digits. */
export function dateTimeValue(text: string): string {
  const [date = '', time = '00:00:00'] = text.split(/[ T]/);
  const [hms = '00:00:00', fraction = ''] = time.split('.');
  return `${date} ${hms}.${fraction.padEnd(7, '0').slice(0, 7)}`;
}

/**
 * Checks a filter against a table's columns: each column named exists (exactly, or else alone when
 * compared without case) and is compared with a literal of its kind. Answers the filter with the
 * columns' own names, or throws RowFilterError naming the column and the rule.
 */
export function bindRowFilter(
  expr: FilterExpr,
  columns: readonly { name: string; kind: FilterColumnKind | null }[],
): FilterExpr {
  const resolve = (name: string) => {
    const exact = columns.find((c) => c.name === name);
    if (exact) return exact;
    const alike = columns.filter((c) => c.name.toLowerCase() === name.toLowerCase());
    if (alike.length === 1 && alike[0]) return alike[0];
    throw new RowFilterError(
      alike.length > 1
        ? `column ${name} matches ${alike.map((c) => c.name).join(' and ')}: write it as the table does, in "quotes"`
        : `the table has no column ${name}`,
      0,
    );
  };
  const kindOf = (name: string) => {
    const c = resolve(name);
    if (c.kind === null) throw new RowFilterError(`column ${c.name} is of a type a filter cannot compare`, 0);
    return { name: c.name, kind: c.kind };
  };
  const check = (column: { name: string; kind: FilterColumnKind }, v: FilterLiteral) => {
    const fits =
      column.kind === 'number'
        ? v.kind === 'number'
        : column.kind === 'boolean'
          ? v.kind === 'boolean'
          : column.kind === 'text'
            ? v.kind === 'text'
            : v.kind === 'text' && dateTimeLiteral(v.text, column.kind) !== null;
    if (!fits) {
      const wanted =
        column.kind === 'number'
          ? 'a number'
          : column.kind === 'boolean'
            ? 'true or false'
            : column.kind === 'text'
              ? "a 'text'"
              : column.kind === 'date'
                ? "a date 'YYYY-MM-DD'"
                : "a date and time 'YYYY-MM-DD HH:MM:SS'";
      const given = v.kind === 'boolean' ? String(v.value) : v.kind === 'text' ? `'${v.text}'` : v.text;
      throw new RowFilterError(`column ${column.name} is compared with ${given}: it takes ${wanted}`, 0);
    }
  };
  const bind = (e: FilterExpr): FilterExpr => {
    switch (e.kind) {
      case 'and':
      case 'or':
        return { kind: e.kind, left: bind(e.left), right: bind(e.right) };
      case 'not':
        return { kind: 'not', inner: bind(e.inner) };
      case 'isNull':
        return { ...e, column: resolve(e.column).name };
      case 'like': {
        const c = kindOf(e.column);
        if (c.kind !== 'text')
          throw new RowFilterError(`column ${c.name} is not text: LIKE compares text only`, 0);
        return { ...e, column: c.name };
      }
      case 'compare': {
        const c = kindOf(e.column);
        check(c, e.value);
        if (c.kind === 'boolean' && e.op !== '=' && e.op !== '<>')
          throw new RowFilterError(`column ${c.name} is true or false: compare it with = or <>`, 0);
        return { ...e, column: c.name };
      }
      case 'in': {
        const c = kindOf(e.column);
        for (const v of e.values) check(c, v);
        return { ...e, column: c.name };
      }
    }
  };
  return bind(expr);
}

/** Trailing blanks do not count in a text comparison, as in SQL's (and a CHAR column's padding). */
const unpadded = (s: string) => s.replace(/ +$/, '');

function compareValues(kind: FilterColumnKind, value: string | boolean, literal: FilterLiteral): number {
  if (kind === 'boolean') return value === (literal.kind === 'boolean' && literal.value) ? 0 : 1;
  const v = String(value);
  const l = literal.kind === 'boolean' ? String(literal.value) : literal.text;
  if (kind === 'number') return compareDecimal(v, l) ?? Number(v) - Number(l);
  const [a, b] =
    kind === 'text'
      ? [unpadded(v), unpadded(l)]
      : kind === 'date'
        ? [v.slice(0, 10), l]
        : [dateTimeValue(v), dateTimeLiteral(l, 'datetime') ?? l];
  // Text compares by code point, case counting (docs/shaping.md): the same on every source.
  return a === b ? 0 : a < b ? -1 : 1;
}

/** Each LIKE pattern's expression, made once: a filter runs it on every row. */
const likePatterns = new Map<string, RegExp>();

function likeMatches(value: string, pattern: string): boolean {
  let re = likePatterns.get(pattern);
  if (!re) {
    const body = [...pattern]
      .map((c) => (c === '%' ? '.*' : c === '_' ? '.' : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('');
    re = new RegExp(`^${body}$`, 'su');
    if (likePatterns.size < 1000) likePatterns.set(pattern, re);
  }
  return re.test(unpadded(value));
}

function holds(op: CompareOp, c: number): boolean {
  switch (op) {
    case '=':
      return c === 0;
    case '<>':
      return c !== 0;
    case '<':
      return c < 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    case '>=':
      return c >= 0;
  }
}

const not3 = (v: boolean | null) => (v === null ? null : !v);

/**
 * The filter's verdict on a row in three values: true, false, or null (unknown, a null compared).
 * `valueOf` gives a column's value in the evaluator's form and `kindOf` its kind (as bound).
 */
export function evaluateRowFilter(
  expr: FilterExpr,
  valueOf: (column: string) => FilterValue,
  kindOf: (column: string) => FilterColumnKind,
): boolean | null {
  switch (expr.kind) {
    case 'and': {
      const l = evaluateRowFilter(expr.left, valueOf, kindOf);
      if (l === false) return false;
      const r = evaluateRowFilter(expr.right, valueOf, kindOf);
      return r === false ? false : l === null || r === null ? null : true;
    }
    case 'or': {
      const l = evaluateRowFilter(expr.left, valueOf, kindOf);
      if (l === true) return true;
      const r = evaluateRowFilter(expr.right, valueOf, kindOf);
      return r === true ? true : l === null || r === null ? null : false;
    }
    case 'not':
      return not3(evaluateRowFilter(expr.inner, valueOf, kindOf));
    case 'isNull': {
      const isNull = valueOf(expr.column) === null;
      return expr.negated ? !isNull : isNull;
    }
    case 'like': {
      const v = valueOf(expr.column);
      if (v === null) return null;
      const m = likeMatches(String(v), expr.pattern);
      return expr.negated ? !m : m;
    }
    case 'compare': {
      const v = valueOf(expr.column);
      if (v === null) return null;
      return holds(expr.op, compareValues(kindOf(expr.column), v, expr.value));
    }
    case 'in': {
      const v = valueOf(expr.column);
      if (v === null) return null;
      const kind = kindOf(expr.column);
      const found = expr.values.some((l) => compareValues(kind, v, l) === 0);
      return expr.negated ? !found : found;
    }
  }
}

/** A filter's parse error in words with its place, or null when it parses (or is empty: every row). */
export function rowFilterProblem(text: string): string | null {
  if (text.trim() === '') return null;
  try {
    parseRowFilter(text);
    return null;
  } catch (e) {
    if (e instanceof RowFilterError) return `${e.message} (at character ${e.at + 1})`;
    throw e;
  }
}

/** A column's value as a compiled filter reads it: numbers may come as numbers or bigints, exactly. */
export type RawFilterValue = FilterValue | number | bigint;

/** A literal as a number when the double holds it exactly (its text is the double's own). */
function exactNumber(text: string): number | null {
  const n = Number(text);
  return Number.isFinite(n) && Math.abs(n) <= Number.MAX_SAFE_INTEGER && String(n) === text.replace(/^\+/, '')
    ? n
    : null;
}

/** -1, 0 or 1 between a number column's value, as read, and a number literal. */
function numberComparer(literal: string): (v: number | bigint | string) => number {
  const exact = exactNumber(literal);
  const big = /^-?\d+$/.test(literal) ? BigInt(literal) : null;
  return (v) => {
    if (typeof v === 'number' && exact !== null) return v < exact ? -1 : v > exact ? 1 : 0;
    if (typeof v === 'bigint' && big !== null) return v < big ? -1 : v > big ? 1 : 0;
    const text = typeof v === 'string' ? v : String(v);
    return compareDecimal(text, literal) ?? Math.sign(Number(text) - Number(literal));
  };
}

/**
 * The filter made once into a function of a row, for the engine's hot path: the same verdicts as
 * evaluateRowFilter (a test holds both to SQLite), each column read by `read(column)` and each
 * number compared without text when the value and the literal allow it.
 */
export function compileRowFilter<R>(
  expr: FilterExpr,
  kindOf: (column: string) => FilterColumnKind,
  read: (column: string) => (row: R) => RawFilterValue,
): (row: R) => boolean | null {
  const compareOf = (column: string, literal: FilterLiteral): ((row: R) => number | null) => {
    const get = read(column);
    const kind = kindOf(column);
    if (kind === 'number' && literal.kind === 'number') {
      const cmp = numberComparer(literal.text);
      return (row) => {
        const v = get(row);
        return v === null ? null : cmp(typeof v === 'boolean' ? String(v) : v);
      };
    }
    return (row) => {
      const v = get(row);
      return v === null ? null : compareValues(kind, typeof v === 'boolean' ? v : String(v), literal);
    };
  };
  const build = (e: FilterExpr): ((row: R) => boolean | null) => {
    switch (e.kind) {
      case 'and': {
        const [l, r] = [build(e.left), build(e.right)];
        return (row) => {
          const a = l(row);
          if (a === false) return false;
          const b = r(row);
          return b === false ? false : a === null || b === null ? null : true;
        };
      }
      case 'or': {
        const [l, r] = [build(e.left), build(e.right)];
        return (row) => {
          const a = l(row);
          if (a === true) return true;
          const b = r(row);
          return b === true ? true : a === null || b === null ? null : false;
        };
      }
      case 'not': {
        const inner = build(e.inner);
        return (row) => not3(inner(row));
      }
      case 'isNull': {
        const get = read(e.column);
        return (row) => (get(row) === null) !== e.negated;
      }
      case 'like': {
        const get = read(e.column);
        return (row) => {
          const v = get(row);
          return v === null ? null : likeMatches(String(v), e.pattern) !== e.negated;
        };
      }
      case 'compare': {
        const c = compareOf(e.column, e.value);
        const op = e.op;
        return (row) => {
          const n = c(row);
          return n === null ? null : holds(op, n);
        };
      }
      case 'in': {
        const each = e.values.map((l) => compareOf(e.column, l));
        return (row) => {
          let found = false;
          for (const c of each) {
            const n = c(row);
            if (n === null) return null;
            if (n === 0) found = true;
          }
          return found !== e.negated;
        };
      }
    }
  };
  return build(expr);
}
