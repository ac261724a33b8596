// Local test replication from the simulated IBM i (the sample SHOP and LEGACY libraries) into SQLite
// and into the real PostgreSQL of this machine: primary keys, a logical key on a DDS file, and a file
// without a key by RRN and by a logical key of all its columns — through changes of every kind, a
// commit and a rollback, a reorganisation and a restart. After each step the target equals the
// source, row for row (a checksum over all columns).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Entity } from '../../../../shared/controlApi';
import type { IbmiConnection } from '../../../../lib/ibmi/connection';
import type { TableShape } from '../../../../main/agents/source';
import { openJournalSource } from '../../../../main/agents/journal/source';
import { PipelineRunner } from '../../../../main/runner/pipelineRunner';
import type { RunnerEvent } from '../../../../main/runner/events';
import { SqliteTarget } from '../../../../main/agents/sqlite/target';
import { PostgresTarget } from '../../../../main/agents/postgresql/target';
import type { Target } from '../../../../main/agents/target';
import { startSandboxIbmi, type SandboxIbmi } from '../../../../simulators/ibmi';
import { SEED_ADMIN } from '../../../../simulators/ibmi/seed';
import { journalConfiguration, journalEntity, sandboxIbmiCredentials } from '../../../helpers/journal';
import {
  ibmiReplica,
  POSTGRES,
  scratchSchema,
  postgresReplicas,
  sqliteReplica,
  type Replica,
} from '../../../helpers/replica';

let sandbox: SandboxIbmi;
let admin: IbmiConnection;

const entities: Entity[] = [
  journalEntity({ schema: 'SHOP', table: 'CUSTOMER' }),
  journalEntity({ schema: 'SHOP', table: 'ORDERS' }),
  journalEntity(
    { schema: 'LEGACY', table: 'ITEMS' },
    { rowIdentification: { kind: 'logicalKey', columns: ['ITEMNO'] } },
  ),
];
const byRrn = journalEntity(
  { schema: 'LEGACY', table: 'NOTES' },
  { rowIdentification: { kind: 'rrn' }, target: { table: 'notes_rrn' } },
);
const byAllColumns = journalEntity(
  { schema: 'LEGACY', table: 'NOTES' },
  { rowIdentification: { kind: 'logicalKey', columns: ['NOTE', 'WRITTEN'] }, target: { table: 'notes_key' } },
);

function runner(
  pipelineId: string,
  list: Entity[],
  openTarget: () => Promise<Target>,
  events: RunnerEvent[] = [],
) {
  return new PipelineRunner({
    openSource: () =>
      openJournalSource({
        credentials: sandboxIbmiCredentials(sandbox, {
          enableDdsDiscovery: true,
          syncLibrary: pipelineId.slice(0, 10).toUpperCase().replace(/-/g, ''),
        }),
        configuration: journalConfiguration(),
        pipelineId,
        agentId: 'src',
        entities: list,
      }),
    openTarget,
    entities: list.map((e) => ({ source: e.source, target: e.target })),
    onEvent: (e) => events.push(e),
    snapshotChunkRows: 7,
    retry: { firstDelayMs: 10, maxDelayMs: 50, maxAttempts: 2 },
  });
}

async function shapesOf(list: Entity[]): Promise<TableShape[]> {
  const s = await openJournalSource({
    credentials: sandboxIbmiCredentials(sandbox, { enableDdsDiscovery: true }),
    configuration: journalConfiguration(),
    pipelineId: 'shapes',
    agentId: 'src',
    entities: list,
  });
  try {
    return await s.describe(list.map((e) => e.source));
  } finally {
    await s.close();
  }
}

const sourceReplicas = async (shapes: TableShape[], fractionDigits: number): Promise<Replica[]> =>
  Promise.all(shapes.map((s) => ibmiReplica(admin, s, fractionDigits)));

