// Verify and repair at size (docs/verify.md): a table of BENCH_VERIFY_ROWS rows (1,000,000) in each
// simulator, copied into SQLite and PostgreSQL by a running pipeline, then verified while changes
// stream (it must come out clean); then rows deleted, altered and added at the target behind the
// engine's back, which the next verify must find exactly and a repair mend (a third verify clean).
// Figures: rows verified per second, beside the raw read rate of the same table through the same
// agent (chunks of the same size, nothing compared), in the same run. Anything wrong throws.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { openJournalSource } from '../main/agents/journal/source';
import { PostgresTarget } from '../main/agents/postgresql/target';
import { readWhole, type SourceAgent, type TableRef } from '../main/agents/source';
import { SqliteTarget } from '../main/agents/sqlite/target';
import type { Target } from '../main/agents/target';
import { PipelineRunner } from '../main/runner/pipelineRunner';
import type { RunnerEvent } from '../main/runner/events';
import { startSandboxIbmi } from '../simulators/ibmi';
import { SEED_ADMIN, seedAgentCredentials } from '../simulators/ibmi/seed';
import { startSandboxSqlServer } from '../simulators/mssql';
import { verifiedClean, verifyRequestSchema, type VerifyReport } from '../shared/verify';
import type { Benchmark, Figure } from './harness';
import { dropPostgresSchema, PG, ratio } from './rawTargets';
import { BENCH_CONFIGURATION, BENCH_LOGIN, benchCredentials } from './sandboxSource';
import { openChangeTrackingSource } from '../main/agents/changeTracking/source';

const ROWS = Number(process.env.BENCH_VERIFY_ROWS ?? 1_000_000);
const CHUNK = 10_000;
const options = verifyRequestSchema.parse({ chunkRows: CHUNK });

interface World {
  label: 'ct' | 'journal';
  ref: TableRef;
  /** The key and a text column as the agent names them. */
  id: string;
  name: string;
  open(pipelineId: string): Promise<SourceAgent>;
  /** One change at the source, in turn an update, an insert and a delete (numbered across the run). */
  change(n: number): Promise<void>;
  /** Changes made so far, so a second pipeline's writer goes on from there. */
  changes: number;
  close(): Promise<void>;
}

async function sqlServerWorld(): Promise<World> {
  const sandbox = await startSandboxSqlServer({ logins: [BENCH_LOGIN], databases: ['Sales'] });
  const open = (pipelineId: string) =>
    openChangeTrackingSource({
      credentials: benchCredentials(sandbox, 3),
      configuration: BENCH_CONFIGURATION,
      pipelineId,
      agentId: 'src',
    });
  const admin = await open('setup');
  await admin.pool.request().batch(`ALTER DATABASE Sales SET CHANGE_TRACKING = ON (CHANGE_RETENTION = 5 DAYS);
    ALTER DATABASE Sales SET ALLOW_SNAPSHOT_ISOLATION ON;
    CREATE TABLE dbo.Big (Id INT PRIMARY KEY, Name NVARCHAR(50) NOT NULL, Amount DECIMAL(12, 2) NOT NULL, At DATETIME2(3) NOT NULL);
    ALTER TABLE dbo.Big ENABLE CHANGE_TRACKING;`);
  for (let from = 0; from < ROWS; from += 1000) {
    const values = Array.from(
      { length: Math.min(1000, ROWS - from) },
      (_, i) => `(${from + i}, N'row ${from + i}', ${(from + i) % 1000}.25, '2026-01-01 10:00:00.123')`,
    );
    await admin.pool.request().batch(`INSERT INTO dbo.Big VALUES ${values.join(', ')}`);
  }
  return {
    label: 'ct',
    ref: { schema: 'dbo', table: 'Big' },
    id: 'Id',
    name: 'Name',
    open,
    changes: 0,
    change: async (n) => {
      const at = (n * 7919) % ROWS;
      await admin.pool
        .request()
        .batch(
          n % 3 === 0
            ? `UPDATE dbo.Big SET Name = N'changed ${n}' WHERE Id = ${at}`
            : n % 3 === 1
              ? `INSERT INTO dbo.Big VALUES (${ROWS + n}, N'new ${n}', 1.00, '2026-01-02 10:00:00')`
              : `DELETE FROM dbo.Big WHERE Id = ${ROWS + n - 1}`,
        );
    },
    close: async () => {
      await admin.close();
      await sandbox.close();
    },
  };
}

