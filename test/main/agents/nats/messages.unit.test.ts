// What one change becomes on the stream, as Debezium sends it: a delete and its tombstone (or not), a
// key change as delete + tombstone + create, a copy's read and a truncate without a key; each event's
// id the same however often it is built, and different for every event.
import { describe, expect, it } from 'vitest';
import { TableEnvelope } from '../../../../main/agents/nats/envelope';
import { BatchMessages, KEY_HEADER, OP_HEADER } from '../../../../main/agents/nats/messages';
import type { Change } from '../../../../main/agents/source';
import type { TargetTable } from '../../../../main/agents/target';

const table: TargetTable = {
  source: 'SALES.ORDERS',
  name: 'orders',
  key: ['ID'],
  columns: [
    { name: 'ID', sourceType: 'INTEGER', nullable: false },
    { name: 'NAME', sourceType: 'VARCHAR(20)', nullable: true },
  ],
};
const envelope = (includeSchema = false) =>
  new TableEnvelope(
    table,
    { schema: 'SALES', table: 'ORDERS' },
    {
      prefix: 'cdc',
      origin: { connector: 'ibmi', server: 'as400', database: null },
      includeSchema,
      decimalHandling: 'precise',
      transactionEvents: false,
      version: '0.1.0',
    },
    false,
  );
const at = (op: Change['op'], key: number, row: Change['row'], before?: Change['before']): Change => ({
  table: 'SALES.ORDERS',
  op,
  key: { ID: key },
  row,
  changedColumns: null,
  position: 'JRNLIB/RCV0001/42',
  ...(before && { before }),
});

function built(changes: Change[], tombstones = true) {
  const batch = new BatchMessages('p1', 'cdc', tombstones, false);
  for (const c of changes) batch.change(envelope(), 0, c);
  return batch.messages.map((m) => ({
    subject: m.subject,
    op: m.headers.get(OP_HEADER),
    key: m.headers.get(KEY_HEADER),
    body:
      m.body.length === 0 ? null : (JSON.parse(new TextDecoder().decode(m.body)) as Record<string, unknown>),
    id: m.id,
  }));
}

describe('events of a change', () => {
  it('sends a delete with its before image, then a tombstone with the same key, unless switched off', () => {
    const [d, tombstone] = built([at('delete', 7, null, { ID: 7, NAME: 'gone' })]);
    expect(d).toMatchObject({ subject: 'cdc.SALES.ORDERS', op: 'd', key: '{"ID":7}' });
    expect(d?.body).toMatchObject({ op: 'd', before: { ID: 7, NAME: 'gone' }, after: null });
    expect(d?.body?.source).toMatchObject({
      receiver: 'RCV0001',
      receiver_library: 'JRNLIB',
      event_sequence: '42',
    });
    expect(tombstone).toMatchObject({ op: 'tombstone', key: '{"ID":7}', body: null });
    expect(built([at('delete', 7, null)], false).map((m) => m.op)).toEqual(['d']);
  });

  it('sends a key change as the old key’s delete and tombstone, then the new key’s create', () => {
    const events = built([at('update', 8, { ID: 8, NAME: 'moved' }, { ID: 7, NAME: 'moved' })]);
    expect(events.map((e) => [e.op, e.key])).toEqual([
      ['d', '{"ID":7}'],
      ['tombstone', '{"ID":7}'],
      ['c', '{"ID":8}'],
    ]);
    expect((events[2]?.body?.source as { event_sequence: string }).event_sequence).toBe('42');
    // An update that keeps its key is one event with both images.
    expect(built([at('update', 7, { ID: 7, NAME: 'new' }, { ID: 7, NAME: 'old' })])[0]?.body).toMatchObject({
      op: 'u',
      before: { NAME: 'old' },
      after: { NAME: 'new' },
    });
  });

  it('gives every event its own id, the same each time it is built', () => {
    const changes = [
      at('insert', 1, { ID: 1, NAME: 'a' }),
      at('delete', 1, null),
      at('update', 2, { ID: 2, NAME: 'b' }, { ID: 1, NAME: 'b' }),
    ];
    const ids = built(changes).map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(built(changes).map((m) => m.id)).toEqual(ids);
    // Another epoch (a copy since) makes other ids for the same change.
    const batch = new BatchMessages('p1', 'cdc', true, false);
    batch.change(envelope(), 1, changes[0] as Change);
    expect(batch.messages[0]?.id).not.toBe(ids[0]);
  });

  it('sends a copy’s row as a read and the copy’s start as a truncate without a key', () => {
    const batch = new BatchMessages('p1', 'cdc', true, false);
    batch.truncate(envelope(), 1, 'JRNLIB/RCV0001/40');
    batch.change(envelope(), 1, { ...at('insert', 1, { ID: 1, NAME: 'a' }), copied: true });
    const [t, r] = batch.messages;
    expect(t?.headers.has(KEY_HEADER)).toBe(false);
    expect(JSON.parse(new TextDecoder().decode(t?.body))).toMatchObject({
      op: 't',
      before: null,
      after: null,
    });
    expect(JSON.parse(new TextDecoder().decode(r?.body))).toMatchObject({
      op: 'r',
      source: { snapshot: 'true' },
    });
  });

  it('writes the key header in ASCII, decoding to the same text, with its schema when schemas are on', () => {
    const key = envelope(true).keyJson({ ID: 5 }, true);
    expect(JSON.parse(key)).toMatchObject({
      payload: { ID: 5 },
      schema: { type: 'struct', name: 'cdc.SALES.ORDERS.Key' },
    });
    const byName = new TableEnvelope(
      { ...table, key: ['NAME'] },
      { schema: 'SALES', table: 'ORDERS' },
      {
        prefix: 'cdc',
        origin: { connector: 'ibmi', server: 'as400', database: null },
        includeSchema: false,
        decimalHandling: 'precise',
        transactionEvents: false,
        version: '0.1.0',
      },
      false,
    );
    const header = byName.keyJson({ NAME: 'Zürich 東京 😀 "q"' }, true);
    expect(header).toMatch(/^[\x20-\x7e]+$/);
    expect(JSON.parse(header)).toEqual({ NAME: 'Zürich 東京 😀 "q"' });
  });
});
