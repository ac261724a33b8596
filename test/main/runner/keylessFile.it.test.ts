// A file the pipeline cannot key (no primary key, and its entity chose neither a logical key nor RRN)
// never fails the other tables: with onTableError "suspend-table" it waits alone, suspended with its
// remedy, while the keyed files copy and stream; choosing RRN and copying it takes it up. With
// "stop-pipeline" the pipeline stops, naming the file.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openJournalSource } from '../../../main/agents/journal/source';
import { tableKey } from '../../../main/agents/source';
import { SqliteTarget } from '../../../main/agents/sqlite/target';
import type { RunnerEvent } from '../../../main/runner/events';
import { PipelineRunner } from '../../../main/runner/pipelineRunner';
import type { Entity } from '../../../shared/controlApi';
import type { OnTableError } from '../../../shared/agents/common';
import { startSandboxIbmi, type SandboxIbmi } from '../../../simulators/ibmi';
import { SEED_ADMIN } from '../../../simulators/ibmi/seed';
import type { IbmiConnection } from '../../../lib/ibmi/connection';
import { journalConfiguration, journalEntity, sandboxIbmiCredentials } from '../../helpers/journal';

const SCHEMA = 'KEYLESS';
const KEYED = [
  { schema: SCHEMA, table: 'ORDERS' },
  { schema: SCHEMA, table: 'ITEMS' },
];
const LOOSE = { schema: SCHEMA, table: 'NOTES' };
let ibmi: SandboxIbmi;
let admin: IbmiConnection;

beforeAll(async () => {
  ibmi = await startSandboxIbmi({ seed: true });
  admin = await ibmi.connect({ ...SEED_ADMIN });
  await admin.query(`CREATE SCHEMA ${SCHEMA}`);
  for (const t of KEYED) {
    await admin.query(
      `CREATE TABLE ${SCHEMA}.${t.table} (ID INTEGER NOT NULL PRIMARY KEY, NAME VARCHAR(20) NOT NULL)`,
    );
    await admin.query(`INSERT INTO ${SCHEMA}.${t.table} VALUES (1, 'one'), (2, 'two')`);
  }
  await admin.query(`CREATE TABLE ${SCHEMA}.NOTES (TEXT VARCHAR(40) NOT NULL)`);
  await admin.query(`INSERT INTO ${SCHEMA}.NOTES VALUES ('first'), ('second')`);
});
afterAll(async () => {
  await admin?.close();
  await ibmi?.close();
});

function runner(
  path: string,
  onTableError: OnTableError,
  events: RunnerEvent[],
  loose: Entity = journalEntity(LOOSE),
) {
  const entities = [...KEYED.map((t) => journalEntity(t)), loose];
  return new PipelineRunner({
    openSource: () =>
      openJournalSource({
        credentials: sandboxIbmiCredentials(ibmi),
        configuration: journalConfiguration(),
        pipelineId: 'keyless',
        agentId: 'source',
        entities,
      }),
    openTarget: async () => new SqliteTarget(path, 'keyless'),
    entities,
    onTableError,
    onEvent: (e) => events.push(e),
    idleMs: 20,
  });
}

const ids = (path: string, table: string) => {
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare(`SELECT ID FROM "${table}" ORDER BY ID`).all() as { ID: number }[]).map((r) =>
      Number(r.ID),
    );
  } finally {
    db.close();
  }
};

it('suspends the keyless file alone with its remedy; the keyed ones copy and stream, and RRN then takes it up', async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'cdc-keyless-')), 'replica.sqlite');
  const events: RunnerEvent[] = [];
  const first = runner(path, 'suspend-table', events);
  await first.runUntilCaughtUp();
  expect(first.failure).toBeNull();
  for (const t of KEYED) expect(ids(path, t.table.toLowerCase())).toEqual([1, 2]);
  const suspended = events.filter((e) => e.kind === 'table-suspended');
  expect(suspended).toEqual([
    {
      kind: 'table-suspended',
      table: tableKey(LOOSE),
      reason: expect.stringMatching(
        /KEYLESS\.NOTES was suspended: KEYLESS\.NOTES has no primary key: identify its rows by a logical key .* or by RRN in the pipeline's Tables\. The pipeline's other tables go on; choose how its rows are identified, then copy it \(re-snapshot\)\./,
      ),
    },
  ]);
  expect(events.some((e) => e.kind === 'failed')).toBe(false);

  // The keyed files stream on; the keyless one stays suspended across a restart, told once.
  for (const t of KEYED) await admin.query(`INSERT INTO ${SCHEMA}.${t.table} VALUES (3, 'three')`);
  events.length = 0;
  const second = runner(path, 'suspend-table', events);
  await second.runUntilCaughtUp();
  expect(second.failure).toBeNull();
  for (const t of KEYED) expect(ids(path, t.table.toLowerCase())).toEqual([1, 2, 3]);
  expect(events.filter((e) => e.kind === 'table-suspended')).toEqual([]);
  expect(second.snapshots().find((c) => c.table === tableKey(LOOSE))?.status).toBe('suspended');

  // RRN chosen for it and a re-snapshot asked: its rows arrive, keyed by record number.
  const rrn = journalEntity(LOOSE, { rowIdentification: { kind: 'rrn' } });
  const third = runner(path, 'suspend-table', events, rrn);
  expect(third.requestSnapshot(tableKey(LOOSE))).toBe(true);
  await third.runUntilCaughtUp();
  expect(third.failure).toBeNull();
  const db = new Database(path, { readonly: true });
  const notes = (db.prepare('SELECT TEXT FROM "notes" ORDER BY TEXT').all() as { TEXT: string }[]).map(
    (r) => r.TEXT,
  );
  db.close();
  expect(notes).toEqual(['first', 'second']);
});

it('stops the pipeline naming the file when onTableError is stop-pipeline', async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'cdc-keyless-stop-')), 'replica.sqlite');
  const r = runner(path, 'stop-pipeline', []);
  await r.runUntilCaughtUp();
  expect(r.failure).toMatch(/KEYLESS\.NOTES has no primary key/);
});
