// The schema-change policy's verdict on a change: what reaches the target, what is withheld and said.
// A column kept by a policy stays kept when the same change is told again with nothing new in it.
import { describe, expect, it } from 'vitest';
import type { TargetTable } from '../../../main/agents/target';
import { schemaVerdict } from '../../../main/runner/schemaPolicy';

const table: TargetTable = {
  source: 'dbo.Orders',
  name: 'orders',
  columns: [
    { name: 'Id', sourceType: 'int', nullable: false },
    { name: 'Note', sourceType: 'nvarchar(20)', nullable: true },
  ],
  key: ['Id'],
};

describe('the schema-change verdict', () => {
  it('keeps dropped columns under every policy but propagate, even when nothing changed this time', () => {
    expect(schemaVerdict('propagate', table, { added: [], gone: [] }).dropped).toBeUndefined();
    for (const policy of ['add-columns-only', 'ignore-new-columns', 'suspend-table'] as const)
      expect(schemaVerdict(policy, table, { added: [], gone: [] })).toMatchObject({
        dropped: 'keep',
        withheld: null,
        suspend: null,
      });
  });

  it('says what it withheld, and leaves new columns out under ignore-new-columns', () => {
    const v = schemaVerdict('ignore-new-columns', table, { added: ['Note'], gone: ['Amount'] });
    expect(v.table.columns.map((c) => c.name)).toEqual(['Id']);
    expect(v.withheld).toBe(
      'column Note added at the source left out of the target (the policy "ignore-new-columns"); column Amount kept at the target (the policy "ignore-new-columns" drops no column; null in rows written from now on)',
    );
    expect(schemaVerdict('suspend-table', table, { added: ['Note'], gone: [] }).suspend).toMatch(
      /added: Note.*"suspend-table": review the change/,
    );
  });
});
