// Both sources through the runner into the NATS server on this machine, read back by a consumer written
// against Debezium's documented envelope (test/helpers/debeziumConsumer.ts): a copy (truncate, then
// snapshot reads), inserts, updates (with the journal's before image), deletes with tombstones, a
// schema change told on the prefix, a crash between the publishes and the checkpoint, and a restart —
// every change in the stream once, by message id and by content, and the consumer's rows the source's.
import { afterAll, describe, expect, it } from 'vitest';
import { natsConfiguration } from '../../../../shared/agents/nats';
import type { TableRef } from '../../../../main/agents/source';
import { NatsTarget } from '../../../../main/agents/nats/target';
import { PipelineRunner } from '../../../../main/runner/pipelineRunner';
import type { RunnerEvent } from '../../../../main/runner/events';
import { bothSources } from '../../../helpers/bothSources';
import { applyEvents, readStream, type ConsumedEvent } from '../../../helpers/debeziumConsumer';
import { deleteStreams, natsServers } from '../../../helpers/natsServer';
import { until } from '../../../helpers/until';
import type { SourceHarness } from '../contract/sourceAgent';

const SERVERS = natsServers();
const sources = bothSources({ pipelineId: 'natst', ibmiSchema: 'NATST' });
const streams: string[] = [];
let made = 0;

afterAll(async () => {
  await deleteStreams(SERVERS, streams);
});

function natsTarget(kind: 'change-tracking' | 'journal', stream: string, prefix: string, pipelineId: string) {
  return new NatsTarget({
    credentials: { connectionName: 'test', servers: SERVERS, tls: false },
    configuration: natsConfiguration.schema.parse({ stream, subjectPrefix: prefix, transactionEvents: true }),
    pipelineId,
    origin:
      kind === 'change-tracking'
        ? { connector: 'sqlserver', server: 'sandbox', database: 'Sales' }
        : { connector: 'ibmi', server: 'sandbox', database: null },
  });
}

/** The consumer's rows of a table, as the harness compares rows. */
function consumedRows(h: SourceHarness, events: readonly ConsumedEvent[], t: TableRef) {
  const table = applyEvents(events).get(`${t.schema}.${t.table}`) ?? new Map();
  return [...table.values()]
    .map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k.toLowerCase(), v])))
    .map((r) => h.normalize({ id: Number(r.id), name: String(r.name), amount: String(r.amount) }))
    .sort((a, b) => a.id - b.id);
}

