// A verify compares a source row with its target row where they stand, writing out only what differs
// on its face: its verdict must be the compared forms' verdict (canonical.ts) for every pair of values
// a driver and a target can hand over — numbers against bigints, decimals with zeros, times with and
// without fractions, dates, bytes, nulls.
import { describe, expect, it } from 'vitest';
import type { ColumnShape, Row } from '../../../../main/agents/source';
import { keyText, sourceForm, targetForm } from '../../../../main/runner/verify/canonical';
import { rowMatch } from '../../../../main/runner/verify/rowMatch';

const columns: ColumnShape[] = [
  { name: 'Id', sourceType: 'bigint', nullable: false },
  { name: 'Name', sourceType: 'nvarchar(50)', nullable: true },
  { name: 'Amount', sourceType: 'decimal(12,2)', nullable: true },
  { name: 'At', sourceType: 'datetime2(7)', nullable: true },
  { name: 'Raw', sourceType: 'varbinary(16)', nullable: true },
  { name: 'Ratio', sourceType: 'float', nullable: true },
];
const pick = <T>(values: readonly T[], i: number): T => values[i % values.length] as T;

describe('a row match', () => {
  it('says equal exactly when the compared forms are equal', () => {
    const ids = [0, 1, -7, 2 ** 53 - 1, 42n, 2n ** 53n + 1n, '17'];
    const names = [null, '', 'a', 'A', 'ü', 'a '];
    const amounts = [null, '12.50', '12.5', 12.5, '0012.500', '-0.00', '0', 3];
    const ats = [
      null,
      new Date(Date.UTC(2026, 0, 1, 10, 0, 0, 123)),
      '2026-01-01 10:00:00.123',
      '2026-01-01 10:00:00.1230000',
      '2026-01-01T10:00:00.123',
      '2026-01-01 10:00:00.124',
    ];
    const raws = [null, Uint8Array.from([1, 2]), Uint8Array.from([1, 3])];
    const ratios = [null, 0.5, '0.5', 1e21, Number.NaN];
    const match = rowMatch(columns, ['Id'], () => Infinity);
    let agreed = 0;
    for (let i = 0; i < 4000; i++) {
      const make = (j: number): Row => ({
        Id: pick(ids, j),
        Name: pick(names, j * 7 + 1),
        Amount: pick(amounts, j * 3 + 2),
        At: pick(ats, j * 5 + 3),
        Raw: pick(raws, j * 11 + 4),
        Ratio: pick(ratios, j * 13 + 5),
      });
      const s = make(i);
      const t = i % 3 === 0 ? { ...s } : make(i + (i % 7));
      // The target gives whole numbers back as bigints, as SQLite does with safe integers.
      if (typeof t.Id === 'number') t.Id = BigInt(t.Id);
      const formsAgree =
        JSON.stringify(sourceForm(columns, s, () => Infinity)) ===
        JSON.stringify(targetForm(columns, t, () => Infinity));
      expect(match.same(s, t), JSON.stringify({ i })).toBe(formsAgree);
      if (formsAgree) agreed++;
    }
    // Both verdicts came up, many times each.
    expect(agreed).toBeGreaterThan(100);
    expect(agreed).toBeLessThan(3900);
  });

  it('writes a key as one text, with one key column or several, as its values give it', () => {
    const rows: Row[] = [
      { Id: 7, Name: 'a' },
      { Id: 2n ** 53n + 1n, Name: 'ü b' },
      { Id: '0017', Name: null },
      { Id: -3, Name: '["x"]' },
    ];
    for (const key of [['Id'], ['Id', 'Name']]) {
      const match = rowMatch(columns, key, () => Infinity);
      for (const row of rows) {
        expect(match.sourceKeyText(row)).toBe(keyText(match.sourceKey(row)));
        expect(match.targetKeyText(row)).toBe(keyText(match.targetKey(row)));
      }
    }
    expect(rowMatch(columns, ['Id'], () => Infinity).targetKeyText({ Id: '0017' })).toBe('17');
  });
});
