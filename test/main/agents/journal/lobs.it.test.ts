// LOB columns from the simulated IBM i into SQLite and PostgreSQL: CLOB (CCSID 1141), BLOB, NCLOB and
// XML between other columns, copied and then streamed. The journal entries hold IBM's *POINTER
// placeholders, so the agent reads the values from the file by key: a change that touched only a LOB
// arrives, a row inserted and deleted before the read is left to its delete, and the target ends equal
// to the source, compared here row by row with what SQL reads at the source.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { expectClean, verifyWith } from '../../../helpers/verify';

const docs = journalEntity({ schema: 'LOBS', table: 'DOCS' });
const COLUMNS = ['ID', 'BODY', 'TITLE', 'PHOTO', 'N', 'NOTE', 'META'];
const photo = (seed: number) => Buffer.from(Array.from({ length: 60_000 }, (_, i) => (i * seed) % 256));
const body = (word: string) => `${word} Grüße aus Köln, 10 € - `.repeat(4000);

describe.each(['SQLite', 'PostgreSQL'] as const)('LOB columns → %s', (label) => {
  let sandbox: SandboxIbmi;
  let admin: IbmiConnection;
  let client: pg.Client | undefined;
  let drop: (() => Promise<void>) | undefined;
  const path = join(mkdtempSync(join(tmpdir(), 'cdc-lobs-')), 'replica.sqlite');
  const schema = `cdc_lobs_${process.pid}`;
  const target = async (): Promise<Target> =>
    label === 'SQLite' ? new SqliteTarget(path, 'lobs') : new PostgresTarget({ ...POSTGRES, schema }, 'lobs');
  const runner = (events: RunnerEvent[]) =>
    new PipelineRunner({
      openSource: () =>
        openJournalSource({
          credentials: sandboxIbmiCredentials(sandbox, { syncLibrary: 'LOBSYNC' }),
          configuration: journalConfiguration(),
          pipelineId: 'lobs',
          agentId: 'src',
          entities: [docs],
        }),
      openTarget: target,
      entities: [{ source: docs.source, target: docs.target }],
      onEvent: (e) => events.push(e),
      retry: { firstDelayMs: 10, maxDelayMs: 50, maxAttempts: 1 },
    });
  const run = async () => {
    const events: RunnerEvent[] = [];
    const once = runner(events);
    await once.runUntilCaughtUp();
    expect(once.failure).toBeNull();
    return events;
  };
  /** Rows as [ID, BODY, TITLE, PHOTO (hex), N, NOTE, META], from either side. */
  const shaped = (rows: Record<string, unknown>[]) =>
    rows.map((r) =>
      COLUMNS.map((c) => {
        const v = r[c] ?? null;
        return Buffer.isBuffer(v) || v instanceof Uint8Array
          ? Buffer.from(v).toString('hex')
          : v === null
            ? null
            : String(v);
      }),
    );
  const targetRows = async () => {
    if (label === 'SQLite') {
      const db = new Database(path, { readonly: true });
      try {
        return shaped(db.prepare('SELECT * FROM "docs" ORDER BY "ID"').all() as Record<string, unknown>[]);
      } finally {
        db.close();
      }
    }
    const r = await (client as pg.Client).query(`SELECT * FROM "${schema}"."docs" ORDER BY "ID"`);
    return shaped(r.rows as Record<string, unknown>[]);
  };
  const sourceRows = async () =>
    shaped(
      (await admin.query(`SELECT ${COLUMNS.join(', ')} FROM LOBS.DOCS ORDER BY ID`)) as Record<
        string,
        unknown
      >[],
    );
  const insert = (
    id: number,
    text: string | null,
    title: string,
    image: Buffer | null,
    note: string | null,
    meta: string | null,
  ) =>
    admin.query('INSERT INTO LOBS.DOCS VALUES (?, ?, ?, ?, ?, ?, ?)', [
      id,
      text,
      title,
      image,
      id * 10,
      note,
      meta,
    ]);

  beforeAll(async () => {
    sandbox = await startSandboxIbmi({ seed: true });
    admin = await sandbox.connect({ ...SEED_ADMIN });
    await admin.query('CREATE SCHEMA LOBS');
    await admin.query(
      'CREATE TABLE LOBS.DOCS (ID INTEGER NOT NULL PRIMARY KEY, BODY CLOB(1M) CCSID 1141, TITLE VARCHAR(20) NOT NULL, ' +
        'PHOTO BLOB(64K), N INTEGER, NOTE NCLOB(10K), META XML)',
    );
    await admin.command('CHGJRNOBJ OBJ((LOBS/DOCS *FILE)) ATR(*IMAGES) IMAGES(*BOTH)');
    await insert(1, body('eins'), 'first', photo(3), '東京 😀', '<doc id="1"/>');
    if (label === 'PostgreSQL') ({ client, drop } = await scratchSchema(schema));
  });
  afterAll(async () => {
    await admin?.close();
    await sandbox?.close();
    await drop?.();
  });

  it('copies, then streams inserts and updates with their LOB values read from the file, equal to the source', async () => {
    await run();
    expect(await targetRows()).toEqual(await sourceRows());

    await insert(2, body('zwei'), 'second', photo(7), null, '<doc id="2"><p>ü</p></doc>');
    // Only a LOB changes: the entry's images are equal placeholders, and the change still arrives.
    await admin.query('UPDATE LOBS.DOCS SET BODY = ? WHERE ID = 1', [body('neu')]);
    await admin.query("UPDATE LOBS.DOCS SET TITLE = 'second, renamed' WHERE ID = 2");
    // Gone before the agent reads: left to its delete, never applied with values it cannot have.
    await insert(3, 'brief', 'third', null, null, null);
    await admin.query('DELETE FROM LOBS.DOCS WHERE ID = 3');
    await insert(4, null, 'no lobs', null, null, null);
    const events = await run();
    expect(events.filter((e) => e.kind === 'failed')).toEqual([]);
    const rows = await targetRows();
    expect(rows).toEqual(await sourceRows());
    expect(rows.map((r) => r[0])).toEqual(['1', '2', '4']);
    expect(String(rows[0]?.[1])).toMatch(/^neu Grüße aus Köln, 10 € - /);
    expect(rows[0]?.[1]?.length).toBe(body('neu').length);
  });

  it('a verify compares the LOB values whole and finds no difference', async () => {
    expectClean(await verifyWith(runner([])));
  });
});
