// A copy's row filter pushed down to Db2 for i (docs/shaping.md, "Row filters"), on the simulated IBM
// i: numbers (packed, zoned, integer) and nulls are decided by Db2, text by the engine alone, and for
// random filters the rows Db2 answers hold every row the engine passes, never one fewer.
import fc from 'fast-check';
import { filterExpressions } from '../../../helpers/filterArbitrary';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IbmiConnection } from '../../../../lib/ibmi/connection';
import { openJournalSource, type JournalSource } from '../../../../main/agents/journal/source';
import type { Row } from '../../../../main/agents/source';
import {
  bindRowFilter,
  evaluateRowFilter,
  parseRowFilter,
  type FilterColumnKind,
  type FilterExpr,
  type FilterLiteral,
} from '../../../../shared/rowFilter';
import { startSandboxIbmi, type SandboxIbmi } from '../../../../simulators/ibmi';
import { SEED_ADMIN } from '../../../../simulators/ibmi/seed';
import { journalConfiguration, journalEntity, sandboxIbmiCredentials } from '../../../helpers/journal';

let sandbox: SandboxIbmi;
let admin: IbmiConnection;
let source: JournalSource;
const entity = journalEntity({ schema: 'PUSHED', table: 'ROWS' });
const table = entity.source;
const KINDS: Record<string, FilterColumnKind> = { N: 'number', AMOUNT: 'number', Z: 'number', S: 'text' };
const COLUMNS = Object.entries(KINDS).map(([name, kind]) => ({ name, kind }));
let all: Row[] = [];

const passes = (e: FilterExpr, r: Row) =>
  evaluateRowFilter(
    e,
    (c) => (r[c] === null || r[c] === undefined ? null : String(r[c])),
    (c) => KINDS[c] ?? 'text',
  ) === true;
const ids = (rows: readonly Row[]) => rows.map((r) => Number(r.ID)).sort((a, b) => a - b);
const read = async (e: FilterExpr) => (await source.readChunk(table, null, 10_000, { rowFilter: e })).rows;

beforeAll(async () => {
  sandbox = await startSandboxIbmi({ seed: true });
  admin = await sandbox.connect({ ...SEED_ADMIN });
  await admin.query('CREATE SCHEMA PUSHED');
  await admin.query(
    'CREATE TABLE PUSHED.ROWS (ID INTEGER NOT NULL PRIMARY KEY, N INTEGER, AMOUNT DECIMAL(9, 2), Z NUMERIC(7, 3), S VARCHAR(20))',
  );
  await admin.command('CHGJRNOBJ OBJ((PUSHED/ROWS *FILE)) ATR(*IMAGES) IMAGES(*BOTH)');
  let id = 0;
  for (const n of [-3, 0, 4, null])
    for (const amount of ['-1.50', '0.00', '2.25', '10.00', null])
      for (const z of ['-0.125', '0.000', '7.500', null])
        for (const s of ['a', 'A', 'b ', null])
          await admin.query('INSERT INTO PUSHED.ROWS VALUES (?, ?, ?, ?, ?)', [++id, n, amount, z, s]);
  source = await openJournalSource({
    credentials: sandboxIbmiCredentials(sandbox, { syncLibrary: 'PUSHSYNC' }),
    configuration: journalConfiguration(),
    pipelineId: 'pushdown',
    agentId: 'src',
    entities: [entity],
  });
  await source.describe([table]);
  all = (await source.readChunk(table, null, 10_000)).rows;
});
afterAll(async () => {
  await source?.close();
  await admin?.close();
  await sandbox?.close();
});

const numberLit = fc
  .constantFrom('-3', '0', '4', '2.25', '-1.5', '10', '7.5', '-0.125', '0.1249')
  .map((text): FilterLiteral => ({ kind: 'number', text }));
const textLit = fc.constantFrom('a', 'A', 'b', 'x').map((text): FilterLiteral => ({ kind: 'text', text }));
const op = fc.constantFrom('=', '<>', '<', '<=', '>', '>=' as const);
const numeric = fc.constantFrom('N', 'AMOUNT', 'Z');
const leaf: fc.Arbitrary<FilterExpr> = fc.oneof(
  fc.record({ kind: fc.constant('compare' as const), column: numeric, op, value: numberLit }),
  fc.record({ kind: fc.constant('compare' as const), column: fc.constant('S'), op, value: textLit }),
  fc.record({
    kind: fc.constant('in' as const),
    column: numeric,
    negated: fc.boolean(),
    values: fc.array(numberLit, { minLength: 1, maxLength: 3 }),
  }),
  fc.record({
    kind: fc.constant('isNull' as const),
    column: fc.constantFrom('N', 'AMOUNT', 'Z', 'S'),
    negated: fc.boolean(),
  }),
);
const expr = filterExpressions(leaf);

describe('a row filter pushed down to Db2 for i for a copy', () => {
  it('never leaves out a row the engine passes', async () => {
    expect(all).toHaveLength(320);
    await fc.assert(
      fc.asyncProperty(expr, async (e) => {
        const bound = bindRowFilter(e, COLUMNS);
        const wanted = ids(all.filter((r) => passes(bound, r)));
        expect(ids(await read(bound)).filter((id) => wanted.includes(id))).toEqual(wanted);
      }),
      { numRuns: 150 },
    );
  });

  it('reads exactly the passing rows of a filter of numbers and nulls, and every row for text', async () => {
    for (const text of [
      'AMOUNT >= 2.25 and Z < 0.1249',
      'not (N in (-3, 4)) or AMOUNT is null',
      'Z = 7.500 and N <> 0 and S is not null',
    ]) {
      const bound = bindRowFilter(parseRowFilter(text), COLUMNS);
      const wanted = all.filter((r) => passes(bound, r));
      expect(wanted.length, text).toBeGreaterThan(0);
      expect(ids(await read(bound)), text).toEqual(ids(wanted));
    }
    // Text is the engine's to decide: Db2 is asked nothing of it.
    expect(await read(bindRowFilter(parseRowFilter("S = 'a'"), COLUMNS))).toHaveLength(all.length);
  });
});
