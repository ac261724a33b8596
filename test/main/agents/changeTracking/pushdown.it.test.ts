// A copy's row filter pushed down to SQL Server (docs/shaping.md, "Row filters"), on the simulated
// server with its case-insensitive collation: for thousands of random filters the rows SQL Server
// answers hold every row the engine's filter passes (never one fewer), a filter of numbers, bits and
// nulls is decided by SQL Server alone (exactly those rows read), and a literal is only ever bound.
import fc from 'fast-check';
import { filterExpressions } from '../../../helpers/filterArbitrary';
import type sql from 'mssql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../../../simulators/mssql';
import {
  openChangeTrackingSource,
  type ChangeTrackingSource,
} from '../../../../main/agents/changeTracking/source';
import type { Row } from '../../../../main/agents/source';
import {
  bindRowFilter,
  evaluateRowFilter,
  parseRowFilter,
  type FilterColumnKind,
  type FilterExpr,
  type FilterLiteral,
} from '../../../../shared/rowFilter';
import { ctConfiguration, sandboxCredentials } from '../../../helpers/changeTracking';
import { DBA, sandboxPool } from '../../../helpers/sandbox';

let sandbox: SandboxSqlServer;
let admin: sql.ConnectionPool;
let source: ChangeTrackingSource;
const table = { schema: 'dbo', table: 'Pushed' };
const KINDS: Record<string, FilterColumnKind> = { N: 'number', Amount: 'number', S: 'text', B: 'boolean' };
const COLUMNS = Object.entries(KINDS).map(([name, kind]) => ({ name, kind }));
const TEXTS = ['', 'a', 'A', 'ab', 'AB', 'b', 'é', 'É', "it's", 'a '];
const AMOUNTS = ['-1.50', '0.00', '2.25', '10.00'];
let all: Row[] = [];

/** The engine's verdict on a row, as the runner's shaping decides it. */
const passes = (e: FilterExpr, r: Row) =>
  evaluateRowFilter(
    e,
    (c) => {
      const v = r[c];
      if (v === null || v === undefined) return null;
      // A bit as the runner's filter reads one (tableShaping.ts).
      return KINDS[c] === 'boolean' ? v === true || v === 1 || v === 1n || v === '1' : String(v);
    },
    (c) => KINDS[c] ?? 'text',
  ) === true;
const ids = (rows: readonly Row[]) => rows.map((r) => Number(r.Id)).sort((a, b) => a - b);
const read = async (e: FilterExpr) => (await source.readChunk(table, null, 10_000, { rowFilter: e })).rows;

beforeAll(async () => {
  sandbox = await startSandboxSqlServer({ logins: [DBA], databases: ['Sales'] });
  admin = await sandboxPool(sandbox, { max: 2 });
  const values: string[] = [];
  let id = 0;
  const q = (t: string | null) => (t === null ? 'NULL' : `N'${t.replaceAll("'", "''")}'`);
  for (const s of [...TEXTS, null])
    for (const n of [-3, 0, 4, null])
      for (const a of [...AMOUNTS, null])
        for (const b of [1, 0, null]) {
          // Not every combination: a few ids left out, so keys are not dense.
          if (id % 7 === 3) {
            id++;
            continue;
          }
          values.push(`(${++id}, ${n ?? 'NULL'}, ${a ?? 'NULL'}, ${q(s)}, ${b ?? 'NULL'})`);
        }
  await admin.request().batch(`CREATE SCHEMA SYNC;
    CREATE TABLE dbo.Pushed (Id INT PRIMARY KEY, N INT NULL, Amount DECIMAL(9, 2) NULL, S NVARCHAR(20) NULL, B BIT NULL);
    INSERT INTO dbo.Pushed VALUES ${values.join(', ')};`);
  source = await openChangeTrackingSource({
    credentials: sandboxCredentials(sandbox),
    configuration: ctConfiguration(),
    pipelineId: 'pushdown',
    agentId: 'src',
  });
  all = (await source.readChunk(table, null, 10_000)).rows;
});
afterAll(async () => {
  await source?.close();
  await admin?.close();
  await sandbox?.close();
});

