// A gap in the stream: its limits discarded events of a table before the apply side applied them. The
// table is suspended with the reason and what to do, never skipped past the lost events; once the
// capture copies the table again, resuming it replays that copy and the target equals the source.
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, describe, expect, it } from 'vitest';
import { natsConfiguration } from '../../../../shared/agents/nats';
import { NatsSource } from '../../../../main/agents/nats/source';
import { NatsTarget } from '../../../../main/agents/nats/target';
import { tableKey, type Row } from '../../../../main/agents/source';
import { PipelineRunner } from '../../../../main/runner/pipelineRunner';
import type { RunnerEvent } from '../../../../main/runner/events';
import { bothSources } from '../../../helpers/bothSources';
import { readStream } from '../../../helpers/debeziumConsumer';
import { deleteStreams, natsServers } from '../../../helpers/natsServer';
import { sqliteSide } from '../../../helpers/targetSide';
import { until } from '../../../helpers/until';

const SERVERS = natsServers();
const STREAM = `NATSGAP_${process.pid}`;
const PREFIX = `natsgap${process.pid}`;
const credentials = { connectionName: 'gap', servers: SERVERS, tls: false };
const sources = bothSources({ pipelineId: 'natsgap', ibmiSchema: 'NATSGAP' });
const runners: PipelineRunner[] = [];

afterAll(async () => {
  for (const r of runners) await r.stop().catch(() => undefined);
  await deleteStreams(SERVERS, [STREAM, `KV_cdc_leases_${STREAM}`]);
});

describe('events discarded before they were applied', () => {
  it('suspend the table with the reason; resumed after a new copy, the target equals the source', async () => {
    const h = await sources.harness('change-tracking');
    const t = await h.createTable('GAP');
    const key = tableKey(t);
    await h.insert(
      t,
      [1, 2, 3].map((id) => ({ id, name: `row ${id}`, amount: `${id}.00` })),
    );
    const captured: RunnerEvent[] = [];
    const capture = new PipelineRunner({
      openSource: () => h.open(),
      openTarget: async () =>
        new NatsTarget({
          credentials,
          configuration: natsConfiguration.schema.parse({ stream: STREAM, subjectPrefix: PREFIX }),
          pipelineId: 'capture',
          origin: { connector: 'sqlserver', server: 'sandbox', database: 'Sales' },
        }),
      entities: [h.entity(t)],
      onEvent: (e) => captured.push(e),
      idleMs: 20,
    });
    runners.push(capture);
    void capture.start();
    await until('captured', () => captured.some((e) => e.kind === 'snapshot-done'));

    const side = sqliteSide('applied');
    const events: RunnerEvent[] = [];
    const applier = () => {
      const r = new PipelineRunner({
        openSource: () =>
          NatsSource.open({
            credentials,
            configuration: natsConfiguration.schema.parse({
              stream: STREAM,
              subjectPrefix: PREFIX,
              sourceDatabase: 'Sales',
            }),
            pipelineId: 'applied',
          }),
        openTarget: () => side.open(),
        entities: [h.entity(t)],
        onEvent: (e) => events.push(e),
        idleMs: 20,
      });
      runners.push(r);
      void r.start();
      return r;
    };
    const ids = async () =>
      (await side.rows(t.table).catch((): Row[] => [])).map((r) => Number(r.id)).sort((a, b) => a - b);
    let apply = applier();
    await until('applied', async () => (await ids()).length === 3);
    await apply.stop();

    // While the apply side is away, two rows arrive, and the stream's limits discard the first.
    await h.insert(
      t,
      [4, 5].map((id) => ({ id, name: `row ${id}`, amount: `${id}.00` })),
    );
    const subject = `${PREFIX}.Sales.${t.schema}.${t.table}`;
    const inserted = async () =>
      (await readStream(SERVERS, STREAM, subject)).filter((e) => e.value?.op === 'c');
    await until('both published', async () => (await inserted()).length === 2);
    const fourth = (await inserted())[0]?.seq ?? 0;
    const nc = await connect({ servers: SERVERS });
    await (await jetstreamManager(nc)).streams.purge(STREAM, { seq: fourth + 1 });
    await nc.close();

    apply = applier();
    await until('suspended', () => events.some((e) => e.kind === 'table-suspended'));
    expect(events.find((e) => e.kind === 'table-suspended')).toMatchObject({
      table: key,
      reason: expect.stringMatching(
        /discarded events of .* before they were applied .*copy the table again in the capture pipeline, then resume it here/,
      ),
    });
    // Nothing after the gap was applied: row 5 waits with the table.
    expect(await ids()).toEqual([1, 2, 3]);

    expect(capture.requestSnapshot(key)).toBe(true);
    await until('copied again', () => captured.filter((e) => e.kind === 'snapshot-done').length === 2);
    expect(apply.resumeTable(key)).toBe('resumed');
    await until('replayed', async () => (await ids()).length === 5, 30_000);
    expect(await ids()).toEqual([1, 2, 3, 4, 5]);
  });
});
