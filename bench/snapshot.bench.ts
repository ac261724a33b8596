// Table copies: rows per second copied by the runner from each simulator (out of the bench's thread)
// into SQLite and PostgreSQL, as a ratio to the slower of its two raw ends measured in the same run
// (issue 42): the raw source read is the copy's own chunked keyset read through the same driver, the
// raw target write SQLite's prepared insert or PostgreSQL's COPY of the same rows. And a 5,000,000-row
// copy from a synthetic source into SQLite in a process of its own (copyMemory.ts), with that
// process's peak memory.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PostgresTarget } from '../main/agents/postgresql/target';
import { SqliteTarget } from '../main/agents/sqlite/target';
import type { Target } from '../main/agents/target';
import { PipelineRunner } from '../main/runner/pipelineRunner';
import type { Benchmark, Figure } from './harness';
import {
  benchRows,
  createPostgresSchema,
  dropPostgresSchema,
  median,
  PG,
  ratio,
  rawPostgresCopyRate,
  rawSqliteRate,
} from './rawTargets';
import { BENCH_SALT, benchShaping, CHUNK, ibmiWorld, sqlServerWorld, type World } from './worlds';

const COPIED = Number(process.env.BENCH_SNAPSHOT_ROWS ?? 100_000);
const SYNTHETIC = Number(process.env.BENCH_COPY_ROWS ?? 5_000_000);
const AT = '2026-01-01 10:00:00.123';
const ROUNDS = 5;

/** The synthetic copy's rate and memory, in a process of its own: the peak is the copy's alone. */
function syntheticCopy(): Figure[] {
  const copied = JSON.parse(
    execFileSync(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(new URL('./copyMemory.ts', import.meta.url))],
      {
        encoding: 'utf8',
        env: { ...process.env, BENCH_COPY_ROWS: String(SYNTHETIC) },
      },
    ),
  ) as { rowsPerSecond: number; rssBefore: number; rssPeak: number; heapPeak: number };
  const label = `snapshot.synthetic${SYNTHETIC / 1e6}M`;
  return [
    { name: `${label}→sqlite`, value: copied.rowsPerSecond, unit: 'rows/s' },
    { name: `${label}.rss.before`, value: copied.rssBefore, unit: 'MiB' },
    { name: `${label}.rss.peak`, value: copied.rssPeak, unit: 'MiB' },
    { name: `${label}.heap.peak`, value: copied.heapPeak, unit: 'MiB' },
  ];
}

/** One copy of the world's table into a new target: rows per second from its start to its end. */
async function copyOnce(
  w: World,
  kind: 'sqlite' | 'postgres',
  round: number,
  dir: string,
  schema: string,
  shaped = false,
  open = w.open,
): Promise<number> {
  const pipelineId = `${w.label[0]}${kind[0]}${round}${shaped ? 's' : ''}`;
  const target = async (): Promise<Target> =>
    kind === 'sqlite'
      ? new SqliteTarget(join(dir, `${pipelineId}.sqlite`), pipelineId)
      : new PostgresTarget({ ...PG, schema: `${schema}_${pipelineId}` }, pipelineId);
  // The copy's own time, from its start to its last chunk's commit, as the Run panel's rate counts it.
  let started = 0;
  let took = 0;
  await new PipelineRunner({
    openSource: () => open(pipelineId),
    openTarget: target,
    entities: [{ source: w.ref, target: { table: 'big' }, ...(shaped && benchShaping(w)) }],
    maskSalt: BENCH_SALT,
    snapshotChunkRows: CHUNK,
    onEvent: (e) => {
      if (e.kind === 'snapshot-started') started = performance.now();
      if (e.kind === 'snapshot-done') took = performance.now() - started;
    },
  }).runUntilCaughtUp();
  if (kind === 'postgres') await dropPostgresSchema(`${schema}_${pipelineId}`);
  return Math.round(COPIED / (took / 1000));
}

async function rawWriteRate(kind: 'sqlite' | 'postgres', dir: string, schema: string): Promise<number> {
  const rows = benchRows(COPIED, AT);
  const rates: number[] = [];
  for (let round = 0; round < ROUNDS; round++)
    rates.push(kind === 'sqlite' ? await rawSqliteRate(dir, rows) : await rawPostgresCopyRate(schema, rows));
  return median(rates);
}

