// Keys in Arabic and Hebrew: a file whose primary key is a VARCHAR CCSID 424 and a CHAR CCSID 420 column,
// held in visual order as IBM i stores them, with a CLOB beside (whose value the agent reads by key).
// The pipeline copies one row and journals another into SQLite, the CLOB found by key; the re-reads
// verify makes by key find every row. The agent matches such a key by the bytes the file holds (the
// logical text written back in visual order), since SQL compares what is stored, not what is read.
// A key column whose CCSID the entity forces (273 bytes under a 37 tag) likewise: before, its journaled
// rows with a CLOB were dropped as gone.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logicalToVisual } from '../../../../lib/ibmi/bidi';
import type { IbmiConnection } from '../../../../lib/ibmi/connection';
import { openJournalSource } from '../../../../main/agents/journal/source';
import { SqliteTarget } from '../../../../main/agents/sqlite/target';
import type { Entity } from '../../../../shared/controlApi';
import { ibmiFold } from '../../../../shared/names';
import type { RunnerEvent } from '../../../../main/runner/events';
import { startSandboxIbmi, type SandboxIbmi } from '../../../../simulators/ibmi';
import { SEED_ADMIN } from '../../../../simulators/ibmi/seed';
import {
  journalConfiguration,
  journalEntity,
  journalRunner,
  sandboxIbmiCredentials,
} from '../../../helpers/journal';

const TABLE = { schema: 'BIDI', table: 'KEYS' };
// Logical text as a DBA reads it; the file holds it as a Toolbox client writes it (visual, shaped).
const ROWS = [
  { he: 'שלום עולם', ar: 'سلام', note: 'first' },
  // Numbers first: a line that opens right to left and ends in a number reads back number first.
  { he: '100 מחיר', ar: '12 محمد', note: 'second' },
];
const stored = (r: (typeof ROWS)[number]) => [logicalToVisual(r.he, 424), logicalToVisual(r.ar, 420), r.note];

let sandbox: SandboxIbmi;
let admin: IbmiConnection;
beforeAll(async () => {
  sandbox = await startSandboxIbmi({ seed: true });
  admin = await sandbox.connect({ ...SEED_ADMIN });
  await admin.query('CREATE SCHEMA BIDI');
  await admin.query(
    'CREATE TABLE BIDI.KEYS (HE VARCHAR(20) CCSID 424 NOT NULL, AR CHAR(12) CCSID 420 NOT NULL, NOTE CLOB(1K), PRIMARY KEY (HE, AR))',
  );
  // A key tagged 37 that a program filled with 273 bytes: 37 reads Müller's ü (0xD0) as "}".
  await admin.query('CREATE TABLE BIDI.KUNDEN (NAME CHAR(8) CCSID 37 NOT NULL PRIMARY KEY, NOTE CLOB(1K))');
});
afterAll(async () => {
  await admin?.close();
  await sandbox?.close();
});

/** A pipeline of one entity into a new SQLite file, and its source opened alone for re-reads by key. */
function keyedPipeline(pipeline: string, entity: Entity) {
  const path = join(mkdtempSync(join(tmpdir(), `cdc-${pipeline}-`)), 'replica.sqlite');
  const events: RunnerEvent[] = [];
  const run = () =>
    journalRunner(
      sandbox,
      pipeline,
      [entity],
      async () => new SqliteTarget(path, pipeline),
      events,
    ).runUntilCaughtUp();
  const openSource = () =>
    openJournalSource({
      credentials: sandboxIbmiCredentials(sandbox, { syncLibrary: ibmiFold(pipeline) }),
      configuration: journalConfiguration(),
      pipelineId: pipeline,
      agentId: 'src',
      entities: [entity],
    });
  return { path, events, run, openSource };
}

describe('Arabic and Hebrew keys', () => {
  it('copy, journal (the CLOB read by key) and re-read by key all find the rows', async () => {
    const { path, events, run, openSource } = keyedPipeline(
      'bidikeys',
      journalEntity(TABLE, { target: { table: 'keys' } }),
    );
    const insert = (r: (typeof ROWS)[number]) =>
      admin.query('INSERT INTO BIDI.KEYS VALUES (?, ?, ?)', stored(r));
    await insert(ROWS[0] as (typeof ROWS)[number]);
    await run();
    await insert(ROWS[1] as (typeof ROWS)[number]);
    await run();
    expect(events.filter((e) => ['failed', 'rows-refused', 'table-suspended'].includes(e.kind))).toEqual([]);
    const db = new Database(path, { readonly: true });
    try {
      // CHAR(12) keeps its blanks, at the logical end.
      expect(db.prepare('SELECT "HE", "AR", "NOTE" FROM "keys" ORDER BY "NOTE"').raw().all()).toEqual(
        ROWS.map((r) => [r.he, r.ar.padEnd(12, ' '), r.note]),
      );
    } finally {
      db.close();
    }

    const source = await openSource();
    try {
      const again = await source.readRows(
        TABLE,
        ROWS.map((r) => ({ HE: r.he, AR: r.ar.padEnd(12, ' ') })),
      );
      expect(again.map((r) => [r.HE, r.AR, r.NOTE]).sort()).toEqual(
        ROWS.map((r) => [r.he, r.ar.padEnd(12, ' '), r.note]).sort(),
      );
      // A key in stored order is another key: nothing found.
      const first = ROWS[0] as (typeof ROWS)[number];
      expect(
        await source.readRows(TABLE, [{ HE: logicalToVisual(first.he, 424), AR: first.ar.padEnd(12, ' ') }]),
      ).toEqual([]);
    } finally {
      await source.close();
    }
  });

  it('a key read by a forced CCSID is matched by its bytes too', async () => {
    const table = { schema: 'BIDI', table: 'KUNDEN' };
    const { path, events, run, openSource } = keyedPipeline(
      'forcedkeys',
      journalEntity(table, { target: { table: 'kunden' }, forceCcsid: { NAME: 273 } }),
    );
    await admin.query("INSERT INTO BIDI.KUNDEN VALUES ('Gr}~e', 'copied')");
    await run();
    await admin.query("INSERT INTO BIDI.KUNDEN VALUES ('M}ller', 'journaled')");
    await run();
    expect(events.filter((e) => ['failed', 'rows-refused', 'table-suspended'].includes(e.kind))).toEqual([]);
    const db = new Database(path, { readonly: true });
    try {
      expect(db.prepare('SELECT "NAME", "NOTE" FROM "kunden" ORDER BY "NOTE"').raw().all()).toEqual([
        ['Grüße   ', 'copied'],
        ['Müller  ', 'journaled'],
      ]);
    } finally {
      db.close();
    }
    const source = await openSource();
    try {
      const again = await source.readRows(table, [{ NAME: 'Müller  ' }, { NAME: 'Grüße   ' }]);
      expect(again.map((r) => r.NOTE).sort()).toEqual(['copied', 'journaled']);
    } finally {
      await source.close();
    }
  });
});
