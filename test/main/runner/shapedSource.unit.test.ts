// The shaped source hands a copy's row filter to the source to push down, and still decides every
// row the source answers: a source that pushes nothing, or less, loses no row and lets none through.
import { describe, expect, it } from 'vitest';
import type { SourceAgent, TableShape } from '../../../main/agents/source';
import { shapedSource } from '../../../main/runner/shaping/shapedSource';

const SHAPE: TableShape = {
  ref: { schema: 'dbo', table: 'Orders' },
  columns: [
    { name: 'Id', sourceType: 'int', nullable: false },
    { name: 'Country', sourceType: 'nvarchar(2)', nullable: true },
  ],
  key: ['Id'],
};

describe('a copy read through a row filter', () => {
  it('asks the source to leave refused rows out, and refuses those it sends anyway', async () => {
    const asked: unknown[] = [];
    const inner = {
      describe: async () => [SHAPE],
      readChunk: async (_ref: unknown, _cursor: unknown, _limit: unknown, options?: unknown) => {
        asked.push(options);
        // A source that pushed nothing: every row comes back.
        return {
          rows: [
            { Id: 1, Country: 'CH' },
            { Id: 2, Country: 'FR' },
            { Id: 3, Country: 'ch' },
          ],
          next: null,
        };
      },
    } as unknown as SourceAgent;
    const source = shapedSource(inner, () => [{ source: SHAPE.ref, rowFilter: "country = 'CH'" }], undefined);
    const chunk = await source.readChunk(SHAPE.ref, null, 100);
    expect(chunk.rows).toEqual([{ Id: 1, Country: 'CH' }]);
    // Bound to the table's own column names.
    expect(asked).toEqual([
      {
        rowFilter: {
          kind: 'compare',
          column: 'Country',
          op: '=',
          value: { kind: 'text', text: 'CH' },
        },
      },
    ]);
  });
});
