// Changes made to a table while it is copied: between every two chunks, rows already copied and rows
// not yet copied are updated and deleted, rows inserted in the copied range, the uncopied range and
// past the end; and right after a chunk is read, before its commit, a row of that chunk is updated and
// another deleted. The target ends equal to what the source holds (kept by the test itself, not read
// back through the agent). Both sources, SQLite and PostgreSQL. Then two tables copied at once while a
// third streams: its changes keep arriving during the copies, with the lag measured.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type sql from 'mssql';
import { describe, expect, it } from 'vitest';
import { openChangeTrackingSource } from '../../../main/agents/changeTracking/source';
import { PostgresTarget } from '../../../main/agents/postgresql/target';
import type { Row } from '../../../main/agents/source';
import { SqliteTarget } from '../../../main/agents/sqlite/target';
import type { Target } from '../../../main/agents/target';
import { PipelineRunner } from '../../../main/runner/pipelineRunner';
import type { RunnerEvent } from '../../../main/runner/events';
import type { ContractRow } from '../agents/contract/sourceAgent';
import { ctConfiguration, sandboxCredentials } from '../../helpers/changeTracking';
import { bothSources, interceptChunks } from '../../helpers/bothSources';
import { POSTGRES } from '../../helpers/replica';
import { sandboxPool } from '../../helpers/sandbox';
import { until } from '../../helpers/until';

/** Where the n-th commit (1-based) stands in the log; the log's length when there is none. */
const nthCommit = (log: readonly string[], n: number) => {
  let seen = 0;
  const at = log.findIndex((x) => x === 'commit' && ++seen === n);
  return at < 0 ? log.length : at;
};

const sources = bothSources({ pipelineId: 'copying', ibmiSchema: 'COPYING' });

describe.each([
  ['change-tracking', 'sqlite', 'pipelined'],
  ['change-tracking', 'postgresql', 'pipelined'],
  ['journal', 'sqlite', 'pipelined'],
  ['journal', 'postgresql', 'pipelined'],
  ['change-tracking', 'sqlite', 'a chunk per step'],
  ['journal', 'postgresql', 'a chunk per step'],
] as const)('a %s table changing while it is copied into %s, %s', (sourceKind, targetKind, steps) => {
  it('ends equal to the source: no row lost, doubled or stale', async () => {
    const h = await sources.harness(sourceKind);
    const client = sources.client();
    const table = await h.createTable(
      `C${targetKind === 'sqlite' ? 'S' : 'P'}${steps === 'pipelined' ? 'R' : 'O'}`,
    );
    const expected = new Map<number, ContractRow>();
    const insert = async (id: number, name: string) => {
      const row = { id, name, amount: `${id % 100}.25` };
      await h.insert(table, [row]);
      expected.set(id, row);
    };
    const update = async (id: number, name: string) => {
      const row = expected.get(id);
      if (!row) return;
      await h.update(table, id, name);
      expected.set(id, { ...row, name });
    };
    const remove = async (id: number) => {
      if (!expected.has(id)) return;
      await h.remove(table, id);
      expected.delete(id);
    };
    for (let i = 1; i <= 300; i++) await insert(i * 10, `row ${i * 10}`);
    const CHUNK = 50;
    // Each chunk's read as it starts, and each commit: whether a read ran ahead of the last commit.
    const log: string[] = [];
    const copiedUpTo = (n: number) => n * CHUNK * 10;
    const changes = {
      async before(n: number) {
        log.push(`read ${n}`);
        if (n === 0) return;
        const edge = copiedUpTo(n);
        await update(edge - 30, `copied, then changed ${n}`);
        await remove(edge - 70);
        await update(edge + 200, `changed before its chunk ${n}`);
        await remove(edge + 300);
        await insert(edge - 95, `inserted behind the cursor ${n}`);
        await insert(edge + 105, `inserted ahead of the cursor ${n}`);
        await insert(5000 + n, `inserted past the end ${n}`);
      },
      async after(n: number, rows: Row[]) {
        if (rows.length < 3) return;
        const ids = rows.map((r) => h.normalize(r).id);
        await update(ids[1] as number, `changed after its chunk was read ${n}`);
        await remove(ids.at(-1) as number);
      },
    };
    const path = join(mkdtempSync(join(tmpdir(), 'cdc-copying-')), 'replica.sqlite');
    const schema = `copying_${process.pid}_${sourceKind.replace('-', '_')}`;
    if (targetKind === 'postgresql') await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    const openTarget = async (): Promise<Target> =>
      targetKind === 'sqlite'
        ? new SqliteTarget(path, 'copying')
        : new PostgresTarget({ ...POSTGRES, schema }, 'copying');
    const events: RunnerEvent[] = [];
    const runner = new PipelineRunner({
      openSource: async () => interceptChunks(await h.open(), changes),
      openTarget,
      entities: [h.entity(table)],
      snapshotChunkRows: CHUNK,
      maxRows: 25,
      // Pipelined: a step copies for up to a second, each chunk read while the last is committed (the
      // changes made right after a chunk's read then fall between that read and its commit).
      copyStepMs: steps === 'pipelined' ? 60_000 : 0,
      onEvent: (e) => {
        events.push(e);
        if (e.kind === 'snapshot-progress') log.push('commit');
      },
    });
    await runner.runUntilCaughtUp();
    expect(runner.failure).toBeNull();
    const done = events.find((e) => e.kind === 'snapshot-done');
    expect(done).toBeDefined();
    const firstBatch = events.findIndex((e) => e.kind === 'batch-applied');
    if (steps === 'pipelined') {
      // Each chunk's read started before the chunk before it was committed.
      const reads = log.filter((x) => x.startsWith('read')).length;
      expect(reads).toBeGreaterThan(5);
      for (let n = 1; n < reads; n++) expect(log.indexOf(`read ${n}`)).toBeLessThan(nthCommit(log, n));
    } else {
      // Changes were applied while the copy ran, not only after it.
      expect(firstBatch).toBeGreaterThan(-1);
      expect(firstBatch).toBeLessThan(events.indexOf(done as RunnerEvent));
    }
    const name = h.entity(table).target.table;
    const rows =
      targetKind === 'sqlite'
        ? (new Database(path, { readonly: true }).prepare(`SELECT * FROM "${name}"`).all() as Row[])
        : ((await client.query(`SELECT * FROM "${schema}"."${name}"`)).rows as Row[]);
    const got = rows.map((r) => h.normalize(r)).sort((a, b) => a.id - b.id);
    expect(got).toEqual([...expected.values()].sort((a, b) => a.id - b.id));
  });
});

