// Shaping on the stream (docs/shaping.md), both sources into JetStream: the copy's `r` events and the
// changes carry the masked value under the target name, in the schema part too; a key column renamed
// renames the Cdc-Key header's field; rows the filter refuses are never published; a row moved out by
// an update is a `d` and a tombstone, one moved in is there again; and no event holds the clear value.
// Skipped deletes publish no `d` and no tombstone, and provenance columns ride in every event's row.
import { createHmac } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { natsConfiguration } from '../../../../shared/agents/nats';
import { NatsTarget } from '../../../../main/agents/nats/target';
import { tableKey } from '../../../../main/agents/source';
import { PipelineRunner } from '../../../../main/runner/pipelineRunner';
import type { RunnerEvent } from '../../../../main/runner/events';
import { bothSources } from '../../../helpers/bothSources';
import { applyEvents, readStream } from '../../../helpers/debeziumConsumer';
import { deleteStreams, natsServers } from '../../../helpers/natsServer';
import { provenanceColumns } from '../../../helpers/provenance';
import { until } from '../../../helpers/until';

const SERVERS = natsServers();
const SALT = 'stream-salt-of-the-suite-41c9';
const sources = bothSources({ pipelineId: 'natsshape', ibmiSchema: 'NATSSHAPE' });
const streams: string[] = [];
afterAll(async () => {
  await deleteStreams(SERVERS, streams);
});

