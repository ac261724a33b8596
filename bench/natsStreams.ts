// The NATS server the stream benchmarks use, and their clean-up: a stream an engine wrote or read,
// with the key-value bucket of its apply leases (`KV_cdc_leases_<stream>`), is deleted after a run.
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';

export const NATS_SERVERS = process.env.CDC_TEST_NATS ?? '127.0.0.1:4222';
export const natsCredentials = { connectionName: 'bench', servers: NATS_SERVERS, tls: false };

/** Deletes the streams and the lease buckets of `streams`; those never made are skipped. */
export async function deleteStreams(jsm: JetStreamManager, ...streams: string[]): Promise<void> {
  for (const stream of streams) {
    await jsm.streams.delete(stream).catch(() => undefined);
    await jsm.streams.delete(`KV_cdc_leases_${stream}`).catch(() => undefined);
  }
}

/** deleteStreams on a connection of its own. */
export async function deleteStreamsNow(...streams: string[]): Promise<void> {
  const nc = await connect({ servers: NATS_SERVERS });
  try {
    await deleteStreams(await jetstreamManager(nc), ...streams);
  } finally {
    await nc.close();
  }
}