async function changeEverything(): Promise<void> {
  await admin.query(
    "INSERT INTO SHOP.CUSTOMER (ID, NAME, CITY, BALANCE, SINCE) VALUES (26, 'Ada', 'Genève', 1.25, '2026-11-22')",
  );
  await admin.query('UPDATE SHOP.CUSTOMER SET CITY = NULL, BALANCE = -3.50 WHERE ID = 7');
  await admin.query('DELETE FROM SHOP.CUSTOMER WHERE ID = 8');
  await admin.transaction(async (t) => {
    await t.query(
      "INSERT INTO SHOP.ORDERS VALUES (2000, 26, 99.99, '2026-11-22-08.15.30.123456', 'in one commit')",
    );
    await t.query('UPDATE SHOP.ORDERS SET AMOUNT = AMOUNT + 1 WHERE CUSTID = 3');
  });
  await admin
    .transaction(async (t) => {
      await t.query('DELETE FROM SHOP.ORDERS');
      throw new Error('rolled back');
    })
    .catch(() => undefined);
  await admin.query(
    "UPDATE LEGACY.ITEMS SET ADDED = '2026-12-31', PRICE = 0.01, REVIEWED = '2026-11-22' WHERE ITEMNO = 4",
  );
  await admin.query("INSERT INTO LEGACY.ITEMS VALUES (13, 'Neu', 1.00, 1, '2026-11-22', NULL)");
  await admin.query('DELETE FROM LEGACY.NOTES WHERE RRN(NOTES) = 2');
  await admin.command('RGZPFM FILE(LEGACY/NOTES)');
  await admin.query("UPDATE LEGACY.NOTES SET NOTE = 'after the reorganisation' WHERE RRN(NOTES) = 3");
  await admin.query("INSERT INTO LEGACY.NOTES VALUES ('new note', '2026-11-22-12.00.00.000000')");
}

describe.each([
  ['SQLite', 'to-sqlite'],
  ['PostgreSQL', 'to-pg'],
] as const)('simulated IBM i → %s', (label, id) => {
  const all = [...entities, byRrn];
  const keyed = [byAllColumns];
  let client: pg.Client | undefined;
  let drop: (() => Promise<void>) | undefined;
  const schema = `cdc_journal_${process.pid}`;
  const path = join(mkdtempSync(join(tmpdir(), 'cdc-journal-replica-')), 'replica.sqlite');
  const target = (pipeline: string) => async (): Promise<Target> =>
    label === 'SQLite'
      ? new SqliteTarget(path, pipeline)
      : new PostgresTarget({ ...POSTGRES, schema }, pipeline);
  const replicas = async (list: Entity[], shapes: TableShape[]) =>
    label === 'SQLite'
      ? shapes.map((s, i) => sqliteReplica(path, list[i]?.target.table ?? '', s))
      : postgresReplicas(
          client as pg.Client,
          schema,
          shapes.map((s, i) => [list[i]?.target.table ?? '', s] as const),
        );

  // SQLite keeps the seven fraction digits the canonical form pads to; PostgreSQL six.
  const digits = label === 'SQLite' ? 7 : 6;

  beforeAll(async () => {
    sandbox = await startSandboxIbmi({ seed: true });
    admin = await sandbox.connect({ ...SEED_ADMIN });
    if (label === 'PostgreSQL') ({ client, drop } = await scratchSchema(schema));
  });
  afterAll(async () => {
    await admin?.close();
    await sandbox?.close();
    await drop?.();
  });

  it('snapshots, streams every kind of change, re-snapshots the RRN file after RGZPFM, resumes: equal row for row', async () => {
    await runner(`${id}-a`, all, target(`${id}-a`)).runUntilCaughtUp();
    await runner(`${id}-b`, keyed, target(`${id}-b`)).runUntilCaughtUp();
    expect(await replicas(all, await shapesOf(all))).toEqual(
      await sourceReplicas(await shapesOf(all), digits),
    );

    await changeEverything();
    const events: RunnerEvent[] = [];
    await runner(`${id}-a`, all, target(`${id}-a`), events).runUntilCaughtUp();
    expect(events.filter((e) => e.kind === 'failed')).toEqual([]);
    expect(events.filter((e) => e.kind === 'resnapshot')).toEqual([
      expect.objectContaining({
        table: 'LEGACY.NOTES',
        reason: expect.stringContaining('RGZPFM') as unknown,
      }),
    ]);
    const keyedEvents: RunnerEvent[] = [];
    await runner(`${id}-b`, keyed, target(`${id}-b`), keyedEvents).runUntilCaughtUp();
    expect(keyedEvents.filter((e) => e.kind === 'resnapshot' || e.kind === 'failed')).toEqual([]);

    const [allShapes, keyedShapes] = [await shapesOf(all), await shapesOf(keyed)];
    expect(await replicas(all, allShapes)).toEqual(await sourceReplicas(allShapes, digits));
    expect(await replicas(keyed, keyedShapes)).toEqual(await sourceReplicas(keyedShapes, digits));

    // A restart with nothing new changes nothing.
    const again: RunnerEvent[] = [];
    await runner(`${id}-a`, all, target(`${id}-a`), again).runUntilCaughtUp();
    expect(again.filter((e) => e.kind === 'batch-applied' || e.kind.startsWith('snapshot'))).toEqual([]);
    expect(await replicas(all, allShapes)).toEqual(await sourceReplicas(allShapes, digits));
  });
});

