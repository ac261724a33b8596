// The engine into NATS JetStream: changes prepared in memory (syntheticSource.ts) through the runner as
// Debezium events (schema part included, the default) into a stream of this machine's NATS server, next
// to its raw anchor measured in the same run: the same number of messages of the same size published
// with message ids and the same window of acknowledgements in flight, no envelope, no checkpoint.
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { natsConfiguration } from '../shared/agents/nats';
import { NatsTarget } from '../main/agents/nats/target';
import { PipelineRunner } from '../main/runner/pipelineRunner';
import type { Benchmark } from './harness';
import { deleteStreamsNow, NATS_SERVERS as SERVERS, natsCredentials } from './natsStreams';
import { benchRows, ratio } from './rawTargets';
import { syntheticChanges, syntheticSource } from './syntheticSource';

const CHANGES = Number(process.env.BENCH_STREAM_CHANGES ?? 100_000);

/** Events per second once streaming, and the stream's bytes per event. */
async function engineRate(stream: string, count: number): Promise<{ rate: number; bytes: number }> {
  const configuration = natsConfiguration.schema.parse({ stream, subjectPrefix: stream.toLowerCase() });
  let first: { at: number; changes: number } | null = null;
  const runner = new PipelineRunner({
    openSource: async () => syntheticSource(syntheticChanges(benchRows(count, '2026-01-01 10:00:00.123000'))),
    openTarget: async () =>
      new NatsTarget({
        credentials: natsCredentials,
        configuration,
        pipelineId: 'bench',
        origin: { connector: 'sqlserver', server: 'bench', database: 'Bench' },
      }),
    entities: [{ source: { schema: 'dbo', table: 'Big' }, target: { table: 'big' } }],
    onEvent: (e) => {
      if (e.kind === 'batch-applied') first ??= { at: performance.now(), changes: e.changes };
      if (e.kind === 'failed') throw new Error(e.reason);
    },
  });
  await runner.runUntilCaughtUp();
  if (!first) throw new Error('no batch was published');
  const { at, changes: before } = first;
  const rate = Math.round((count - before) / ((performance.now() - at) / 1000));
  const nc = await connect({ servers: SERVERS });
  const info = await (await jetstreamManager(nc)).streams.info(stream);
  await nc.close();
  return { rate, bytes: Math.round(info.state.bytes / Math.max(1, info.state.messages)) };
}

/** The anchor: `count` messages of `size` bytes, each with an id, `window` acknowledgements in flight. */
async function rawRate(stream: string, count: number, size: number, window: number): Promise<number> {
  const nc = await connect({ servers: SERVERS });
  await (await jetstreamManager(nc)).streams.add({ name: stream, subjects: [`${stream}.>`] });
  const js = jetstream(nc);
  const body = new Uint8Array(size).fill(0x41);
  const start = performance.now();
  const inFlight: Promise<unknown>[] = [];
  for (let i = 0; i < count; i++) {
    inFlight.push(js.publish(`${stream}.big`, body, { msgID: `raw-${i}` }));
    if (inFlight.length >= window) await inFlight.shift();
  }
  await Promise.all(inFlight);
  const rate = Math.round(count / ((performance.now() - start) / 1000));
  await nc.close();
  return rate;
}

export const streamBenchmark: Benchmark = {
  name: 'stream',
  run: async () => {
    const window = natsConfiguration.schema.parse({}).maxPendingAcks;
    const rounds: { engine: number; raw: number; bytes: number }[] = [];
    // A warm-up of each on a tenth, then three rounds in turn; the round with the median ratio is shown.
    for (let round = 0; round <= 3; round++) {
      const count = round === 0 ? CHANGES / 10 : CHANGES;
      const engineStream = `BENCH_STREAM_${process.pid}_${round}`;
      const rawStream = `BENCH_RAW_${process.pid}_${round}`;
      try {
        const engine = await engineRate(engineStream, count);
        const raw = await rawRate(rawStream, count, engine.bytes, window);
        if (round > 0) rounds.push({ engine: engine.rate, raw, bytes: engine.bytes });
      } finally {
        await deleteStreamsNow(engineStream, rawStream);
      }
    }
    rounds.sort((a, b) => a.engine / a.raw - b.engine / b.raw);
    const median = rounds[1] as { engine: number; raw: number; bytes: number };
    return [
      { name: 'engine.synthetic→jetstream', value: median.engine, unit: 'events/s' },
      { name: 'raw.jetstream.publish', value: median.raw, unit: 'messages/s' },
      { name: 'engine.synthetic→jetstream.ratio', value: ratio(median.engine, median.raw), unit: 'of raw' },
      { name: 'engine.jetstream.event', value: median.bytes, unit: 'bytes/event' },
    ];
  },
};