describe.each(['change-tracking', 'journal'] as const)(
  '%s → NATS JetStream → a Debezium consumer',
  (kind) => {
    it('streams a copy and every change as Debezium events, exactly once across a crash and a restart', async () => {
      const h = await sources.harness(kind);
      const n = ++made;
      const stream = `NATST_${n}_${Date.now()}`;
      streams.push(stream);
      const prefix = `natst${n}`;
      const pipelineId = `natst${n}`;
      const t = await h.createTable(`NT${n}`);
      await h.insert(t, [
        { id: 1, name: 'alpha', amount: '10.50' },
        { id: 2, name: 'beta £ ✓', amount: '-7.25' },
        { id: 3, name: 'gamma', amount: '0.00' },
      ]);
      const events: RunnerEvent[] = [];
      const runnerWith = (target: () => Promise<NatsTarget>) =>
        new PipelineRunner({
          openSource: () => h.open(),
          openTarget: target,
          entities: [h.entity(t)],
          onEvent: (e) => events.push(e),
          idleMs: 20,
          retry: { firstDelayMs: 10, maxDelayMs: 50, maxAttempts: 10 },
        });
      const read = () => readStream(SERVERS, stream, `${prefix}.>`);
      const all = () => readStream(SERVERS, stream, '>');
      const tableEvents = async () =>
        (await read()).filter(
          (e) => !e.subject.includes('.=checkpoint.') && !e.subject.endsWith('.transaction'),
        );

      let runner = runnerWith(async () => natsTarget(kind, stream, prefix, pipelineId));
      void runner.start();
      await until('copied', () => events.some((e) => e.kind === 'snapshot-done')).catch((e: unknown) => {
        console.log(JSON.stringify(events, null, 1).slice(0, 3000));
        throw e;
      });
      await h.update(t, 1, 'alpha2');
      await h.remove(t, 2);
      await h.insert(t, [{ id: 4, name: 'delta', amount: '123456789.99' }]);
      await until('changes streamed', async () => (await tableEvents()).some((e) => e.value?.op === 'c'));
      await runner.stop();

      const first = await tableEvents();
      const ops = first.map((e) => (e.value === null ? 'tombstone' : String(e.value.op)));
      expect(ops).toEqual(['t', 'r', 'r', 'r', 'u', 'd', 'tombstone', 'c']);
      const [truncate, read1] = [first[0], first[1]];
      expect(truncate?.key).toBeUndefined();
      const source = read1?.value?.source as Record<string, unknown>;
      expect(source).toMatchObject({
        connector: kind === 'change-tracking' ? 'sqlserver' : 'ibmi',
        name: prefix,
        snapshot: 'true',
        schema: t.schema,
        table: t.table,
      });
      expect(read1?.subject).toBe(
        kind === 'change-tracking'
          ? `${prefix}.Sales.${t.schema}.${t.table}`
          : `${prefix}.${t.schema}.${t.table}`,
      );
      // The schema part says what each field is: the amount a Decimal at the column's scale.
      const after = read1?.schema?.fields?.find((f) => f.field === 'after')?.fields ?? [];
      expect(after.find((f) => f.field.toLowerCase() === 'amount')).toMatchObject({
        type: 'bytes',
        name: 'org.apache.kafka.connect.data.Decimal',
        parameters: { scale: '2' },
      });
      const update = first[4]?.value as Record<string, Record<string, unknown> | null>;
      expect(update.after?.name ?? update.after?.NAME).toBe('alpha2');
      // The journal keeps the row before the change; Change Tracking keeps no old values.
      if (h.beforeImages) expect(update.before?.name ?? update.before?.NAME).toBe('alpha');
      else expect(update.before).toBeNull();
      const del = first[5];
      const tombstone = first[6];
      expect(del?.value?.after).toBeNull();
      expect(Object.values(del?.value?.before as object)).toContain(2);
      expect(tombstone?.headers['Cdc-Key']).toBe(del?.headers['Cdc-Key']);
      expect(del?.key).toEqual({ [Object.keys(del?.key ?? { id: 0 })[0] ?? 'id']: 2 });

      // A crash between the publishes and the checkpoint: the next attempt finds them in the stream.
      let crashes = 0;
      runner = runnerWith(async () => {
        const target = natsTarget(kind, stream, prefix, pipelineId);
        const internals = target as unknown as { saveRecord: (...a: unknown[]) => Promise<void> };
        const save = internals.saveRecord.bind(target);
        internals.saveRecord = async (...a) => {
          if (crashes++ === 0) throw new Error('connection closed before the checkpoint');
          return save(...a);
        };
        return target;
      });
      void runner.start();
      await h.update(t, 3, 'gamma2');
      await h.insertTogether(t, [
        { id: 5, name: 'epsilon', amount: '5.05' },
        { id: 6, name: 'zeta', amount: '6.60' },
      ]);
      await until('after the crash', async () => (await tableEvents()).length >= first.length + 2);
      await until('caught up', async () => consumedRows(h, await tableEvents(), t).length === 5);
      // The events were in the stream before the failed save: the retry's save may come after them.
      await until('the checkpoint saved after the crash', () => crashes > 1);
      await runner.stop();
      expect(crashes).toBeGreaterThan(1);

      // A restart reads its position back from the stream: nothing is sent again.
      runner = runnerWith(async () => natsTarget(kind, stream, prefix, pipelineId));
      void runner.start();
      await h.remove(t, 1);
      await until(
        'the last delete',
        async () => (await tableEvents()).filter((e) => e.value?.op === 'd').length === 2,
      );
      await runner.stop();

      const every = await tableEvents();
      const ids = every.map((e) => e.msgId);
      expect(new Set(ids).size).toBe(ids.length);
      const bodies = every
        .filter((e) => e.value !== null)
        .map((e) => JSON.stringify({ ...e.value, ts_ms: 0, ts_us: 0, ts_ns: 0, source: null }));
      expect(new Set(bodies).size).toBe(bodies.length);
      expect(every.map((e) => (e.value === null ? 'tombstone' : String(e.value.op))).slice(8)).toEqual([
        'u',
        'c',
        'c',
        'd',
        'tombstone',
      ]);
      expect(consumedRows(h, every, t)).toEqual([
        h.normalize({ id: 3, name: 'gamma2', amount: '0.00' }),
        h.normalize({ id: 4, name: 'delta', amount: '123456789.99' }),
        h.normalize({ id: 5, name: 'epsilon', amount: '5.05' }),
        h.normalize({ id: 6, name: 'zeta', amount: '6.60' }),
      ]);
      // Each source transaction between BEGIN and END on <prefix>.transaction, with its count.
      const marks = (await all()).filter((e) => e.subject === `${prefix}.transaction`);
      const together = every.filter(
        (e) => e.value?.op === 'c' && [5, 6].includes(Number(Object.values(e.key ?? {})[0])),
      );
      const tx = together.map((e) => e.value?.transaction as Record<string, unknown>);
      expect(tx.map((x) => x.total_order)).toEqual([1, 2]);
      expect(tx[0]?.id).toBe(tx[1]?.id);
      const ofIt = marks.filter((m) => m.value?.id === tx[0]?.id).map((m) => m.value);
      expect(ofIt).toMatchObject([{ status: 'BEGIN' }, { status: 'END', event_count: 2 }]);
    });
  },
);

describe('heartbeats', () => {
  it('tell consumers the capture lives while the source is quiet, and stop with it', async () => {
    const stream = `NATST_HB_${Date.now()}`;
    streams.push(stream);
    const target = new NatsTarget({
      credentials: { connectionName: 'test', servers: SERVERS, tls: false },
      configuration: natsConfiguration.schema.parse({ stream, subjectPrefix: 'hb', heartbeatSeconds: 1 }),
      pipelineId: 'hb',
      origin: { connector: 'ibmi', server: 'sandbox', database: null },
    });
    await target.prepare([]);
    const beats = async () => readStream(SERVERS, stream, 'hb.heartbeat');
    await until('two heartbeats', async () => (await beats()).length >= 2, 10_000);
    await target.close();
    const seen = await beats();
    expect(seen[0]?.headers['Cdc-Key']).toBe('{"serverName":"hb"}');
    const times = seen.map((b) => Number(b.value?.ts_ms));
    expect(times[1]).toBeGreaterThan(times[0] ?? Infinity);
    await new Promise((r) => setTimeout(r, 1500));
    expect((await beats()).length).toBe(seen.length);
  });
});