async function ibmiWorld(): Promise<World> {
  const sandbox = await startSandboxIbmi({ seed: true });
  const admin = await sandbox.connect({ ...SEED_ADMIN });
  await admin.query('CREATE SCHEMA BENCH');
  await admin.query(
    'CREATE TABLE BENCH.BIG (ID INTEGER NOT NULL PRIMARY KEY, NAME VARCHAR(50) NOT NULL, AMOUNT DECIMAL(12,2) NOT NULL, AT TIMESTAMP NOT NULL)',
  );
  await admin.command('CHGJRNOBJ OBJ((BENCH/BIG *FILE)) ATR(*IMAGES) IMAGES(*BOTH)');
  for (let from = 0; from < ROWS; from += 1000) {
    const values = Array.from(
      { length: Math.min(1000, ROWS - from) },
      (_, i) => `(${from + i}, 'row ${from + i}', ${(from + i) % 1000}.25, '2026-01-01-10.00.00.123000')`,
    );
    await admin.query(`INSERT INTO BENCH.BIG VALUES ${values.join(', ')}`);
  }
  return {
    label: 'journal',
    ref: { schema: 'BENCH', table: 'BIG' },
    id: 'ID',
    name: 'NAME',
    open: (pipelineId) =>
      openJournalSource({
        credentials: seedAgentCredentials(sandbox.host, {
          syncLibrary: `S${pipelineId.slice(0, 9).toUpperCase()}`,
        }),
        configuration: {
          dateFormat: null,
          timeFormat: null,
          invalidDecimals: 'keep-row-aside',
          invalidDates: 'keep-row-aside',
          snapshotMode: 'initial',
          snapshotChunkRows: CHUNK,
          droppedColumns: 'keep',
          onTableError: 'suspend-table',
          maxExceptions: 1000,
          schemaChanges: 'propagate',
          droppedTables: 'keep',
        },
        pipelineId,
        agentId: 'src',
      }),
    changes: 0,
    change: async (n) => {
      const at = (n * 7919) % ROWS;
      if (n % 3 === 0) await admin.query(`UPDATE BENCH.BIG SET NAME = 'changed ${n}' WHERE ID = ${at}`);
      else if (n % 3 === 1)
        await admin.query(
          `INSERT INTO BENCH.BIG VALUES (${ROWS + n}, 'new ${n}', 1.00, '2026-01-02-10.00.00')`,
        );
      else await admin.query(`DELETE FROM BENCH.BIG WHERE ID = ${ROWS + n - 1}`);
    },
    close: async () => {
      await admin.close();
      await sandbox.close();
    },
  };
}

