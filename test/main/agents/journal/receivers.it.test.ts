// Receivers and journal attributes as an operator meets them, from the simulated IBM i into SQLite and
// PostgreSQL. An idle file (no entries for a night) whose journal's other files keep writing: the
// operator changes receivers and deletes every detached one; the pipeline has followed the journal, so
// it reads on with no copy again and nothing lost. A journal that minimises entry data
// (MINENTDTA(*FILE)) is refused by the checks with the CHGJRN that fixes it, and a run on it stops
// before anything is copied.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Entity } from '../../../../shared/controlApi';
import type { IbmiConnection } from '../../../../lib/ibmi/connection';
import { openJournalSource } from '../../../../main/agents/journal/source';
import { PostgresTarget } from '../../../../main/agents/postgresql/target';
import { SqliteTarget } from '../../../../main/agents/sqlite/target';
import type { Target } from '../../../../main/agents/target';
import { PipelineRunner } from '../../../../main/runner/pipelineRunner';
import type { RunnerEvent } from '../../../../main/runner/events';
import { startSandboxIbmi, type SandboxIbmi } from '../../../../simulators/ibmi';
import { SEED_ADMIN } from '../../../../simulators/ibmi/seed';
import { journalConfiguration, journalEntity, sandboxIbmiCredentials } from '../../../helpers/journal';
import { POSTGRES, scratchSchema } from '../../../helpers/replica';

const idle = journalEntity({ schema: 'NIGHT', table: 'IDLE' });
const fresh = journalEntity({ schema: 'NIGHT', table: 'FRESH' });