describe('a crash between the target commit and the source checkpoint', () => {
  beforeAll(async () => {
    sandbox = await startSandboxIbmi({ seed: true });
    admin = await sandbox.connect({ ...SEED_ADMIN });
  });
  afterAll(async () => {
    await admin?.close();
    await sandbox?.close();
  });

  it('the restart resumes from the target’s checkpoint: nothing applied twice, and the source catches up', async () => {
    const list = [entities[0] as Entity];
    const path = join(mkdtempSync(join(tmpdir(), 'cdc-journal-crash-')), 'replica.sqlite');
    const target = async (): Promise<Target> => new SqliteTarget(path, 'crash');
    const open = () =>
      openJournalSource({
        credentials: sandboxIbmiCredentials(sandbox),
        configuration: journalConfiguration(),
        pipelineId: 'crash',
        agentId: 'src',
        entities: list,
      });
    const make = (openSource: typeof open, events: RunnerEvent[] = []) =>
      new PipelineRunner({
        openSource,
        openTarget: target,
        entities: list.map((e) => ({ source: e.source, target: e.target })),
        onEvent: (e) => events.push(e),
        retry: { firstDelayMs: 10, maxDelayMs: 50, maxAttempts: 1 },
      });
    await make(open).runUntilCaughtUp();
    await admin.query("INSERT INTO SHOP.CUSTOMER (ID, NAME) VALUES (300, 'once')");
    await admin.query('DELETE FROM SHOP.CUSTOMER WHERE ID = 1');

    // The process dies after the target committed the batch, before the source's checkpoint moved.
    const dying = make(async () => {
      const s = await open();
      s.saveCheckpoint = () => Promise.reject(new Error('killed before the source checkpoint was written'));
      return s;
    });
    await dying.runUntilCaughtUp();
    expect(dying.failure).toContain('killed');
    const stale = await open();
    const staleCheckpoint = await stale.loadCheckpoint();
    await stale.close();

    const events: RunnerEvent[] = [];
    await make(open, events).runUntilCaughtUp();
    expect(events.filter((e) => e.kind === 'batch-applied' || e.kind.startsWith('snapshot'))).toEqual([]);
    const [shape] = await shapesOf(list);
    expect(sqliteReplica(path, 'customer', shape as TableShape)).toEqual(
      await ibmiReplica(admin, shape as TableShape, 7),
    );
    const fresh = await open();
    expect(await fresh.loadCheckpoint()).not.toEqual(staleCheckpoint);
    await fresh.close();
  });
});
