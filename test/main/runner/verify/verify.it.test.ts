// Verify and repair on a running pipeline, both sources into SQLite and PostgreSQL: a table verified
// clean while its rows keep changing (the differences in flight re-read once the pipeline is past
// them); then rows deleted, altered and added at the target behind the engine's back, found exactly
// (keys, kinds, the column that differs), repaired without a re-snapshot, and verified clean again.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresTarget } from '../../../../main/agents/postgresql/target';
import type { SourceAgent, TableRef } from '../../../../main/agents/source';
import { SqliteTarget } from '../../../../main/agents/sqlite/target';
import type { Target } from '../../../../main/agents/target';
import { PipelineRunner } from '../../../../main/runner/pipelineRunner';
import type { RunnerEvent } from '../../../../main/runner/events';
import { verifiedClean, verifyRequestSchema } from '../../../../shared/verify';
import type { ContractRow, SourceHarness } from '../../agents/contract/sourceAgent';
import { bothSources, interceptChunks } from '../../../helpers/bothSources';
import { settled } from '../../../helpers/verify';
import { POSTGRES } from '../../../helpers/replica';
import { until } from '../../../helpers/until';

const sources = bothSources({ pipelineId: 'verify', ibmiSchema: 'VERIFY' });

/** Work done right before each chunk the agent reads, while `before.run` is set. */
const beforeChunks = (agent: SourceAgent, before: { run: ((n: number) => Promise<void>) | null }) =>
  interceptChunks(agent, { before: async (n: number) => before.run?.(n) });

const options = (o: Record<string, unknown> = {}) => verifyRequestSchema.parse({ chunkRows: 100, ...o });

