// Debezium's heartbeat, on `<prefix>.heartbeat` every `heartbeatSeconds`: the time and the newest
// source position the stream acknowledged, key `{"serverName": <prefix>}`, so consumers see the capture
// alive while the source is quiet. Older heartbeats are purged now and then (the newest is kept).
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/transport-node';
import type { NatsConfiguration } from '../../../shared/agents/nats';
import { KEY_HEADER, OP_HEADER, PIPELINE_HEADER } from './messages';

export const heartbeatSubject = (prefix: string) => `${prefix}.heartbeat`;

const PURGE_EVERY = 200;

export function startHeartbeats(
  jsm: JetStreamManager,
  js: JetStreamClient,
  o: { configuration: NatsConfiguration; pipelineId: string; newest: () => string | null },
): { stop(): void } | undefined {
  const { heartbeatSeconds: every, subjectPrefix: prefix, stream } = o.configuration;
  if (every === 0) return undefined;
  const subject = heartbeatSubject(prefix);
  let sent = 0;
  const timer = setInterval(() => {
    const h = natsHeaders();
    h.set(KEY_HEADER, JSON.stringify({ serverName: prefix }));
    h.set(PIPELINE_HEADER, o.pipelineId);
    h.set(OP_HEADER, 'heartbeat');
    void js
      .publish(subject, JSON.stringify({ ts_ms: Date.now(), position: o.newest() }), {
        headers: h,
        expect: { streamName: stream },
      })
      .then(async () => {
        if (++sent % PURGE_EVERY === 0) await jsm.streams.purge(stream, { filter: subject, keep: 1 });
      })
      // A missed heartbeat is the news itself; the next one tries again.
      .catch(() => undefined);
  }, every * 1000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