describe.each(['SQLite', 'PostgreSQL'] as const)('receivers and journal attributes → %s', (label) => {
  let sandbox: SandboxIbmi;
  let admin: IbmiConnection;
  let client: pg.Client | undefined;
  let drop: (() => Promise<void>) | undefined;
  const path = join(mkdtempSync(join(tmpdir(), 'cdc-night-')), 'replica.sqlite');
  const schema = `cdc_night_${process.pid}`;
  const options = (entity: Entity) => ({
    credentials: sandboxIbmiCredentials(sandbox, { syncLibrary: 'NIGHTSYNC' }),
    configuration: journalConfiguration(),
    pipelineId: `night-${entity.target.table}`,
    agentId: 'src',
    entities: [entity],
  });
  const runner = (entity: Entity, events: RunnerEvent[]) =>
    new PipelineRunner({
      openSource: () => openJournalSource(options(entity)),
      openTarget: async (): Promise<Target> =>
        label === 'SQLite'
          ? new SqliteTarget(path, `night-${entity.target.table}`)
          : new PostgresTarget({ ...POSTGRES, schema }, `night-${entity.target.table}`),
      entities: [{ source: entity.source, target: entity.target }],
      onEvent: (e) => events.push(e),
      retry: { firstDelayMs: 10, maxDelayMs: 50, maxAttempts: 1 },
    });
  /** The target table's rows as `ID:NAME` in key order, or null when the table does not exist. */
  const rows = async (table: string): Promise<string[] | null> => {
    let all: { ID: unknown; NAME: unknown }[];
    if (label === 'SQLite') {
      const db = new Database(path, { readonly: true, fileMustExist: false });
      try {
        if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table))
          return null;
        all = db.prepare(`SELECT "ID", "NAME" FROM "${table}" ORDER BY "ID"`).all() as typeof all;
      } finally {
        db.close();
      }
    } else {
      const c = client as pg.Client;
      const found = await c.query('SELECT 1 FROM pg_tables WHERE schemaname = $1 AND tablename = $2', [
        schema,
        table,
      ]);
      if (found.rowCount === 0) return null;
      all = (await c.query(`SELECT "ID", "NAME" FROM "${schema}"."${table}" ORDER BY "ID"`))
        .rows as typeof all;
    }
    return all.map((r) => `${String(r.ID)}:${String(r.NAME).trimEnd()}`);
  };
  const receivers = async () =>
    (
      await admin.query(
        "SELECT JOURNAL_RECEIVER_NAME, STATUS FROM QSYS2.JOURNAL_RECEIVER_INFO WHERE JOURNAL_LIBRARY = 'NIGHT' AND JOURNAL_NAME = 'QSQJRN'",
      )
    ).map((r) => ({ name: String(r.JOURNAL_RECEIVER_NAME), attached: String(r.STATUS) === 'ATTACHED' }));

  beforeAll(async () => {
    sandbox = await startSandboxIbmi({ seed: true });
    admin = await sandbox.connect({ ...SEED_ADMIN });
    await admin.query('CREATE SCHEMA NIGHT');
    for (const t of ['IDLE', 'BUSY', 'FRESH']) {
      await admin.query(
        `CREATE TABLE NIGHT.${t} (ID INTEGER NOT NULL PRIMARY KEY, NAME VARCHAR(20) NOT NULL)`,
      );
      await admin.command(`CHGJRNOBJ OBJ((NIGHT/${t} *FILE)) ATR(*IMAGES) IMAGES(*BOTH)`);
      await admin.query(`INSERT INTO NIGHT.${t} VALUES (1, 'one')`);
    }
    if (label === 'PostgreSQL') ({ client, drop } = await scratchSchema(schema));
  });
  afterAll(async () => {
    await admin?.close();
    await sandbox?.close();
    await drop?.();
  });

  it('an idle file outlives the deletion of every receiver it was read past: no copy again, nothing lost', async () => {
    const events: RunnerEvent[] = [];
    await runner(idle, events).runUntilCaughtUp();
    expect(await rows('idle')).toEqual(['1:one']);
    // A night of work on another file of the same journal, over three receivers; IDLE has no entries.
    for (let night = 2; night <= 4; night++) {
      await admin.query(`INSERT INTO NIGHT.BUSY VALUES (${night}, 'busy ${night}')`);
      await admin.command('CHGJRN JRN(NIGHT/QSQJRN) JRNRCV(*GEN)');
      await runner(idle, events).runUntilCaughtUp();
    }
    const detached = (await receivers()).filter((r) => !r.attached);
    expect(detached.length).toBeGreaterThanOrEqual(3);
    for (const r of detached) await admin.command(`DLTJRNRCV JRNRCV(NIGHT/${r.name})`);

    await admin.query("UPDATE NIGHT.IDLE SET NAME = 'awake' WHERE ID = 1");
    await admin.query("INSERT INTO NIGHT.IDLE VALUES (2, 'two')");
    await runner(idle, events).runUntilCaughtUp();
    expect(events.filter((e) => e.kind === 'failed' || e.kind === 'resnapshot')).toEqual([]);
    expect(events.filter((e) => e.kind === 'snapshot-done')).toHaveLength(1);
    expect(await rows('idle')).toEqual(['1:awake', '2:two']);
  });

  it('a journal minimising entry data (MINENTDTA(*FILE)) is refused by the checks and the run never copies', async () => {
    await admin.command('CHGJRN JRN(NIGHT/QSQJRN) MINENTDTA(*FILE)');
    try {
      const source = await openJournalSource(options(fresh));
      try {
        const check = (await source.check([fresh])).find((c) => c.id === 'journal-attributes');
        expect(check).toMatchObject({ status: 'failed', fix: 'CHGJRN JRN(NIGHT/QSQJRN) MINENTDTA(*NONE)' });
        expect(check?.message).toContain('NIGHT/QSQJRN minimises entry data for files (MINENTDTA FILE)');
      } finally {
        await source.close();
      }
      const events: RunnerEvent[] = [];
      const run = runner(fresh, events);
      await run.runUntilCaughtUp().catch(() => undefined);
      expect(String(run.failure)).toContain(
        'NIGHT/QSQJRN minimises entry data for files (MINENTDTA FILE): update entries carry part of the record, which the agent cannot apply. Run CHGJRN JRN(NIGHT/QSQJRN) MINENTDTA(*NONE) first.',
      );
      expect(events.filter((e) => e.kind === 'snapshot-done')).toEqual([]);
      expect(await rows('fresh')).toBeNull();
    } finally {
      await admin.command('CHGJRN JRN(NIGHT/QSQJRN) MINENTDTA(*NONE)');
    }
    // Fixed as the check says, the same pipeline copies and streams.
    const events: RunnerEvent[] = [];
    await runner(fresh, events).runUntilCaughtUp();
    await admin.query("UPDATE NIGHT.FRESH SET NAME = 'changed' WHERE ID = 1");
    await runner(fresh, events).runUntilCaughtUp();
    expect(events.filter((e) => e.kind === 'failed')).toEqual([]);
    expect(await rows('fresh')).toEqual(['1:changed']);
  });
});
