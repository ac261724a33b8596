// The row filter's grammar and evaluator: parse errors say where and what was expected, a column of
// the wrong kind is refused by name, and — property-tested — every filter our grammar accepts decides
// every row exactly as SQLite decides the same expression over the same row (SQL's three values: a
// comparison with a null is unknown, NOT of unknown is unknown, only true passes).
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { filterExpressions } from '../helpers/filterArbitrary';
import { afterAll, describe, expect, it } from 'vitest';
import {
  bindRowFilter,
  compareDecimal,
  compileRowFilter,
  evaluateRowFilter,
  parseRowFilter,
  RowFilterError,
  type FilterColumnKind,
  type FilterExpr,
  type FilterLiteral,
} from '../../shared/rowFilter';
import { entitySchema } from '../../shared/controlApi';

const KINDS: Record<string, FilterColumnKind> = { n: 'number', s: 'text', b: 'boolean' };
/** The engine's own path: the filter compiled once, numbers read as numbers (no text on the way). */
const decideCompiled = (text: string, row: Record<string, number | string | boolean | null>) =>
  compileRowFilter(
    bindRowFilter(
      parseRowFilter(text),
      Object.entries(KINDS).map(([name, kind]) => ({ name, kind })),
    ),
    (c) => KINDS[c] ?? 'text',
    (c) => (r: typeof row) => r[c] ?? null,
  )(row);
const decide = (text: string, row: Record<string, string | boolean | null>) =>
  evaluateRowFilter(
    bindRowFilter(
      parseRowFilter(text),
      Object.entries(KINDS).map(([name, kind]) => ({ name, kind })),
    ),
    (c) => row[c] ?? null,
    (c) => KINDS[c] ?? 'text',
  );

describe('the row filter grammar', () => {
  it('reads comparisons, IN, LIKE, IS NULL, AND, OR, NOT and parentheses', () => {
    expect(decide("n >= 10 and s like 'a%'", { n: '12', s: 'alpha' })).toBe(true);
    expect(decide("n >= 10 and s like 'a%'", { n: '9.99', s: 'alpha' })).toBe(false);
    expect(decide('n in (1, 2, 3) or not (n < 100)', { n: '150', s: null })).toBe(true);
    expect(decide("s is not null and s not in ('x', 'y')", { n: null, s: 'z' })).toBe(true);
    expect(decide('b = true', { b: true })).toBe(true);
    expect(decide('n = 10.50', { n: '10.5' })).toBe(true);
    expect(decide('n <> 10', { n: null })).toBeNull();
    expect(decide("NOT s LIKE 'a_c'", { s: 'abc' })).toBe(false);
  });

  it('compares text exactly, character by character, with trailing blanks left out as SQL does', () => {
    expect(decide("s = 'abc'", { s: 'abc   ' })).toBe(true);
    expect(decide("s = 'ABC'", { s: 'abc' })).toBe(false);
    expect(decide("s < 'b'", { s: 'a' })).toBe(true);
    // A backslash is a character like any other: LIKE has no escape in this grammar.
    expect(decide("s like '100\\%'", { s: '100\\ and more' })).toBe(true);
  });

  it('keeps a quote and a statement inside a literal as text, never as SQL', () => {
    const text = "s = '''; DROP TABLE orders; --'";
    expect(decide(text, { s: "'; DROP TABLE orders; --" })).toBe(true);
    expect(parseRowFilter(text)).toEqual({
      kind: 'compare',
      column: 's',
      op: '=',
      value: { kind: 'text', text: "'; DROP TABLE orders; --" },
    });
  });

  it('says where a filter stops making sense, and what was expected there', () => {
    const at = (text: string) => {
      try {
        parseRowFilter(text);
        return null;
      } catch (e) {
        return e instanceof RowFilterError ? { at: e.at, message: e.message } : null;
      }
    };
    expect(at('n >')).toEqual({
      at: 3,
      message: "expected a number, a 'text' or true/false, found the end of the filter",
    });
    expect(at("s = 'open")).toEqual({ at: 4, message: 'a text literal is not closed' });
    expect(at('n = 1 n = 2')?.message).toBe('expected and, or, or the end of the filter, found "n"');
    expect(at('n ; 1')?.message).toBe('";" is not part of a filter');
    expect(at('(n = 1')?.message).toBe('expected ")", found the end of the filter');
  });

  it('refuses a column the table lacks, or a literal of another kind, by name', () => {
    const columns = [
      { name: 'Amount', kind: 'number' as const },
      { name: 'Name', kind: 'text' as const },
      { name: 'Photo', kind: null },
    ];
    const bind = (text: string) => () => bindRowFilter(parseRowFilter(text), columns);
    expect(bind('Region = 1')).toThrow('the table has no column Region');
    expect(bind("Amount = 'ten'")).toThrow("column Amount is compared with 'ten': it takes a number");
    expect(bind('Name > 3')).toThrow("column Name is compared with 3: it takes a 'text'");
    expect(bind('Photo is null')).not.toThrow();
    expect(bind("Photo = 'x'")).toThrow('column Photo is of a type a filter cannot compare');
    expect(bind("Amount like '1%'")).toThrow('column Amount is not text: LIKE compares text only');
    // Written in another case, a column is found when it is the only one so named.
    expect(bindRowFilter(parseRowFilter('amount > 1'), columns)).toMatchObject({ column: 'Amount' });
  });

  it('is refused by the entity schema with the place of the error', () => {
    const entity = { source: { schema: 'dbo', table: 'T' }, target: { table: 'T' }, rowFilter: 'n = ' };
    const parsed = entitySchema.safeParse(entity);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]).toMatchObject({
      path: ['rowFilter'],
      message: "expected a number, a 'text' or true/false, found the end of the filter (at character 5)",
    });
  });

  it('compares decimals exactly, past a double’s digits', () => {
    expect(compareDecimal('12345678901234567890.1', '12345678901234567890.2')).toBe(-1);
    expect(compareDecimal('-0.00', '0')).toBe(0);
    expect(compareDecimal('-3', '-20')).toBe(1);
    expect(compareDecimal('007.50', '7.5')).toBe(0);
  });
});