/**
 * Change Tracking into a new SQLite file, `tables` of dbo copied two at once in chunks of 1,000
 * rows (one connection stays the stream's), with the step length and events the test wants.
 */
function twoCopiesAtOnce(
  pipelineId: string,
  tables: string[],
  o: { copyStepMs: number; onEvent: (e: RunnerEvent) => void },
): { runner: PipelineRunner; path: string } {
  const path = join(mkdtempSync(join(tmpdir(), `cdc-${pipelineId}-`)), 'replica.sqlite');
  const runner = new PipelineRunner({
    openSource: () =>
      openChangeTrackingSource({
        credentials: sandboxCredentials(sources.mssql(), { maxConnectionsCount: 3 }),
        configuration: ctConfiguration(),
        pipelineId,
        agentId: 'src',
      }),
    openTarget: async () => new SqliteTarget(path, pipelineId),
    entities: tables.map((t) => ({ source: { schema: 'dbo', table: t }, target: { table: t } })),
    snapshotChunkRows: 1000,
    copyConcurrency: 2,
    idleMs: 20,
    ...o,
  });
  return { runner, path };
}

describe('two tables copied at once while a third streams', () => {
  it('keeps applying the third table’s changes during the copies, with a bounded lag', async () => {
    const pool: sql.ConnectionPool = await sandboxPool(sources.mssql(), { max: 2 });
    const ROWS = 30_000;
    await pool.request().batch(`      CREATE TABLE dbo.CopyA (Id INT PRIMARY KEY, Note NVARCHAR(40) NOT NULL);
      CREATE TABLE dbo.CopyB (Id INT PRIMARY KEY, Note NVARCHAR(40) NOT NULL);
      CREATE TABLE dbo.Live (Id INT PRIMARY KEY, Note NVARCHAR(40) NOT NULL);
      ALTER TABLE dbo.CopyA ENABLE CHANGE_TRACKING;
      ALTER TABLE dbo.CopyB ENABLE CHANGE_TRACKING;
      ALTER TABLE dbo.Live ENABLE CHANGE_TRACKING;`);
    for (let from = 0; from < ROWS; from += 1000) {
      const values = Array.from({ length: 1000 }, (_, i) => `(${from + i}, N'copy ${from + i}')`).join(', ');
      await pool
        .request()
        .batch(`INSERT INTO dbo.CopyA VALUES ${values}; INSERT INTO dbo.CopyB VALUES ${values};`);
    }
    const events: { at: number; e: RunnerEvent }[] = [];
    // The streaming table first: it is copied (empty) at once, then streams while the others copy.
    const { runner, path } = twoCopiesAtOnce('concurrent', ['Live', 'CopyA', 'CopyB'], {
      // Steps far shorter than the copies (an idle machine copies both in under half a second): the
      // stream's turns come between them.
      copyStepMs: 50,
      onEvent: (e) => events.push({ at: Date.now(), e }),
    });
    const loop = runner.start();
    let next = 0;
    let writing = true;
    const writer = (async () => {
      while (writing) {
        await pool.request().batch(`INSERT INTO dbo.Live VALUES (${next}, N'live ${next}')`);
        next++;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const copiesDone = () =>
      events.filter((x) => x.e.kind === 'snapshot-done' && x.e.table !== 'dbo.Live').length;
    while (copiesDone() < 2) await new Promise((resolve) => setTimeout(resolve, 50));
    writing = false;
    await writer;
    // The last insert is applied before the runner stops (stopping at once may leave it unread).
    const liveRows = () =>
      (
        new Database(path, { readonly: true }).prepare('SELECT COUNT(*) AS n FROM "Live"').get() as {
          n: number;
        }
      ).n;
    await until('the last insert into dbo.Live applied', () => liveRows() === next);
    await runner.stop();
    await loop;
    expect(runner.failure).toBeNull();
    const progress = events.filter((x) => x.e.kind === 'snapshot-progress' && x.e.table !== 'dbo.Live');
    const first = progress[0]?.at ?? 0;
    const last =
      events.filter((x) => x.e.kind === 'snapshot-done' && x.e.table !== 'dbo.Live').at(-1)?.at ?? 0;
    // Both copies advanced together: B's chunks began long before A's ended.
    const order = progress.map((x) => (x.e.kind === 'snapshot-progress' ? x.e.table : ''));
    expect(order.indexOf('dbo.CopyB')).toBeLessThan(order.lastIndexOf('dbo.CopyA') * 0.75);
    const during = events.filter((x) => x.e.kind === 'batch-applied' && x.at > first && x.at < last);
    const lags = during.flatMap((x) =>
      x.e.kind === 'batch-applied' && x.e.lagMs !== null ? [x.e.lagMs] : [],
    );
    lags.sort((a, b) => a - b);
    const changesDuring = during.reduce((n, x) => n + (x.e.kind === 'batch-applied' ? x.e.changes : 0), 0);
    console.log(
      `2 × ${ROWS.toLocaleString('en')} rows copied in ${((last - first) / 1000).toFixed(1)} s while dbo.Live streamed: ` +
        `${during.length} batches (${changesDuring} changes) applied during the copies; lag p50 ${lags[Math.floor(lags.length / 2)]} ms, max ${lags.at(-1)} ms`,
    );
    // The stream had its turns while the copies ran (a step copies for at most copyStepMs).
    expect(during.length).toBeGreaterThanOrEqual(2);
    expect(lags.at(-1)).toBeLessThan(5000);
    // Every row of the streaming table arrived, none twice.
    expect(liveRows()).toBe(next);
    await pool.close();
  });
});

describe('copy slots', () => {
  it('gives a slot freed by a finished copy to the next table within the same step', async () => {
    const pool: sql.ConnectionPool = await sandboxPool(sources.mssql(), { max: 2 });
    await pool.request().batch(`CREATE TABLE dbo.SlotEmpty (Id INT PRIMARY KEY);
      CREATE TABLE dbo.SlotA (Id INT PRIMARY KEY, Note NVARCHAR(40) NOT NULL);
      CREATE TABLE dbo.SlotB (Id INT PRIMARY KEY, Note NVARCHAR(40) NOT NULL);
      ALTER TABLE dbo.SlotEmpty ENABLE CHANGE_TRACKING;
      ALTER TABLE dbo.SlotA ENABLE CHANGE_TRACKING;
      ALTER TABLE dbo.SlotB ENABLE CHANGE_TRACKING;`);
    for (let from = 0; from < 10_000; from += 1000) {
      const values = Array.from({ length: 1000 }, (_, i) => `(${from + i}, N'slot ${from + i}')`).join(', ');
      await pool
        .request()
        .batch(`INSERT INTO dbo.SlotA VALUES ${values}; INSERT INTO dbo.SlotB VALUES ${values};`);
    }
    const reads: string[] = [];
    // The empty table takes a slot first and frees it at once; both others fit in one long step.
    const { runner } = twoCopiesAtOnce('slots', ['SlotEmpty', 'SlotA', 'SlotB'], {
      copyStepMs: 60_000,
      onEvent: (e) => {
        if (e.kind === 'snapshot-chunk-read') reads.push(e.table);
      },
    });
    await runner.runUntilCaughtUp();
    expect(runner.failure).toBeNull();
    // SlotB began beside SlotA's first chunks, not after SlotA's whole copy (the next step).
    const firstOfB = reads.indexOf('dbo.SlotB');
    const thirdOfA = reads.map((t, i) => (t === 'dbo.SlotA' ? i : -1)).filter((i) => i >= 0)[2] ?? -1;
    expect(firstOfB).toBeGreaterThan(-1);
    expect(firstOfB, reads.join(' ')).toBeLessThan(thirdOfA);
    await pool.close();
  });
});
