// A rewind of a pipeline that publishes to JetStream: the changes since the point are published
// again in a new message-id epoch, so the stream's duplicate window (two minutes by default, far
// longer than this test) stores them rather than dropping them as already sent, and a consumer
// receives each twice, the second time with the row as it is now.
import { afterAll, describe, expect, it } from 'vitest';
import { natsConfiguration } from '../../../../shared/agents/nats';
import { NatsTarget } from '../../../../main/agents/nats/target';
import { PipelineRunner } from '../../../../main/runner/pipelineRunner';
import type { RunnerEvent } from '../../../../main/runner/events';
import { bothSources } from '../../../helpers/bothSources';
import { readStream } from '../../../helpers/debeziumConsumer';
import { deleteStreams, natsServers } from '../../../helpers/natsServer';
import { pointBetween, until } from '../../../helpers/until';

const SERVERS = natsServers();
const STREAM = `NATSREWIND_${process.pid}`;
const PREFIX = `natsrewind${process.pid}`;
const credentials = { connectionName: 'rewind', servers: SERVERS, tls: false };
const sources = bothSources({ pipelineId: 'natsrewind', ibmiSchema: 'NATSREWIND' });

afterAll(async () => {
  await deleteStreams(SERVERS, [STREAM]);
});

describe('a rewind onto the stream', () => {
  it('publishes the changes since the point again, under new message ids, and the stream keeps them', async () => {
    const h = await sources.harness('change-tracking');
    const t = await h.createTable('REWOUND');
    await h.insert(
      t,
      [1, 2].map((id) => ({ id, name: `n${id}`, amount: `${id}.00` })),
    );
    const events: RunnerEvent[] = [];
    const runner = new PipelineRunner({
      openSource: () => h.open(),
      openTarget: async () =>
        new NatsTarget({
          credentials,
          configuration: natsConfiguration.schema.parse({ stream: STREAM, subjectPrefix: PREFIX }),
          pipelineId: 'rewinding',
          origin: { connector: 'sqlserver', server: 'sandbox', database: 'Sales' },
        }),
      entities: [h.entity(t)],
      onEvent: (e) => events.push(e),
      idleMs: 20,
    });
    const subject = `${PREFIX}.Sales.dbo.${t.table}`;
    const changes = async () =>
      (await readStream(SERVERS, STREAM, subject)).filter((e) => e.value?.op === 'c' || e.value?.op === 'u');
    void runner.start();
    try {
      await until('copied', () => events.some((e) => e.kind === 'snapshot-done'));
      const point = await pointBetween();
      await h.update(t, 2, 'two');
      await h.insert(t, [{ id: 3, name: 'n3', amount: '3.00' }]);
      await until('published', async () => (await changes()).length === 2);
      const first = await changes();

      runner.requestRewind(point);
      await until('rewound', () => events.some((e) => e.kind === 'rewound' || e.kind === 'rewind-refused'));
      expect(events.find((e) => e.kind === 'rewound')).toMatchObject({ to: point, tables: 1 });
      await until('published again', async () => (await changes()).length === 4);
      const again = (await changes()).slice(2);
      // The same changes (by key and operation), each under an id never used before.
      expect(again.map((e) => [e.key?.id, e.value?.op])).toEqual(first.map((e) => [e.key?.id, e.value?.op]));
      const firstIds = new Set(first.map((e) => e.msgId));
      for (const e of again) {
        expect(e.msgId).toBeTruthy();
        expect(firstIds.has(e.msgId)).toBe(false);
      }
    } finally {
      await runner.stop();
    }
    expect(runner.failure).toBeNull();
  });
});
