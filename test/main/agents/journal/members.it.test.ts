// A file of several members (LEGACY/NOTES: NOTES and ARCHIVE, rows at the same RRNs in both) from the
// simulated IBM i into SQLite and PostgreSQL: every member is copied (through an alias per member in
// the sync library) and streamed (DSPJRN member *ALL), the member leading each row's key, so rows of
// two members never overwrite each other. The target equals the source member by member.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IbmiConnection } from '../../../../lib/ibmi/connection';
import { openJournalSource } from '../../../../main/agents/journal/source';
import type { TableShape } from '../../../../main/agents/source';
import { PostgresTarget } from '../../../../main/agents/postgresql/target';
import { SqliteTarget } from '../../../../main/agents/sqlite/target';
import type { Target } from '../../../../main/agents/target';
import { PipelineRunner } from '../../../../main/runner/pipelineRunner';
import type { RunnerEvent } from '../../../../main/runner/events';
import { startSandboxIbmi, type SandboxIbmi } from '../../../../simulators/ibmi';
import { SEED_ADMIN } from '../../../../simulators/ibmi/seed';
import { journalConfiguration, journalEntity, sandboxIbmiCredentials } from '../../../helpers/journal';
import {
  ibmiReplica,
  POSTGRES,
  scratchSchema,
  postgresReplica,
  sqliteReplica,
} from '../../../helpers/replica';
import { expectClean, settled, verifyOptions, verifyWith } from '../../../helpers/verify';

const notes = journalEntity({ schema: 'LEGACY', table: 'NOTES' }, { rowIdentification: { kind: 'rrn' } });