const numberLit = fc
  .constantFrom('-3', '0', '4', '2.25', '-1.5', '10', '2.250', '7')
  .map((text): FilterLiteral => ({ kind: 'number', text }));
const textLit = fc.constantFrom(...TEXTS, 'A ', 'x').map((text): FilterLiteral => ({ kind: 'text', text }));
const boolLit = fc.boolean().map((value): FilterLiteral => ({ kind: 'boolean', value }));
const op = fc.constantFrom('=', '<>', '<', '<=', '>', '>=' as const);
const leaf: fc.Arbitrary<FilterExpr> = fc.oneof(
  fc.record({
    kind: fc.constant('compare' as const),
    column: fc.constantFrom('N', 'Amount'),
    op,
    value: numberLit,
  }),
  fc.record({ kind: fc.constant('compare' as const), column: fc.constant('S'), op, value: textLit }),
  fc.record({
    kind: fc.constant('compare' as const),
    column: fc.constant('B'),
    op: fc.constantFrom('=', '<>' as const),
    value: boolLit,
  }),
  fc.record({
    kind: fc.constant('in' as const),
    column: fc.constantFrom('N', 'Amount'),
    negated: fc.boolean(),
    values: fc.array(numberLit, { minLength: 1, maxLength: 3 }),
  }),
  fc.record({
    kind: fc.constant('in' as const),
    column: fc.constant('S'),
    negated: fc.boolean(),
    values: fc.array(textLit, { minLength: 1, maxLength: 3 }),
  }),
  fc.record({
    kind: fc.constant('like' as const),
    column: fc.constant('S'),
    negated: fc.boolean(),
    pattern: fc.constantFrom('a%', '%B', '_', 'A_'),
  }),
  fc.record({
    kind: fc.constant('isNull' as const),
    column: fc.constantFrom('N', 'Amount', 'S', 'B'),
    negated: fc.boolean(),
  }),
);
const expr = filterExpressions(leaf);

describe('a row filter pushed down to SQL Server for a copy', () => {
  it('never leaves out a row the engine passes, and leaves out rows it refuses', async () => {
    expect(all.length).toBeGreaterThan(300);
    let answered = 0;
    let passing = 0;
    await fc.assert(
      fc.asyncProperty(expr, async (e) => {
        const bound = bindRowFilter(e, COLUMNS);
        const rows = await read(bound);
        const wanted = ids(all.filter((r) => passes(bound, r)));
        // Every row the engine passes is among those SQL Server answered.
        expect(ids(rows).filter((id) => wanted.includes(id))).toEqual(wanted);
        answered += rows.length;
        passing += wanted.length;
      }),
      { numRuns: 300 },
    );
    // Pushed down, the reads left out most of what the filters refuse.
    expect(answered).toBeLessThan(passing + (300 * all.length - passing) / 2);
  });

  it('reads exactly the passing rows of a filter of numbers, bits and nulls', async () => {
    for (const text of [
      'Amount >= 2.25 and B = true',
      'N in (-3, 4) or Amount is null',
      'not (N > 0) and S is not null',
      'Amount <> 0 and not (B <> false)',
    ]) {
      const bound = bindRowFilter(parseRowFilter(text), COLUMNS);
      const wanted = all.filter((r) => passes(bound, r));
      expect(ids(await read(bound))).toEqual(ids(wanted));
      expect(wanted.length, text).toBeGreaterThan(0);
    }
  });

  it('reads text equal but for trailing blanks, which the engine takes for equal too', async () => {
    const bound = bindRowFilter(parseRowFilter("S = 'a  ' and N = 0"), COLUMNS);
    const rows = await read(bound);
    expect(new Set(rows.map((r) => r.S))).toEqual(new Set(['a', 'a ']));
    expect(ids(rows)).toEqual(ids(all.filter((r) => passes(bound, r))));
  });

  it('binds a literal with a quote: the table is there, the text compared as text', async () => {
    const bound = bindRowFilter(parseRowFilter("S = '''; DROP TABLE dbo.Pushed; --'"), COLUMNS);
    expect(await read(bound)).toEqual([]);
    expect((await source.readChunk(table, null, 10_000)).rows).toHaveLength(all.length);
  });
});
