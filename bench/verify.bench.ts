// Verify and repair at size (docs/verify.md): a table of BENCH_VERIFY_ROWS rows (1,000,000) in each
// simulator, copied into SQLite and PostgreSQL by a running pipeline, then verified while changes
// stream (three times, each after a raw read of the source; it must come out clean); then rows
// deleted, altered and added at the target behind the engine's back, which the next verify must find
// exactly and a repair mend (a third verify clean). Figures: rows verified per second (the median),
// as a ratio to the slower of its two raw reads in the same run (issue 42): the source's chunked
// keyset read through the same driver (worlds.ts, the simulator out of the bench's thread) and a
// key-ordered scan of the target table. Anything wrong throws.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { PostgresTarget } from '../main/agents/postgresql/target';
import { SqliteTarget } from '../main/agents/sqlite/target';
import type { Target } from '../main/agents/target';
import { PipelineRunner } from '../main/runner/pipelineRunner';
import type { RunnerEvent } from '../main/runner/events';
import { verifiedClean, verifyRequestSchema, type VerifyReport } from '../shared/verify';
import type { Benchmark, Figure } from './harness';
import { dropPostgresSchema, median, PG, ratio, rawPostgresScanRate, rawSqliteScanRate } from './rawTargets';
import { BENCH_SALT, benchShaping, CHUNK, ibmiWorld, sqlServerWorld, type World } from './worlds';

const ROWS = Number(process.env.BENCH_VERIFY_ROWS ?? 1_000_000);
const options = verifyRequestSchema.parse({ chunkRows: CHUNK });

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

/** Clean verifies timed per line, each after a raw read of the source: the figures are medians. */
const ROUNDS = 3;

async function verifyInto(
  w: World,
  kind: 'sqlite' | 'postgres',
  dir: string,
  shaped = false,
): Promise<Figure[]> {
  // Apart in their first ten characters: the journal agent keeps its position under an IBM i name.
  const pipelineId = `${shaped ? 's' : 'v'}${w.label}${kind}`.slice(0, 10);
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
    entities: [{ source: w.ref, target: { table: 'big' }, ...(shaped && benchShaping(w)) }],
    maskSalt: BENCH_SALT,
    snapshotChunkRows: CHUNK,
    idleMs: 50,
    onEvent: (e) => events.push(e),
  });
  void runner.start();
  const name = `verify.${w.label}→${kind}${shaped ? '.shaped' : ''}`;
  try {
    while (!events.some((e) => e.kind === 'snapshot-done')) {
      if (runner.failure) throw new Error(runner.failure);
      const held = events.find((e) => e.kind === 'table-suspended');
      if (held) throw new Error(`${name}: the table was held: ${JSON.stringify(held)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // The target's raw read: a key-ordered scan of the copied table, nothing compared.
    const rawTargetRead =
      kind === 'sqlite'
        ? await rawSqliteScanRate(path, 'big', w.id)
        : await rawPostgresScanRate(schema, 'big', w.id, CHUNK);
    // Changes all through the clean verifies, a few dozen a second; before each, a raw read of the
    // source, so that a machine slowing for a while slows both alike.
    let writing = true;
    const first = w.changes;
    const writer = (async () => {
      while (writing) {
        await w.change(++w.changes);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const reads: number[] = [];
    const rates: number[] = [];
    const times: number[] = [];
    let compared = 0;
    try {
      for (let round = 0; round < ROUNDS; round++) {
        reads.push(await w.rawRead());
        const started = performance.now();
        const clean = await settled(runner, () => runner.requestVerify(undefined, options));
        const took = performance.now() - started;
        if (!verifiedClean(clean))
          throw new Error(`${name}: a false difference ${JSON.stringify(clean.tables[0])}`);
        compared = clean.tables[0]?.rowsCompared ?? 0;
        rates.push(Math.round(compared / (took / 1000)));
        times.push(took);
      }
    } finally {
      writing = false;
      await writer;
    }
    const rawRead = median(reads);
    const rate = median(rates);
    const ratioFigure: Figure = {
      name: `${name}.ratio`,
      value: ratio(rate, Math.min(rawRead, rawTargetRead)),
      unit: 'of the slower raw read',
    };
    // A shaped verify measures the shaping's cost: its planted differences are the plain line's.
    if (shaped) return [{ name, value: rate, unit: 'rows/s (hash + filter)' }, ratioFigure];

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
    return [
      { name: `${name}.rows`, value: compared, unit: 'rows' },
      {
        name: `${name}.whileStreaming`,
        value: seconds(median(times)),
        unit: `s, median of ${ROUNDS} (${w.changes - first} changes meanwhile)`,
      },
      { name: `${name}.rawRead`, value: rawRead, unit: 'rows/s (the source, median)' },
      { name: name, value: rate, unit: 'rows/s' },
      { name: `${name}.rawTargetRead`, value: rawTargetRead, unit: 'rows/s (key-ordered scan)' },
      ratioFigure,
      { name: `${name}.repairAndVerify`, value: seconds(repairTook), unit: 's' },
    ];
  } finally {
    await runner.stop();
    if (kind === 'postgres') await dropPostgresSchema(schema);
  }
}

export const verifyBenchmark: Benchmark = {
  name: 'verify',
  run: async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cdc-bench-verify-'));
    const figures: Figure[] = [];
    for (const make of [sqlServerWorld, ibmiWorld]) {
      const w = await make(ROWS);
      try {
        for (const kind of ['sqlite', 'postgres'] as const) figures.push(...(await verifyInto(w, kind, dir)));
        figures.push(...(await verifyInto(w, 'sqlite', dir, true)));
      } finally {
        await w.close();
      }
    }
    return figures;
  },
};