describe.each([
  ['change-tracking', 'sqlite'],
  ['change-tracking', 'postgresql'],
  ['journal', 'sqlite'],
  ['journal', 'postgresql'],
] as const)('verify and repair: %s into %s', (sourceKind, targetKind) => {
  let h: SourceHarness;
  let client: pg.Client;
  let table: TableRef;
  let runner: PipelineRunner;
  const events: RunnerEvent[] = [];
  const path = join(mkdtempSync(join(tmpdir(), 'cdc-verify-')), 'replica.sqlite');
  const schema = `verify_${process.pid}_${sourceKind.replace('-', '_')}`;
  /** The target's own column names (the agents name them id or ID). */
  const col = (name: string) => (sourceKind === 'journal' ? name.toUpperCase() : name);
  let targetTable = '';
  const before: { run: ((n: number) => Promise<void>) | null } = { run: null };

  /** SQL run straight at the target, behind the engine's back. */
  async function atTarget(statement: string, params: unknown[] = []): Promise<void> {
    if (targetKind === 'sqlite') {
      const db = new Database(path, { timeout: 5000 });
      try {
        db.prepare(statement.replace(/\$\d+/g, '?')).run(...params);
      } finally {
        db.close();
      }
    } else await client.query(statement.replace(/"T"\./g, `"${schema}".`), params);
  }

  /** Whether the target holds the row with this key. */
  async function targetHas(id: number): Promise<boolean> {
    const sql = `SELECT 1 FROM "${targetTable}" WHERE "${col('id')}" = ${id}`;
    if (targetKind === 'sqlite') {
      const db = new Database(path, { readonly: true, timeout: 5000 });
      try {
        return db.prepare(sql).get() !== undefined;
      } finally {
        db.close();
      }
    }
    return ((await client.query(sql.replace('FROM "', `FROM "${schema}"."`))).rowCount ?? 0) > 0;
  }

  beforeAll(async () => {
    h = await sources.harness(sourceKind);
    client = sources.client();
    table = await h.createTable(`V${targetKind === 'sqlite' ? 'S' : 'P'}`);
    const rows: ContractRow[] = Array.from({ length: 400 }, (_, i) => ({
      id: i + 1,
      name: `row ${i + 1}`,
      amount: `${i}.50`,
    }));
    for (let i = 0; i < rows.length; i += 100) await h.insert(table, rows.slice(i, i + 100));
    if (targetKind === 'postgresql') await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    targetTable = h.entity(table).target.table;
    runner = new PipelineRunner({
      openSource: async () => beforeChunks(await h.open(), before),
      openTarget: async (): Promise<Target> =>
        targetKind === 'sqlite'
          ? new SqliteTarget(path, 'verify')
          : new PostgresTarget({ ...POSTGRES, schema }, 'verify'),
      entities: [h.entity(table)],
      idleMs: 20,
      onEvent: (e) => events.push(e),
    });
    void runner.start();
    await until('the copy', () => events.some((e) => e.kind === 'snapshot-done'));
  });
  afterAll(async () => {
    await runner?.stop();
    if (targetKind === 'postgresql') await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  });

  it('a table whose rows keep changing verifies clean', async () => {
    // Right before each chunk is read, rows of it change at the source: the verify sees them before
    // the pipeline has applied them, and must re-read them once it has, not report them.
    before.run = async (n) => {
      await h.update(table, n * 50 + 10, `changed before chunk ${n}`);
      await h.remove(table, n * 50 + 20);
      await h.insert(table, [{ id: 2000 + n, name: `new before chunk ${n}`, amount: '1.00' }]);
    };
    let n = 0;
    let writing = true;
    // And changes all through the verify, at any time.
    const writer = (async () => {
      while (writing) {
        n++;
        await h.update(table, (n % 400) + 1, `changed ${n}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    const report = await settled(runner, () => runner.requestVerify(undefined, options({ chunkRows: 50 })));
    writing = false;
    before.run = null;
    await writer;
    expect(runner.failure).toBeNull();
    expect(report.tables[0]).toMatchObject({
      status: 'done',
      counts: { missing: 0, extra: 0, different: 0 },
    });
    expect(report.tables[0]?.rowsCompared).toBeGreaterThanOrEqual(390);
    expect(report.tables[0]?.chunks).toBeGreaterThanOrEqual(8);
    expect(verifiedClean(report)).toBe(true);
    // The writer's last changes applied before the next test alters the target: a row inserted after
    // them arrives after them (an update still in flight would bring a deleted row back).
    await h.insert(table, [{ id: 9000, name: 'last', amount: '0.00' }]);
    await until('the stream to apply the writer’s changes', () => targetHas(9000));
  });

  it('finds rows deleted, altered and added at the target, repairs exactly those, and verifies clean again', async () => {
    const t = targetKind === 'sqlite' ? `"${targetTable}"` : `"T"."${targetTable}"`;
    await atTarget(`DELETE FROM ${t} WHERE "${col('id')}" IN (17, 233)`);
    await atTarget(`UPDATE ${t} SET "${col('name')}" = 'tampered' WHERE "${col('id')}" = 42`);
    await atTarget(
      `INSERT INTO ${t} ("${col('id')}", "${col('name')}", "${col('amount')}") VALUES (9999, 'stray', '3.00')`,
    );
    const report = await settled(runner, () =>
      runner.requestVerify(h.entity(table).source.schema + '.' + table.table, options()),
    );
    const [found] = report.tables;
    expect(found?.counts).toEqual({ missing: 2, extra: 1, different: 1 });
    const byKind = (kind: string) =>
      (found?.differences ?? [])
        .filter((d) => d.kind === kind)
        .map((d) => ({ key: d.key, columns: d.columns }))
        .sort((a, b) => Number(a.key[col('id')]) - Number(b.key[col('id')]));
    expect(byKind('missing')).toEqual([
      { key: { [col('id')]: '17' }, columns: [] },
      { key: { [col('id')]: '233' }, columns: [] },
    ]);
    expect(byKind('different')).toEqual([{ key: { [col('id')]: '42' }, columns: [col('name')] }]);
    expect(byKind('extra')).toEqual([{ key: { [col('id')]: '9999' }, columns: [] }]);
    expect(events.filter((e) => e.kind === 'resnapshot' || e.kind === 'snapshot-started')).toHaveLength(1);

    const repair = await settled(runner, () => runner.requestRepair());
    expect(repair.kind).toBe('repair');
    expect(repair.repaired).toEqual({ [`${table.schema}.${table.table}`]: 4 });
    expect(verifiedClean(repair)).toBe(true);
    // No copy again: the first snapshot is still the only one.
    expect(events.filter((e) => e.kind === 'snapshot-started')).toHaveLength(1);
    expect(events.filter((e) => e.kind === 'verify-finished').at(-1)).toMatchObject({
      verify: 'repair',
      status: 'done',
      repaired: 4,
      missing: 0,
      extra: 0,
      different: 0,
    });
  });
});
