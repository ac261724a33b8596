// A row's key changed at the source (UPDATE … SET ID = …) reaches the stream as Debezium sends it: the
// old key's delete, its tombstone, then the new key's create — from the journal's before image on IBM i,
// from Change Tracking's delete and insert on SQL Server — and a consumer ends with the new key only.
import { afterAll, describe, expect, it } from 'vitest';
import { natsConfiguration } from '../../../../shared/agents/nats';
import { NatsTarget } from '../../../../main/agents/nats/target';
import { PipelineRunner } from '../../../../main/runner/pipelineRunner';
import type { RunnerEvent } from '../../../../main/runner/events';
import { SEED_ADMIN } from '../../../../simulators/ibmi/seed';
import { bothSources } from '../../../helpers/bothSources';
import { applyEvents, readStream } from '../../../helpers/debeziumConsumer';
import { deleteStreams, natsServers } from '../../../helpers/natsServer';
import { sandboxPool } from '../../../helpers/sandbox';
import { until } from '../../../helpers/until';

const SERVERS = natsServers();
const sources = bothSources({ pipelineId: 'natskey', ibmiSchema: 'NATSKEY' });
const streams: string[] = [];
afterAll(async () => {
  await deleteStreams(SERVERS, streams);
});

describe.each(['change-tracking', 'journal'] as const)('a key changed at %s', (kind) => {
  it('is the old key’s delete and tombstone, then the new key’s create', async () => {
    const h = await sources.harness(kind);
    const t = await h.createTable('KEY');
    await h.insert(t, [{ id: 1, name: 'moving', amount: '1.00' }]);
    const stream = `NATSKEY_${kind === 'journal' ? 'J' : 'C'}_${process.pid}`;
    streams.push(stream);
    const prefix = `natskey${kind === 'journal' ? 'j' : 'c'}`;
    const events: RunnerEvent[] = [];
    const runner = new PipelineRunner({
      openSource: () => h.open(),
      openTarget: async () =>
        new NatsTarget({
          credentials: { connectionName: 'key', servers: SERVERS, tls: false },
          configuration: natsConfiguration.schema.parse({ stream, subjectPrefix: prefix }),
          pipelineId: 'key',
          origin:
            kind === 'journal'
              ? { connector: 'ibmi', server: 'sandbox', database: null }
              : { connector: 'sqlserver', server: 'sandbox', database: 'Sales' },
        }),
      entities: [h.entity(t)],
      onEvent: (e) => events.push(e),
      idleMs: 20,
    });
    void runner.start();
    try {
      await until('copied', () => events.some((e) => e.kind === 'snapshot-done'));
      const update = `UPDATE ${t.schema}.${t.table} SET ${kind === 'journal' ? 'ID' : 'id'} = 9 WHERE ${kind === 'journal' ? 'ID' : 'id'} = 1`;
      if (kind === 'journal') {
        const admin = await sources.ibmi().connect({ ...SEED_ADMIN });
        await admin.query(update);
        await admin.close();
      } else {
        const pool = await sandboxPool(sources.mssql(), { max: 1 });
        await pool.request().batch(update);
        await pool.close();
      }
      const subject =
        kind === 'journal' ? `${prefix}.${t.schema}.${t.table}` : `${prefix}.Sales.${t.schema}.${t.table}`;
      const read = () => readStream(SERVERS, stream, subject);
      await until('the key change', async () => (await read()).some((e) => e.value?.op === 'c'));
      const after = (await read()).slice(2);
      const key = (e: (typeof after)[number]) => Number(Object.values(e.key ?? {})[0]);
      expect(after.map((e) => [e.value === null ? 'tombstone' : e.value.op, key(e)])).toEqual([
        ['d', 1],
        ['tombstone', 1],
        ['c', 9],
      ]);
      const rows = [
        ...(applyEvents(await read())
          .get(`${t.schema}.${t.table}`)
          ?.values() ?? []),
      ];
      expect(rows.map((r) => Number(r.id ?? r.ID))).toEqual([9]);
    } finally {
      await runner.stop();
    }
  });
});
