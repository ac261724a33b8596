// The row filter's pushed part (main/agents/filterPushdown.ts): exact parts as they are, text only
// where a looser comparison cannot lose a row, nothing of a pattern, and no literal in the SQL.
import { describe, expect, it } from 'vitest';
import { pushdownSql, type PushdownDialect, type PushedKind } from '../../../main/agents/filterPushdown';
import { bindRowFilter, parseRowFilter } from '../../../shared/rowFilter';

const KINDS: Record<string, PushedKind | null> = {
  Id: 'exact-number',
  Amount: 'exact-number',
  Ratio: null,
  Name: 'loose-text',
  Active: 'boolean',
  Due: 'nulls-only',
};

/** The pushed SQL of `text`, with the parameters it bound. */
function pushed(text: string, maxPrecision = 38): { sql: string | null; params: unknown[] } {
  const params: unknown[] = [];
  const dialect: PushdownDialect = {
    column: (name) => {
      const kind = KINDS[name];
      return kind ? { sql: kind === 'loose-text' ? `RTRIM(t.[${name}])` : `t.[${name}]`, kind } : null;
    },
    decimal: (digits, p, s) => {
      params.push(digits);
      return `CAST(@f${params.length - 1} AS decimal(${p}, ${s}))`;
    },
    text: (v) => {
      params.push(v);
      return `@f${params.length - 1}`;
    },
    boolean: (v) => {
      params.push(v);
      return `@f${params.length - 1}`;
    },
    maxPrecision,
  };
  const bound = bindRowFilter(
    parseRowFilter(text),
    Object.keys(KINDS).map((name) => ({
      name,
      kind: name === 'Name' ? 'text' : name === 'Active' ? 'boolean' : name === 'Due' ? 'date' : 'number',
    })),
  );
  return { sql: pushdownSql(bound, dialect), params };
}

describe('pushing a row filter down to the source', () => {
  it('sends exact comparisons of numbers, booleans and nulls as they are, values bound', () => {
    expect(pushed('Amount >= 10.50 and Id in (1, -2) and Active = true and Name is not null')).toEqual({
      sql: '((((t.[Amount] >= CAST(@f0 AS decimal(4, 2))) AND (t.[Id] IN (CAST(@f1 AS decimal(1, 0)), CAST(@f2 AS decimal(1, 0))))) AND (t.[Active] = @f3)) AND RTRIM(t.[Name]) IS NOT NULL)',
      params: ['10.50', '1', '-2', true],
    });
    expect(pushed('not (Id > 7 or Amount is null)').sql).toBe(
      'NOT ((t.[Id] > CAST(@f0 AS decimal(1, 0))) OR t.[Amount] IS NULL)',
    );
  });

  it('sends text only where a case-insensitive collation could not lose a row', () => {
    expect(pushed("Name = 'Ann'").sql).toBe('(RTRIM(t.[Name]) = @f0)');
    expect(pushed("Name in ('a', 'b')").sql).toBe('(RTRIM(t.[Name]) IN (@f0, @f1))');
    // 'ann' <> 'ANN' holds for the engine, not under a CI collation: left to the engine.
    expect(pushed("Name <> 'Ann'").sql).toBeNull();
    expect(pushed("Name not in ('a')").sql).toBeNull();
    expect(pushed("Name > 'a'").sql).toBeNull();
    expect(pushed("not Name = 'Ann'").sql).toBeNull();
    // Under a not, the filter needs `<>` false: where it is false for the engine, it is for SQL.
    expect(pushed("not Name <> 'Ann'").sql).toBe('NOT (RTRIM(t.[Name]) <> @f0)');
    expect(pushed("not Name not in ('a')").sql).toBe('NOT (RTRIM(t.[Name]) NOT IN (@f0))');
  });

  it('drops what it cannot send without widening past what it keeps', () => {
    expect(pushed("Id = 1 and Name like 'A%'").sql).toBe('(t.[Id] = CAST(@f0 AS decimal(1, 0)))');
    expect(pushed("Id = 1 or Name like 'A%'").sql).toBeNull();
    expect(pushed('Ratio > 0.5 and Id < 3').sql).toBe('(t.[Id] < CAST(@f0 AS decimal(1, 0)))');
    // Under a not, a part left out counts as false: `not (x and ?)` is then true, so nothing goes.
    expect(pushed("not (Id = 1 and Name like 'A%')").sql).toBeNull();
    expect(pushed("not (Id = 1 or Name like 'A%')").sql).toBe('NOT (t.[Id] = CAST(@f0 AS decimal(1, 0)))');
    // A column the source compares otherwise (a date here) sends only whether it is null.
    expect(pushed("Due is not null and Due >= '2026-01-01'").sql).toBe('t.[Due] IS NOT NULL');
    // A number past the source's decimal digits is the engine's to compare.
    expect(pushed(`Amount = 1${'0'.repeat(40)}`).sql).toBeNull();
  });

  it('binds the values of the parts it sends only, in the order the SQL names them', () => {
    expect(pushed("Id = 1 or Name like 'A%'").params).toEqual([]);
    expect(pushed(`Id in (1, 1${'0'.repeat(40)}) and Amount = 5 and Id > 2`)).toEqual({
      sql: '((t.[Amount] = CAST(@f0 AS decimal(1, 0))) AND (t.[Id] > CAST(@f1 AS decimal(1, 0))))',
      params: ['5', '2'],
    });
  });

  it('binds every literal: a quote in a text reaches SQL as a parameter only', () => {
    const { sql, params } = pushed("Name = '''; DROP TABLE dbo.Orders; --  '");
    expect(sql).toBe('(RTRIM(t.[Name]) = @f0)');
    // Trailing blanks left out, as the engine compares text.
    expect(params).toEqual(["'; DROP TABLE dbo.Orders; --"]);
  });
});