/** Waits for the runner's verify or repair started by `start` to finish. */
async function settled(runner: PipelineRunner, start: () => VerifyReport): Promise<VerifyReport> {
  const { id } = start();
  for (;;) {
    const r = runner.verifyReport();
    if (r?.id === id && r.finishedAt !== null) return r;
    if (runner.failure) throw new Error(runner.failure);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const seconds = (ms: number) => Math.round(ms / 100) / 10;

async function verifyInto(
  w: World,
  kind: 'sqlite' | 'postgres',
  dir: string,
  rawRead: number,
): Promise<Figure[]> {
  const pipelineId = `v${w.label}${kind}`.slice(0, 10);
  const schema = `cdc_bench_verify_${process.pid}`;
  const path = join(dir, `${pipelineId}.sqlite`);
  if (kind === 'postgres') await dropPostgresSchema(schema);
  const events: RunnerEvent[] = [];
  const runner = new PipelineRunner({
    openSource: () => w.open(pipelineId),
    openTarget: async (): Promise<Target> =>
      kind === 'sqlite'
        ? new SqliteTarget(path, pipelineId)
        : new PostgresTarget({ ...PG, schema }, pipelineId),
    entities: [{ source: w.ref, target: { table: 'big' } }],
    snapshotChunkRows: CHUNK,
    idleMs: 50,
    onEvent: (e) => events.push(e),
  });
  void runner.start();
  const name = `verify.${w.label}→${kind}`;
  try {
    while (!events.some((e) => e.kind === 'snapshot-done')) {
      if (runner.failure) throw new Error(runner.failure);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Changes all through the first verify, a few dozen a second.
    let writing = true;
    const first = w.changes;
    const writer = (async () => {
      while (writing) {
        await w.change(++w.changes);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const started = performance.now();
    const clean = await settled(runner, () => runner.requestVerify(undefined, options));
    const took = performance.now() - started;
    writing = false;
    await writer;
    if (!verifiedClean(clean))
      throw new Error(`${name}: a false difference ${JSON.stringify(clean.tables[0])}`);
    const compared = clean.tables[0]?.rowsCompared ?? 0;

    // Behind the engine's back: three rows deleted, three altered, three added at the target.
    const t = `"${w.id}"`;
    // Rows the writer never updated: an update still in flight would bring a deleted row back.
    const touched = new Set(Array.from({ length: w.changes + 1 }, (_, n) => (n * 7919) % ROWS));
    const untouched = (from: number) => {
      let id = from;
      while (touched.has(id)) id++;
      touched.add(id);
      return id;
    };
    const ids = (...from: number[]) => from.map(untouched).join(', ');
    const statements = [
      `DELETE FROM big WHERE ${t} IN (${ids(11, Math.floor(ROWS / 5), ROWS - 30)})`,
      `UPDATE big SET "${w.name}" = 'tampered' WHERE ${t} IN (${ids(12, Math.floor(ROWS / 3), ROWS - 40)})`,
      `INSERT INTO big SELECT ${t} + ${ROWS * 10}, "${w.name}", "${w.label === 'ct' ? 'Amount' : 'AMOUNT'}", "${w.label === 'ct' ? 'At' : 'AT'}" FROM big WHERE ${t} IN (${ids(13, Math.floor(ROWS / 2), ROWS - 50)})`,
    ];
    if (kind === 'sqlite') {
      const db = new Database(path, { timeout: 10_000 });
      for (const s of statements) db.prepare(s).run();
      db.close();
    } else {
      const client = new pg.Client(PG);
      await client.connect();
      await client.query(`SET search_path TO "${schema}"`);
      for (const s of statements) await client.query(s);
      await client.end();
    }
    const found = await settled(runner, () => runner.requestVerify(undefined, options));
    const counts = found.tables[0]?.counts;
    if (counts?.missing !== 3 || counts.extra !== 3 || counts.different !== 3)
      throw new Error(`${name}: found ${JSON.stringify(counts)}, not 3 missing, 3 extra, 3 different`);
    const repairStarted = performance.now();
    const repaired = await settled(runner, () => runner.requestRepair());
    const repairTook = performance.now() - repairStarted;
    if (!verifiedClean(repaired)) throw new Error(`${name}: not clean after the repair`);
    const rate = Math.round(compared / (took / 1000));
    return [
      { name: `${name}.rows`, value: compared, unit: 'rows' },
      {
        name: `${name}.whileStreaming`,
        value: seconds(took),
        unit: `s (${w.changes - first} changes meanwhile)`,
      },
      { name: name, value: rate, unit: 'rows/s' },
      { name: `${name}.ratio`, value: ratio(rate, rawRead), unit: 'of raw read' },
      { name: `${name}.repairAndVerify`, value: seconds(repairTook), unit: 's' },
    ];
  } finally {
    await runner.stop();
    if (kind === 'postgres') await dropPostgresSchema(schema);
  }
}

/** The raw read: the whole table through the agent in chunks of the same size, nothing compared. */
async function rawReadRate(w: World): Promise<number> {
  const source = await w.open('rawread');
  try {
    const started = performance.now();
    const { rows } = await readWhole(source, w.ref, async () => undefined, { snapshotChunkRows: CHUNK });
    return Math.round(rows / ((performance.now() - started) / 1000));
  } finally {
    await source.close();
  }
}

export const verifyBenchmark: Benchmark = {
  name: 'verify',
  run: async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cdc-bench-verify-'));
    const figures: Figure[] = [];
    for (const make of [sqlServerWorld, ibmiWorld]) {
      const w = await make();
      try {
        const raw = await rawReadRate(w);
        figures.push({ name: `verify.${w.label}.rawRead`, value: raw, unit: 'rows/s' });
        for (const kind of ['sqlite', 'postgres'] as const)
          figures.push(...(await verifyInto(w, kind, dir, raw)));
      } finally {
        await w.close();
      }
    }
    return figures;
  },
};