// The reference: SQLite evaluating the same expression, every literal bound as a parameter.
describe('the row filter against SQLite as the reference evaluator', () => {
  const db = new Database(':memory:');
  db.pragma('case_sensitive_like = ON');
  afterAll(() => db.close());

  const numberLit = fc
    .integer({ min: -20, max: 20 })
    .map((n): FilterLiteral => ({ kind: 'number', text: String(n) }));
  const textLit = fc
    .constantFrom('', 'a', 'ab', 'b', 'B', 'é', "it's", '%', 'a_b')
    .map((t): FilterLiteral => ({ kind: 'text', text: t }));
  const leaf: fc.Arbitrary<FilterExpr> = fc.oneof(
    fc.record({
      kind: fc.constant('compare' as const),
      column: fc.constant('n'),
      op: fc.constantFrom('=', '<>', '<', '<=', '>', '>=' as const),
      value: numberLit,
    }),
    fc.record({
      kind: fc.constant('compare' as const),
      column: fc.constant('s'),
      op: fc.constantFrom('=', '<>', '<', '<=', '>', '>=' as const),
      value: textLit,
    }),
    fc.record({
      kind: fc.constant('in' as const),
      column: fc.constant('n'),
      negated: fc.boolean(),
      values: fc.array(numberLit, { minLength: 1, maxLength: 3 }),
    }),
    fc.record({
      kind: fc.constant('like' as const),
      column: fc.constant('s'),
      negated: fc.boolean(),
      pattern: fc.constantFrom('a%', '%b', '_', '%', 'a_b', "it'%", ''),
    }),
    fc.record({
      kind: fc.constant('isNull' as const),
      column: fc.constantFrom('n', 's'),
      negated: fc.boolean(),
    }),
  );
  const expr = filterExpressions(leaf);

  const quote = (t: string) => `'${t.replace(/'/g, "''")}'`;
  const lit = (l: FilterLiteral) =>
    l.kind === 'text' ? quote(l.text) : l.kind === 'number' ? l.text : String(l.value);
  /** The expression in our grammar's words (what a DBA types). */
  const written = (e: FilterExpr): string => {
    switch (e.kind) {
      case 'and':
      case 'or':
        return `(${written(e.left)} ${e.kind} ${written(e.right)})`;
      case 'not':
        return `not (${written(e.inner)})`;
      case 'compare':
        return `${e.column} ${e.op} ${lit(e.value)}`;
      case 'in':
        return `${e.column} ${e.negated ? 'not ' : ''}in (${e.values.map(lit).join(', ')})`;
      case 'like':
        return `${e.column} ${e.negated ? 'not ' : ''}like ${quote(e.pattern)}`;
      case 'isNull':
        return `${e.column} is ${e.negated ? 'not ' : ''}null`;
    }
  };
  /** The same in SQLite's SQL, every literal a bound parameter. */
  const sql = (e: FilterExpr, params: (string | number)[]): string => {
    const bind = (l: FilterLiteral) => {
      params.push(l.kind === 'number' ? Number(l.text) : l.kind === 'text' ? l.text : Number(l.value));
      return '?';
    };
    switch (e.kind) {
      case 'and':
      case 'or':
        return `(${sql(e.left, params)} ${e.kind.toUpperCase()} ${sql(e.right, params)})`;
      case 'not':
        return `NOT (${sql(e.inner, params)})`;
      case 'compare':
        return `${e.column} ${e.op} ${bind(e.value)}`;
      case 'in':
        return `${e.column} ${e.negated ? 'NOT ' : ''}IN (${e.values.map(bind).join(', ')})`;
      case 'like':
        return `${e.column} ${e.negated ? 'NOT ' : ''}LIKE ${bind({ kind: 'text', text: e.pattern })}`;
      case 'isNull':
        return `${e.column} IS ${e.negated ? 'NOT ' : ''}NULL`;
    }
  };
  const row = fc.record({
    n: fc.option(fc.integer({ min: -25, max: 25 }), { nil: null }),
    s: fc.option(fc.constantFrom('', 'a', 'ab', 'abc', 'b', 'B', 'é', "it's ok", 'a_b', 'axb', '%'), {
      nil: null,
    }),
  });

  it('decides every row as SQLite does, interpreted and compiled alike', () => {
    fc.assert(
      fc.property(expr, row, (e, r) => {
        const params: (string | number)[] = [];
        const where = sql(e, params);
        const reference = db
          .prepare(
            `SELECT CASE WHEN ${where} THEN 1 WHEN NOT (${where}) THEN 0 ELSE NULL END AS v FROM (SELECT ? AS n, ? AS s)`,
          )
          .get(...params, ...params, r.n, r.s) as { v: number | null };
        const expected = reference.v === null ? null : reference.v === 1;
        expect(decide(written(e), { n: r.n === null ? null : String(r.n), s: r.s })).toBe(expected);
        expect(decideCompiled(written(e), r)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });
});
