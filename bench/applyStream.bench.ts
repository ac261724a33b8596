// A stream applied into SQLite: CHANGES Debezium events of one table, published by the engine on this
// machine's NATS, then applied by a new runner (NatsSource → SqliteTarget) from the start. Its anchors,
// measured in the same run: a raw pull consume of the same stream with ack-all (one acknowledgement a
// fetch, as the source acknowledges), which only counts the messages, and the raw SQLite write of the
// same rows. The figure that moves if applying gets slower: the ratio to the slower of the two.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { natsConfiguration } from '../shared/agents/nats';
import { NatsSource } from '../main/agents/nats/source';
import { NatsTarget } from '../main/agents/nats/target';
import { SqliteTarget } from '../main/agents/sqlite/target';
import { PipelineRunner } from '../main/runner/pipelineRunner';
import type { Benchmark } from './harness';
import { deleteStreams, NATS_SERVERS as SERVERS, natsCredentials as credentials } from './natsStreams';
import { benchRows, median, ratio, rawSqliteRate, timedRate } from './rawTargets';
import { syntheticChanges, syntheticSource } from './syntheticSource';

const CHANGES = Number(process.env.BENCH_APPLY_STREAM_CHANGES ?? 30_000);
const PREFIX = 'applysqlite';
const entities = [
  {
    source: { schema: 'dbo', table: 'Big' },
    target: { table: 'big' },
    rowIdentification: { kind: 'primaryKey' as const },
  },
];
const rows = benchRows(CHANGES, '2026-01-01 10:00:00.123000');

async function capture(stream: string): Promise<void> {
  const runner = new PipelineRunner({
    openSource: async () => syntheticSource(syntheticChanges(rows)),
    openTarget: async () =>
      new NatsTarget({
        credentials,
        configuration: natsConfiguration.schema.parse({ stream, subjectPrefix: PREFIX }),
        pipelineId: 'capture',
        origin: { connector: 'sqlserver', server: 'bench', database: 'Bench' },
      }),
    entities,
  });
  await runner.runUntilCaughtUp();
  if (runner.failure) throw new Error(runner.failure);
}

/** The whole stream applied into a new SQLite file by a new runner: changes per second. */
async function applyRate(stream: string, dir: string, round: number): Promise<number> {
  const path = join(dir, `apply-${round}.sqlite`);
  const runner = new PipelineRunner({
    openSource: () =>
      NatsSource.open({
        credentials,
        configuration: natsConfiguration.schema.parse({
          stream,
          subjectPrefix: PREFIX,
          sourceDatabase: 'Bench',
        }),
        pipelineId: `apply${round}`,
      }),
    openTarget: async () => new SqliteTarget(path, 'bench'),
    entities,
    idleMs: 20,
  });
  const rate = await timedRate(CHANGES, () => runner.runUntilCaughtUp());
  if (runner.failure) throw new Error(runner.failure);
  return rate;
}

/** The anchor: every message of the stream pulled by a new durable consumer, the last of each fetch acked. */
async function rawConsumeRate(stream: string, round: number): Promise<number> {
  const nc = await connect({ servers: SERVERS });
  try {
    const jsm = await jetstreamManager(nc);
    const durable = `raw_${round}`;
    await jsm.consumers.add(stream, {
      durable_name: durable,
      ack_policy: AckPolicy.All,
      deliver_policy: DeliverPolicy.All,
      max_ack_pending: -1,
    });
    const consumer = await jetstream(nc).consumers.get(stream, durable);
    const total = (await jsm.streams.info(stream)).state.messages;
    let read = 0;
    const rate = await timedRate(total, async () => {
      while (read < total) {
        let last: { ack(): void } | undefined;
        for await (const m of await consumer.fetch({ max_messages: 4096, expires: 1000 })) {
          read++;
          last = m;
        }
        last?.ack();
      }
    });
    await jsm.consumers.delete(stream, durable);
    return rate;
  } finally {
    await nc.close();
  }
}

export const applyStreamBenchmark: Benchmark = {
  name: 'apply stream',
  run: async () => {
    const stream = `BENCH_APPLY_SQLITE_${process.pid}`;
    const dir = mkdtempSync(join(tmpdir(), 'cdc-bench-apply-'));
    const nc = await connect({ servers: SERVERS });
    const jsm = await jetstreamManager(nc);
    try {
      await capture(stream);
      // A warm-up of each, then three rounds in turn: the medians.
      const engine: number[] = [];
      const consume: number[] = [];
      for (let round = 0; round <= 3; round++) {
        const applied = await applyRate(stream, dir, round);
        const pulled = await rawConsumeRate(stream, round);
        if (round === 0) continue;
        engine.push(applied);
        consume.push(pulled);
      }
      const rawConsume = median(consume);
      const rawSqlite = await rawSqliteRate(dir, rows);
      const applied = median(engine);
      return [
        { name: 'apply.jetstream→sqlite', value: applied, unit: 'changes/s' },
        { name: 'raw.jetstream.consume', value: rawConsume, unit: 'messages/s' },
        { name: 'raw.sqlite.fastest', value: rawSqlite, unit: 'rows/s' },
        {
          name: 'apply.jetstream→sqlite.ratio',
          value: ratio(applied, Math.min(rawConsume, rawSqlite)),
          unit: 'of the slower raw',
        },
      ];
    } finally {
      await deleteStreams(jsm, stream);
      await nc.close();
    }
  },
};