describe.each(['change-tracking', 'journal'] as const)('a shaped %s table on the stream', (kind) => {
  it('publishes masked, renamed and filtered events, and a row leaving the filter as a delete', async () => {
    const h = await sources.harness(kind);
    const t = await h.createTable('SHAPED');
    await h.insert(t, [
      { id: 1, name: 'alpha', amount: '10.50' },
      { id: 2, name: 'xbeta', amount: '2.00' },
    ]);
    const stream = `NATSSHAPE_${kind === 'journal' ? 'J' : 'C'}_${process.pid}`;
    streams.push(stream);
    const prefix = `natsshape${kind === 'journal' ? 'j' : 'c'}`;
    const events: RunnerEvent[] = [];
    const runner = new PipelineRunner({
      openSource: () => h.open(),
      openTarget: async () =>
        new NatsTarget({
          credentials: { connectionName: 'shape', servers: SERVERS, tls: false },
          configuration: natsConfiguration.schema.parse({ stream, subjectPrefix: prefix }),
          pipelineId: 'shape',
          origin:
            kind === 'journal'
              ? { connector: 'ibmi', server: 'sandbox', database: null }
              : { connector: 'sqlserver', server: 'sandbox', database: 'Sales' },
        }),
      entities: [
        {
          ...h.entity(t),
          columnShaping: {
            id: { targetName: 'customer_id' },
            name: { mask: { kind: 'hash' } },
            amount: { targetName: 'price' },
          },
          rowFilter: "name not like 'x%'",
        },
      ],
      maskSalt: SALT,
      onEvent: (e) => events.push(e),
      idleMs: 20,
    });
    const subject =
      kind === 'journal' ? `${prefix}.${t.schema}.${t.table}` : `${prefix}.Sales.${t.schema}.${t.table}`;
    const read = () => readStream(SERVERS, stream, subject);
    const hashed = (v: string) => createHmac('sha256', SALT).update(v, 'utf8').digest('hex');
    const nameOf = (v: unknown) =>
      v && typeof v === 'object' ? (v as Record<string, unknown>)[kind === 'journal' ? 'NAME' : 'name'] : v;
    void runner.start();
    try {
      await until('copied', () => events.some((e) => e.kind === 'snapshot-done'));
      await h.insert(t, [{ id: 3, name: 'gamma', amount: '3.00' }]);
      await h.insert(t, [{ id: 4, name: 'xdelta', amount: '4.00' }]);
      await h.update(t, 1, 'xalpha');
      await h.update(t, 2, 'beta');
      // The copy's start is a truncate of the table (`t`), before its rows.
      const published = async () => (await read()).filter((e) => e.value?.op !== 't');
      await until('the stream to take the changes', async () => (await published()).length >= 5);
      const all = await published();
      const seen = all.map((e) => [
        e.value === null ? 'tombstone' : e.value.op,
        e.key?.customer_id,
        e.value === null ? null : nameOf(e.value.after),
      ]);
      const moveIn = kind === 'journal' ? 'c' : 'u';
      expect(seen).toEqual([
        ['r', 1, hashed('alpha')],
        ['c', 3, hashed('gamma')],
        ['d', 1, null],
        ['tombstone', 1, null],
        [moveIn, 2, hashed('beta')],
      ]);
      // The schema part names the renamed columns and the hash as text.
      const fields = all[0]?.schema?.fields?.find((f) => f.field === 'after')?.fields ?? [];
      expect(fields.map((f) => f.field)).toEqual([
        'customer_id',
        kind === 'journal' ? 'NAME' : 'name',
        'price',
      ]);
      expect(fields[1]?.type).toBe('string');
      const text = JSON.stringify(all);
      for (const clear of ['alpha', 'gamma', 'xdelta', '"beta"', SALT]) expect(text).not.toContain(clear);
      const rows = [...(applyEvents(all).get(`${t.schema}.${t.table}`)?.values() ?? [])];
      expect(rows.map((r) => Number(r.customer_id)).sort()).toEqual([2, 3]);
    } finally {
      await runner.stop();
    }
  });

  it('skips deletes, and carries what wrote each row, when and where, in every event', async () => {
    const h = await sources.harness(kind);
    const t = await h.createTable('KEPT');
    await h.insert(t, [
      { id: 1, name: 'alpha', amount: '1.00' },
      { id: 2, name: 'beta', amount: '2.00' },
    ]);
    const stream = `NATSKEPT_${kind === 'journal' ? 'J' : 'C'}_${process.pid}`;
    streams.push(stream);
    const prefix = `natskept${kind === 'journal' ? 'j' : 'c'}`;
    const provenance = provenanceColumns(kind);
    const events: RunnerEvent[] = [];
    const runner = new PipelineRunner({
      openSource: () => h.open(),
      openTarget: async () =>
        new NatsTarget({
          credentials: { connectionName: 'kept', servers: SERVERS, tls: false },
          configuration: natsConfiguration.schema.parse({ stream, subjectPrefix: prefix }),
          pipelineId: 'kept',
          origin:
            kind === 'journal'
              ? { connector: 'ibmi', server: 'sandbox', database: null }
              : { connector: 'sqlserver', server: 'sandbox', database: 'Sales' },
        }),
      entities: [{ ...h.entity(t), skipOperations: ['delete'] }],
      provenance,
      onEvent: (e) => events.push(e),
      idleMs: 20,
    });
    const subject =
      kind === 'journal' ? `${prefix}.${t.schema}.${t.table}` : `${prefix}.Sales.${t.schema}.${t.table}`;
    const published = async () =>
      (await readStream(SERVERS, stream, subject)).filter((e) => e.value?.op !== 't');
    const started = Date.now();
    void runner.start();
    try {
      await until('copied', () => events.some((e) => e.kind === 'snapshot-done'));
      await h.insert(t, [{ id: 3, name: 'gamma', amount: '3.00' }]);
      await h.remove(t, 1);
      // Committed after the delete: once it is on the stream, the delete was read and skipped.
      await h.update(t, 2, 'bravo');
      await until('the update on the stream', async () =>
        (await published()).some((e) => e.value?.op === 'u'),
      );
    } finally {
      await runner.stop();
    }
    const all = await published();
    const column = (after: unknown, name: string) =>
      after && typeof after === 'object'
        ? Object.entries(after).find(([k]) => k.toLowerCase() === name)?.[1]
        : undefined;
    // No delete and no tombstone: the stream keeps every row ever replicated.
    expect(
      all.map((e) => [
        e.value === null ? 'tombstone' : e.value.op,
        e.key?.[kind === 'journal' ? 'ID' : 'id'],
      ]),
    ).toEqual([
      ['r', 1],
      ['r', 2],
      ['c', 3],
      ['u', 2],
    ]);
    expect(all.map((e) => column(e.value?.after, 'cdc_op'))).toEqual(['copy', 'copy', 'insert', 'update']);
    for (const e of all.slice(2)) {
      const after = e.value?.after;
      expect(String(column(after, 'cdc_position'))).toMatch(kind === 'journal' ? /^\w+\/\w+\/\d+$/ : /^\d+$/);
      const committed = column(after, 'cdc_committed');
      expect(typeof committed).toBe('number');
      expect(committed).toBeGreaterThan(started - 60_000);
      expect(committed).toBeLessThan(Date.now() + 60_000);
      if (kind === 'journal')
        expect({
          job: column(after, 'cdc_job'),
          user: column(after, 'cdc_job_user'),
          program: column(after, 'cdc_program'),
        }).toEqual({ job: 'QZDASOINIT', user: 'QUSER', program: 'QZDASOINIT' });
    }
  });

  it('holds a soft-deleting table and a history table, which a stream cannot keep, and says why', async () => {
    const h = await sources.harness(kind);
    const t = await h.createTable('SOFT');
    const history = await h.createTable('HIST');
    const stream = `NATSSOFT_${kind === 'journal' ? 'J' : 'C'}_${process.pid}`;
    streams.push(stream);
    const events: RunnerEvent[] = [];
    const runner = new PipelineRunner({
      openSource: () => h.open(),
      openTarget: async () =>
        new NatsTarget({
          credentials: { connectionName: 'soft', servers: SERVERS, tls: false },
          configuration: natsConfiguration.schema.parse({ stream, subjectPrefix: `natssoft${kind[0]}` }),
          pipelineId: 'soft',
          origin: { connector: kind === 'journal' ? 'ibmi' : 'sqlserver', server: 'sandbox', database: null },
        }),
      entities: [
        { ...h.entity(t), tableMode: { kind: 'softDelete', flagColumn: 'gone', timeColumn: 'gone_at' } },
        {
          ...h.entity(history),
          tableMode: { kind: 'history', validFromColumn: 'valid_from', validToColumn: 'valid_to' },
        },
      ],
      onEvent: (e) => events.push(e),
      idleMs: 20,
    });
    await runner.runUntilCaughtUp();
    expect(runner.failure).toBeNull();
    const held = new Map(
      events.flatMap((e) => (e.kind === 'table-suspended' ? [[e.table, e.reason] as const] : [])),
    );
    expect(held.get(tableKey(h.entity(t).source))).toMatch(/cannot keep deleted rows flagged/);
    expect(held.get(tableKey(h.entity(history).source))).toMatch(
      /cannot keep a row per version: a stream's events are each a version already/,
    );
  });
});
