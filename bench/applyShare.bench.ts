// A stream applied by one engine, then by two sharing its tables (leases, a fair share each): the same
// captured events — TABLES tables of ROWS inserts each, Debezium events on this machine's NATS — applied
// into PostgreSQL from scratch, timed from the first start until every row is in. The figure that
// moves if sharing stops working: apply.jetstream→postgres.2engines.gain, the rate with two engines
// over the rate with one (1 = a second engine adds nothing, as when the first kept every table). Each
// engine runs on a worker thread of its own, as engines on two machines have an event loop each.
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import pg from 'pg';
import { natsConfiguration } from '../shared/agents/nats';
import { NatsTarget } from '../main/agents/nats/target';
import type { SourceAgent, TableShape } from '../main/agents/source';
import { PipelineRunner } from '../main/runner/pipelineRunner';
import { Worker } from 'node:worker_threads';
import type { ApplyEngineData } from './applyEngineWorker';
import type { Benchmark } from './harness';
import { deleteStreams, NATS_SERVERS as SERVERS, natsCredentials as credentials } from './natsStreams';
import { benchRows, PG } from './rawTargets';
import { SYNTHETIC_SHAPE, SYNTHETIC_TABLE, syntheticChanges, syntheticSource } from './syntheticSource';

const TABLES = 4;
const ROWS = Number(process.env.BENCH_APPLY_ROWS ?? 20_000);
const tableName = (k: number) => `T${k}`;

/** The synthetic source's one table, renamed dbo.T<k>. */
function tableSource(k: number): SourceAgent {
  const inner = syntheticSource(syntheticChanges(benchRows(ROWS, '2026-01-01 10:00:00.123000')));
  const table = `dbo.${tableName(k)}`;
  const shape: TableShape = { ...SYNTHETIC_SHAPE, ref: { schema: 'dbo', table: tableName(k) } };
  return {
    ...inner,
    describe: async () => [shape],
    readChanges: async (tables, checkpoint, options) => {
      const batch = await inner.readChanges(tables, { [SYNTHETIC_TABLE]: checkpoint[table] ?? '0' }, options);
      return {
        ...batch,
        changes: batch.changes.map((c) => ({ ...c, table })),
        checkpoint: { [table]: batch.checkpoint[SYNTHETIC_TABLE] ?? '0' },
      };
    },
  };
}

async function capture(stream: string): Promise<void> {
  for (let k = 0; k < TABLES; k++) {
    const runner = new PipelineRunner({
      openSource: async () => tableSource(k),
      openTarget: async () =>
        new NatsTarget({
          credentials,
          configuration: natsConfiguration.schema.parse({ stream, subjectPrefix: 'applybench' }),
          pipelineId: `cap${k}`,
          origin: { connector: 'sqlserver', server: 'bench', database: 'Bench' },
        }),
      entities: [{ source: { schema: 'dbo', table: tableName(k) }, target: { table: tableName(k) } }],
    });
    await runner.runUntilCaughtUp();
    if (runner.failure) throw new Error(runner.failure);
  }
}

/** An apply engine in a worker thread of its own (applyEngineWorker.ts), until asked to stop. */
function startEngine(data: ApplyEngineData): { stop(): Promise<string> } {
  // A worker does not take the parent's TypeScript loader: it registers tsx itself, then the file.
  const boot = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((m) => { m.register(); return import(${JSON.stringify(new URL('./applyEngineWorker.ts', import.meta.url).href)}); })`;
  const worker = new Worker(boot, { eval: true, workerData: data });
  return {
    stop: async () => {
      const ended = new Promise<string>((resolve) => worker.once('message', (m) => resolve(String(m))));
      worker.postMessage('stop');
      const how = await ended;
      await worker.terminate();
      return how;
    },
  };
}

/** Rows per second with `engines` apply engines, each on a thread of its own, into a fresh schema. */
async function applyRate(stream: string, engines: number, schema: string): Promise<number> {
  const client = new pg.Client(PG);
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  const entities = Array.from({ length: TABLES }, (_, k) => ({
    source: { schema: 'dbo', table: tableName(k) },
    target: { table: tableName(k).toLowerCase() },
    rowIdentification: { kind: 'primaryKey' as const },
  }));
  const start = performance.now();
  const running = Array.from({ length: engines }, (_, e) =>
    startEngine({ stream, schema, engineId: `bench-${e}`, servers: SERVERS, entities }),
  );
  const count = async () => {
    let n = 0;
    for (const e of entities)
      n += Number(
        (
          await client
            .query(`SELECT count(*) AS n FROM "${schema}"."${e.target.table}"`)
            .catch(() => ({ rows: [{ n: 0 }] }))
        ).rows[0]?.n ?? 0,
      );
    return n;
  };
  while ((await count()) < TABLES * ROWS) await new Promise((r) => setTimeout(r, 50));
  const rate = Math.round((TABLES * ROWS) / ((performance.now() - start) / 1000));
  for (const r of running) {
    const how = await r.stop();
    if (how !== 'stopped') throw new Error(`an apply engine failed: ${how}`);
  }
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
  return rate;
}

export const applyShareBenchmark: Benchmark = {
  name: 'apply shared',
  run: async () => {
    const stream = `BENCH_APPLY_${process.pid}`;
    const nc = await connect({ servers: SERVERS });
    const jsm = await jetstreamManager(nc);
    try {
      await capture(stream);
      // Alternating, three rounds of each: the medians.
      const one: number[] = [];
      const two: number[] = [];
      for (let round = 0; round < 3; round++) {
        one.push(await applyRate(stream, 1, `bench_apply_${process.pid}_1_${round}`));
        two.push(await applyRate(stream, 2, `bench_apply_${process.pid}_2_${round}`));
      }
      const mid = (v: number[]) => [...v].sort((a, b) => a - b)[1] ?? 0;
      return [
        { name: 'apply.jetstream→postgres.1engine', value: mid(one), unit: 'rows/s' },
        { name: 'apply.jetstream→postgres.2engines', value: mid(two), unit: 'rows/s' },
        {
          name: 'apply.jetstream→postgres.2engines.gain',
          value: Math.round((mid(two) / mid(one)) * 100) / 100,
          unit: 'ratio',
        },
      ];
    } finally {
      await deleteStreams(jsm, stream);
      await nc.close();
    }
  },
};