/**
 * The copy into SQLite from a source 30 ms a round trip away (issue 58), three rounds: its median as
 * a ratio to the same run's copy with no delay, and what the link counted over each whole run.
 */
async function farCopies(
  w: World,
  far: NonNullable<World['far']>,
  near: number,
  dir: string,
  schema: string,
): Promise<Figure[]> {
  const rates: number[] = [];
  const turns: number[] = [];
  for (let round = 0; round < 3; round++) {
    const before = await far.turns();
    await far.farAway(true);
    try {
      rates.push(await copyOnce(w, 'sqlite', ROUNDS + round, dir, schema, false, far.open));
    } finally {
      await far.farAway(false);
    }
    turns.push((await far.turns()) - before);
  }
  const label = `snapshot.${w.label}→sqlite.at30ms`;
  return [
    { name: label, value: ratio(median(rates), near), unit: 'of no delay' },
    { name: `${label}.rate`, value: median(rates), unit: 'rows/s' },
    { name: `${label}.turns`, value: median(turns), unit: `${far.turnsAre} (the whole run)` },
  ];
}

export const snapshotBenchmark: Benchmark = {
  name: 'snapshot',
  run: async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cdc-bench-snapshot-'));
    const schema = `cdc_bench_snap_${process.pid}`;
    const figures: Figure[] = syntheticCopy();
    await createPostgresSchema(schema);
    try {
      const rawWrite = {
        sqlite: await rawWriteRate('sqlite', dir, schema),
        postgres: await rawWriteRate('postgres', dir, schema),
      };
      figures.push(
        {
          name: 'snapshot.raw.sqlite.write',
          value: rawWrite.sqlite,
          unit: 'rows/s (fastest prepared insert)',
        },
        { name: 'snapshot.raw.postgres.write', value: rawWrite.postgres, unit: 'rows/s (COPY)' },
      );
      for (const make of [sqlServerWorld, ibmiWorld]) {
        const w = await make(COPIED);
        try {
          // Rounds of a raw read and a copy into each target in turn, so a machine that slows for a
          // while slows all three alike; the median of each.
          // A shaped copy (a hash and a filter) in the same rounds: its cost against the plain one.
          const reads: number[] = [];
          const copies = { sqlite: [] as number[], postgres: [] as number[] };
          const shapedCopies = { sqlite: [] as number[], postgres: [] as number[] };
          for (let round = 0; round < ROUNDS; round++) {
            reads.push(await w.rawRead());
            for (const kind of ['sqlite', 'postgres'] as const) {
              copies[kind].push(await copyOnce(w, kind, round, dir, schema));
              shapedCopies[kind].push(await copyOnce(w, kind, round, dir, schema, true));
            }
          }
          const rawRead = median(reads);
          figures.push({ name: `snapshot.${w.label}.rawRead`, value: rawRead, unit: 'rows/s' });
          if (w.far) figures.push(...(await farCopies(w, w.far, median(copies.sqlite), dir, schema)));
          for (const kind of ['sqlite', 'postgres'] as const) {
            const rate = median(copies[kind]);
            const shapedRate = median(shapedCopies[kind]);
            const slower = Math.min(rawRead, rawWrite[kind]);
            figures.push(
              { name: `snapshot.${w.label}→${kind}`, value: rate, unit: 'rows/s' },
              {
                name: `snapshot.${w.label}→${kind}.ratio`,
                value: ratio(rate, slower),
                unit: 'of the slower raw end',
              },
              {
                name: `snapshot.${w.label}→${kind}.shaped`,
                value: shapedRate,
                unit: 'rows/s (hash + filter)',
              },
              {
                name: `snapshot.${w.label}→${kind}.shaped.ratio`,
                value: ratio(shapedRate, slower),
                unit: 'of the slower raw end',
              },
            );
          }
        } finally {
          await w.close();
        }
      }
    } finally {
      await dropPostgresSchema(schema);
    }
    return figures;
  },
};
