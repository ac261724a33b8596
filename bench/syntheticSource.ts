// A source agent that hands the runner changes prepared in memory, so a benchmark measures the engine
// and the target alone: no simulator, no driver, no decoding. One table, dbo.Big, empty at its copy;
// its changes are inserts of the given rows, in batches of at most `maxRows`.
import type { Change, ChangeBatch, Checkpoint, SourceAgent, TableShape } from '../main/agents/source';
import type { BenchRow } from './rawTargets';

export const SYNTHETIC_TABLE = 'dbo.Big';

export const SYNTHETIC_SHAPE: TableShape = {
  ref: { schema: 'dbo', table: 'Big' },
  columns: [
    { name: 'Id', sourceType: 'int', nullable: false },
    { name: 'Name', sourceType: 'nvarchar(50)', nullable: false },
    { name: 'Amount', sourceType: 'decimal(12,2)', nullable: false },
    { name: 'At', sourceType: 'datetime2(6)', nullable: false },
  ],
  key: ['Id'],
};

/** The changes of the rows, made once before the clock starts: inserts at positions 1, 2, … */
export function syntheticChanges(rows: readonly BenchRow[]): Change[] {
  return rows.map(([Id, Name, Amount, At], i) => ({
    table: SYNTHETIC_TABLE,
    op: 'insert',
    key: { Id },
    row: { Id, Name, Amount, At },
    changedColumns: null,
    position: String(i + 1),
  }));
}

export function syntheticSource(changes: readonly Change[]): SourceAgent {
  const from = (checkpoint: Checkpoint) => Number(checkpoint[SYNTHETIC_TABLE] ?? 0);
  return {
    check: async () => [],
    describe: async () => [SYNTHETIC_SHAPE],
    countRows: async () => 0,
    snapshotStart: async () => '0',
    readChunk: async () => ({ rows: [], next: null }),
    readRows: async () => [],
    async readChanges(_tables, checkpoint, options): Promise<ChangeBatch> {
      const start = from(checkpoint);
      const batch = changes.slice(start, start + (options?.maxRows ?? 10_000));
      return {
        changes: batch,
        checkpoint: { [SYNTHETIC_TABLE]: String(start + batch.length) },
        resnapshot: [],
        caughtUp: start + batch.length >= changes.length,
      };
    },
    loadCheckpoint: async () => ({}),
    saveCheckpoint: async () => undefined,
    backlog: async (_tables, checkpoint) => {
      const left = changes.length - from(checkpoint);
      return {
        rowsToRead: left,
        versionsBehind: null,
        perTable: [{ table: SYNTHETIC_TABLE, rowsToRead: left }],
      };
    },
    close: async () => undefined,
  };
}
