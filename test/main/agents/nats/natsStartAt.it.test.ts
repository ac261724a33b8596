// The stream as a source started at a point (startAt, snapshot mode "never"): at a stream sequence,
// that event the first applied; at a time, the first event at or after it. Events before the point
// are never applied, those after it are, and the ones that follow later too. A point the stream does
// not hold (ahead of it, or discarded by its limits) is refused with what it holds.
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, describe, expect, it } from 'vitest';
import { natsConfiguration, type NatsConfiguration } from '../../../../shared/agents/nats';
import { NatsSource } from '../../../../main/agents/nats/source';
import { NatsTarget } from '../../../../main/agents/nats/target';
import type { TableRef } from '../../../../main/agents/source';
import { PipelineRunner } from '../../../../main/runner/pipelineRunner';
import type { RunnerEvent } from '../../../../main/runner/events';
import { bothSources } from '../../../helpers/bothSources';
import { readStream } from '../../../helpers/debeziumConsumer';
import { deleteStreams, natsServers } from '../../../helpers/natsServer';
import { sqliteSide } from '../../../helpers/targetSide';
import { until } from '../../../helpers/until';
import type { SourceHarness } from '../contract/sourceAgent';

const SERVERS = natsServers();
const STREAM = `NATSSTART_${process.pid}`;
const PREFIX = `natsstart${process.pid}`;
const credentials = { connectionName: 'startat', servers: SERVERS, tls: false };
const sources = bothSources({ pipelineId: 'natsstart', ibmiSchema: 'NATSSTART' });

afterAll(async () => {
  await deleteStreams(SERVERS, [
    STREAM,
    `KV_cdc_leases_${STREAM}`,
    `${STREAM}_OLD`,
    `KV_cdc_leases_${STREAM}_OLD`,
  ]);
});

const config = (over: Partial<NatsConfiguration> = {}) =>
  natsConfiguration.schema.parse({ stream: STREAM, subjectPrefix: PREFIX, sourceDatabase: 'Sales', ...over });

/** The capture pipeline, run until it has published what the source holds. */
function capture(h: SourceHarness, t: TableRef) {
  return new PipelineRunner({
    openSource: () => h.open(),
    openTarget: async () =>
      new NatsTarget({
        credentials,
        configuration: config(),
        pipelineId: 'capture',
        origin: { connector: 'sqlserver', server: 'sandbox', database: 'Sales' },
      }),
    entities: [h.entity(t)],
    idleMs: 20,
  }).runUntilCaughtUp();
}

function applier(h: SourceHarness, t: TableRef, pipelineId: string, over: Partial<NatsConfiguration>) {
  const side = sqliteSide(pipelineId);
  const events: RunnerEvent[] = [];
  const run = () => {
    const r = new PipelineRunner({
      openSource: () => NatsSource.open({ credentials, configuration: config(over), pipelineId }),
      openTarget: () => side.open(),
      entities: [h.entity(t)],
      onEvent: (e) => events.push(e),
      idleMs: 20,
      retry: { firstDelayMs: 10, maxDelayMs: 50, maxAttempts: 1 },
      snapshotMode: 'never',
    });
    return r.runUntilCaughtUp().then(
      () => r.failure ?? '',
      () => r.failure ?? '',
    );
  };
  return { side, events, run };
}