describe.each(['SQLite', 'PostgreSQL'] as const)('a file of two members → %s', (label) => {
  let sandbox: SandboxIbmi;
  let admin: IbmiConnection;
  let client: pg.Client | undefined;
  let drop: (() => Promise<void>) | undefined;
  const path = join(mkdtempSync(join(tmpdir(), 'cdc-members-')), 'replica.sqlite');
  const schema = `cdc_members_${process.pid}`;
  const open = (entity = notes) =>
    openJournalSource({
      credentials: sandboxIbmiCredentials(sandbox, { syncLibrary: 'MBRSYNC' }),
      configuration: journalConfiguration(),
      pipelineId: `members-${entity.target.table}`,
      agentId: 'src',
      entities: [entity],
    });
  const runner = (events: RunnerEvent[], entity = notes) =>
    new PipelineRunner({
      openSource: () => open(entity),
      openTarget: async (): Promise<Target> =>
        label === 'SQLite'
          ? new SqliteTarget(path, `members-${entity.target.table}`)
          : new PostgresTarget({ ...POSTGRES, schema }, `members-${entity.target.table}`),
      entities: [{ source: entity.source, target: entity.target }],
      onEvent: (e) => events.push(e),
      snapshotChunkRows: 2,
      retry: { firstDelayMs: 10, maxDelayMs: 50, maxAttempts: 1 },
    });
  const shape = async (): Promise<TableShape> => {
    const s = await open();
    try {
      return (await s.describe([notes.source]))[0] as TableShape;
    } finally {
      await s.close();
    }
  };
  const target = async (s: TableShape) =>
    label === 'SQLite'
      ? sqliteReplica(path, 'notes', s)
      : postgresReplica(client as pg.Client, schema, 'notes', s);

  beforeAll(async () => {
    sandbox = await startSandboxIbmi({ seed: true });
    admin = await sandbox.connect({ ...SEED_ADMIN });
    await admin.query('CREATE ALIAS QGPL.ARCHIVE FOR LEGACY.NOTES(ARCHIVE)');
    for (let i = 1; i <= 3; i++)
      await admin.query('INSERT INTO QGPL.ARCHIVE VALUES (?, ?)', [
        `Archived ${i}`,
        `2025-12-0${i}-08.00.00.000000`,
      ]);
    if (label === 'PostgreSQL') ({ client, drop } = await scratchSchema(schema));
  });
  afterAll(async () => {
    await admin?.close();
    await sandbox?.close();
    await drop?.();
  });

  it('copies and streams every member, the member leading the key', async () => {
    const s = await shape();
    expect(s.key).toEqual(['MEMBER', 'RRN']);
    const events: RunnerEvent[] = [];
    await runner(events).runUntilCaughtUp();
    expect(events.filter((e) => e.kind === 'failed')).toEqual([]);
    const copied = await target(s);
    // 5 notes and 3 archived, the first three at RRN 1–3 in both members.
    expect(copied.rows).toHaveLength(8);
    expect(copied).toEqual(await ibmiReplica(admin, s, label === 'SQLite' ? 7 : 6));

    await admin.query("UPDATE QGPL.ARCHIVE SET NOTE = 'archive edited' WHERE RRN(ARCHIVE) = 1");
    await admin.query("UPDATE LEGACY.NOTES SET NOTE = 'current edited' WHERE RRN(NOTES) = 1");
    await admin.query('DELETE FROM QGPL.ARCHIVE WHERE RRN(ARCHIVE) = 2');
    await admin.query("INSERT INTO QGPL.ARCHIVE VALUES ('Archived 4', '2025-12-04-08.00.00.000000')");
    await runner(events).runUntilCaughtUp();
    expect(events.filter((e) => e.kind === 'failed')).toEqual([]);
    const streamed = await target(s);
    expect(streamed).toEqual(await ibmiReplica(admin, s, label === 'SQLite' ? 7 : 6));
    expect(streamed.rows.filter((r) => r.includes('edited'))).toHaveLength(2);
  });

  it('replicates only the members the entity names, keyed by member still', async () => {
    const archive = { ...notes, target: { table: 'archive_only' }, members: ['ARCHIVE'] };
    const events: RunnerEvent[] = [];
    await runner(events, archive).runUntilCaughtUp();
    await admin.query("UPDATE LEGACY.NOTES SET NOTE = 'not replicated' WHERE RRN(NOTES) = 2");
    await admin.query("UPDATE QGPL.ARCHIVE SET NOTE = 'replicated' WHERE RRN(ARCHIVE) = 3");
    await runner(events, archive).runUntilCaughtUp();
    expect(events.filter((e) => e.kind === 'failed')).toEqual([]);
    const s = await shape();
    const rows =
      label === 'SQLite'
        ? sqliteReplica(path, 'archive_only', s).rows
        : (await postgresReplica(client as pg.Client, schema, 'archive_only', s)).rows;
    const source = (await ibmiReplica(admin, s, label === 'SQLite' ? 7 : 6)).rows.filter((r) =>
      r.startsWith('ARCHIVE|'),
    );
    expect(rows).toEqual(source);
    expect(rows.some((r) => r.includes('|replicated '))).toBe(true);
  });

  it('a verify of both members finds no difference; a row changed at the target is found by member and RRN, and repaired', async () => {
    expectClean(await verifyWith(runner([])));
    const running = runner([]);
    void running.start();
    try {
      const tamper = 'UPDATE notes SET "NOTE" = \'tampered\' WHERE "MEMBER" = \'ARCHIVE\' AND "RRN" = 3';
      if (label === 'SQLite') {
        const db = new Database(path, { timeout: 5000 });
        db.prepare(tamper).run();
        db.close();
      } else await (client as pg.Client).query(tamper.replace('notes', `"${schema}".notes`));
      const found = await settled(running, () => running.requestVerify(undefined, verifyOptions()));
      expect(found.tables[0]?.differences).toEqual([
        { kind: 'different', key: { MEMBER: 'ARCHIVE', RRN: '3' }, columns: ['NOTE'] },
      ]);
      const repaired = await settled(running, () => running.requestRepair());
      expect(repaired.repaired).toEqual({ 'LEGACY.NOTES': 1 });
      expectClean(repaired);
    } finally {
      await running.stop();
    }
  });
});