describe('startAt on the stream', () => {
  let h: SourceHarness;
  let t: TableRef;
  /** The change events after the copy: the insert of row 3 first. */
  let changes: { seq: number; time: string }[];

  it('starts at a sequence, that event first, then follows the stream', async () => {
    h = await sources.harness('change-tracking');
    t = await h.createTable('STARTS');
    await h.insert(
      t,
      [1, 2].map((id) => ({ id, name: `n${id}`, amount: `${id}.00` })),
    );
    await capture(h, t);
    // Apart in time from the copy's events, so a time between them picks the changes alone.
    await new Promise((r) => setTimeout(r, 50));
    await h.insert(t, [{ id: 3, name: 'n3', amount: '3.00' }]);
    await h.update(t, 2, 'two');
    await capture(h, t);
    // The table's own events (the capture's checkpoints and schema events share the prefix).
    const events = await readStream(SERVERS, STREAM, `${PREFIX}.Sales.dbo.${t.table}`);
    const copyEnd = Math.max(...events.filter((e) => e.value?.op === 'r').map((e) => e.seq));
    const nc = await connect({ servers: SERVERS });
    try {
      const jsm = await jetstreamManager(nc);
      changes = [];
      for (const e of events.filter((x) => x.seq > copyEnd))
        changes.push({
          seq: e.seq,
          time: (await jsm.streams.getMessage(STREAM, { seq: e.seq }))?.timestamp ?? '',
        });
    } finally {
      await nc.close();
    }
    expect(changes).toHaveLength(2);

    // The update of row 2 alone: an update of a row the target never had writes the row.
    const a = applier(h, t, 'atseq', { snapshotMode: 'never', startAt: String(changes[1]?.seq) });
    expect(await a.run()).toBe('');
    const skipped = a.events.find((e) => e.kind === 'snapshot-skipped');
    expect(skipped && 'reason' in skipped ? skipped.reason : '').toContain(
      `stream sequence ${changes[1]?.seq}`,
    );
    expect((await a.side.rows(t.table)).map((r) => [Number(r.id), r.name])).toEqual([[2, 'two']]);

    await h.insert(t, [{ id: 4, name: 'n4', amount: '4.00' }]);
    await capture(h, t);
    expect(await a.run()).toBe('');
    expect((await a.side.rows(t.table)).map((r) => [Number(r.id), r.name])).toEqual([
      [2, 'two'],
      [4, 'n4'],
    ]);
  });

  it('starts at a time, from the first event at or after it', async () => {
    // The first change's own time, to the microsecond (JetStream's has nanoseconds): it is read, the
    // copy's events 50 ms before it are not.
    const time = (changes[0]?.time ?? '').replace(/(\.\d{6})\d*Z$/, '$1Z');
    const a = applier(h, t, 'attime', { snapshotMode: 'never', startAt: time });
    expect(await a.run()).toBe('');
    expect((await a.side.rows(t.table)).map((r) => [Number(r.id), r.name])).toEqual([
      [2, 'two'],
      [3, 'n3'],
      [4, 'n4'],
    ]);
  });

  it('rewinds a running apply pipeline to a sequence: the events since are applied again', async () => {
    const side = sqliteSide('rewound');
    const events: RunnerEvent[] = [];
    const runner = new PipelineRunner({
      openSource: () => NatsSource.open({ credentials, configuration: config(), pipelineId: 'rewound' }),
      openTarget: () => side.open(),
      entities: [h.entity(t)],
      onEvent: (e) => events.push(e),
      idleMs: 20,
    });
    void runner.start();
    try {
      await until('applied', async () => (await side.rows(t.table).catch(() => [])).length === 4);
      // Planted behind the engine's back on the row the first change wrote, and on one copied before it.
      for (const id of [1, 3]) await side.tamper(t.table, { column: 'id', id }, 'name', 'planted');
      runner.requestRewind(String(changes[0]?.seq));
      await until('rewound', () => events.some((e) => e.kind === 'rewound' || e.kind === 'rewind-refused'));
      expect(events.find((e) => e.kind === 'rewound')).toMatchObject({ tables: 1 });
      await until('mended', async () =>
        (await side.rows(t.table)).some((r) => Number(r.id) === 3 && r.name === 'n3'),
      );
      const rows = (await side.rows(t.table)).map((r) => [Number(r.id), r.name]).sort();
      expect(rows).toEqual([
        [1, 'planted'],
        [2, 'two'],
        [3, 'n3'],
        [4, 'n4'],
      ]);
      // Never forward: a sequence after where the table stands is refused, nothing moved.
      runner.requestRewind('999999');
      await until('refused', () => events.some((e) => e.kind === 'rewind-refused'));
    } finally {
      await runner.stop();
    }
    expect(runner.failure).toBeNull();
  });

  it.each([
    ['a sequence, that event the last applied', 'sequence'],
    ['a time, the events stamped at or before it', 'time'],
  ] as const)('stops at %s, by itself', async (_what, kind) => {
    // From the insert of row 3 to itself: the update of row 2 after it is not applied.
    const stopAt =
      kind === 'sequence'
        ? String(changes[0]?.seq)
        : (changes[0]?.time ?? '').replace(/(\.\d{6})\d*Z$/, '$1Z');
    const a = applier(h, t, `stop${kind}`, {
      snapshotMode: 'never',
      startAt: String(changes[0]?.seq),
      stopAt,
    });
    expect(await a.run()).toBe('');
    expect((await a.side.rows(t.table)).map((r) => [Number(r.id), r.name])).toEqual([[3, 'n3']]);
    expect(a.events.find((e) => e.kind === 'stop-point-reached')).toMatchObject({
      at: expect.stringContaining(stopAt),
    });
  });

  it('refuses a sequence ahead of the stream, and startAt beside a copy', async () => {
    const ahead = applier(h, t, 'ahead', { snapshotMode: 'never', startAt: '999999' });
    expect(await ahead.run()).toMatch(
      new RegExp(`stream sequence 999999 is ahead of stream ${STREAM}, which is at sequence \\d+`),
    );
    const copy = applier(h, t, 'copy', { snapshotMode: 'initial', startAt: '1' });
    expect(await copy.run()).toContain('it needs snapshotMode = "never" (it is "initial")');
  });

  it('refuses a point its limits discarded, naming the first event it holds', async () => {
    // The stream now keeps its last three messages only: the older ones are discarded.
    const nc = await connect({ servers: SERVERS });
    try {
      const jsm = await jetstreamManager(nc);
      await jsm.streams.update(STREAM, { max_msgs: 3 });
      const { state } = await jsm.streams.info(STREAM);
      expect(state.first_seq).toBeGreaterThan(1);
      const before = applier(h, t, 'gone', { snapshotMode: 'never', startAt: '1' });
      expect(await before.run()).toMatch(
        new RegExp(
          `stream sequence 1 is no longer on the stream: stream ${STREAM} holds events from sequence ${state.first_seq} \\(.+ UTC\\) on`,
        ),
      );
      const early = applier(h, t, 'goneearly', { snapshotMode: 'never', startAt: '2020-01-01 00:00:00' });
      expect(await early.run()).toContain(
        'the ones before were discarded by its limits, so events at 2020-01-01 00:00:00 (UTC, as JetStream stamps messages) cannot be read',
      );
    } finally {
      await nc.close();
    }
  });
});
