// A shop's gaiji table end to end: codes of the user-defined area in a mixed Japanese VARCHAR and a
// GRAPHIC column, copied and journaled into SQLite and PostgreSQL, arrive as the characters the source's
// userCharacters names; a code it does not name arrives as IBM's Toolbox reads it (private use).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IbmiConnection } from '../../../../lib/ibmi/connection';
import { PostgresTarget } from '../../../../main/agents/postgresql/target';
import { SqliteTarget } from '../../../../main/agents/sqlite/target';
import type { Target } from '../../../../main/agents/target';
import type { RunnerEvent } from '../../../../main/runner/events';
import { startSandboxIbmi, type SandboxIbmi } from '../../../../simulators/ibmi';
import { SEED_ADMIN } from '../../../../simulators/ibmi/seed';
import { journalEntity, journalRunner } from '../../../helpers/journal';
import { POSTGRES, scratchSchema } from '../../../helpers/replica';

// U+E000 and U+E001: the codes 6941 and 6942 as the Toolbox reads them in 939 and 300.
const HELD = { NAME: '\ue000田 様', KANJI: '\ue000\ue001' };
// The shop's table names 6941 only.
const TABLE = '6941=U+20BB7';
const READ = { NAME: '𠮷田 様', KANJI: '𠮷\ue001' };

let sandbox: SandboxIbmi;
let admin: IbmiConnection;
beforeAll(async () => {
  sandbox = await startSandboxIbmi({ seed: true });
  admin = await sandbox.connect({ ...SEED_ADMIN });
  await admin.query('CREATE SCHEMA GAIJI');
  await admin.query(
    'CREATE TABLE GAIJI.KUNDEN (ID INTEGER NOT NULL PRIMARY KEY, NAME VARCHAR(20) CCSID 939, KANJI VARGRAPHIC(10) CCSID 300)',
  );
});
afterAll(async () => {
  await admin?.close();
  await sandbox?.close();
});

const insert = (id: number) =>
  admin.query('INSERT INTO GAIJI.KUNDEN VALUES (?, ?, ?)', [id, HELD.NAME, HELD.KANJI]);

describe.each(['SQLite', 'PostgreSQL'] as const)('a shop’s user-defined characters → %s', (label) => {
  const pipeline = `GAIJI${label.slice(0, 2).toUpperCase()}`;
  const path = join(mkdtempSync(join(tmpdir(), 'cdc-gaiji-')), 'replica.sqlite');
  const schema = `cdc_gaiji_${process.pid}`;
  let client: pg.Client | undefined;
  let drop: (() => Promise<void>) | undefined;
  const target = async (): Promise<Target> =>
    label === 'SQLite'
      ? new SqliteTarget(path, pipeline)
      : new PostgresTarget({ ...POSTGRES, schema }, pipeline);
  const rows = async (): Promise<unknown[][]> => {
    const sql = `SELECT "ID", "NAME", "KANJI" FROM ${label === 'SQLite' ? '' : `"${schema}".`}"kunden" ORDER BY 1`;
    if (label === 'PostgreSQL')
      return (await (client as pg.Client).query({ text: sql, rowMode: 'array' })).rows as unknown[][];
    const db = new Database(path, { readonly: true });
    try {
      return db.prepare(sql).raw().all() as unknown[][];
    } finally {
      db.close();
    }
  };
  beforeAll(async () => {
    if (label === 'PostgreSQL') ({ client, drop } = await scratchSchema(schema));
  });
  afterAll(async () => {
    await drop?.();
  });

  it('copies one row and streams another with the shop’s characters in place of its codes', async () => {
    const events: RunnerEvent[] = [];
    const run = () =>
      journalRunner(
        sandbox,
        pipeline,
        [journalEntity({ schema: 'GAIJI', table: 'KUNDEN' })],
        target,
        events,
        { configuration: { userCharacters: TABLE } },
      ).runUntilCaughtUp();
    const id = label === 'SQLite' ? 1 : 3;
    await insert(id);
    await run();
    await insert(id + 1);
    await run();
    expect(events.filter((e) => ['failed', 'rows-refused', 'table-suspended'].includes(e.kind))).toEqual([]);
    // The file holds the rows of the targets before this one too: each target copies them all.
    expect((await rows()).filter((r) => r[0] === id || r[0] === id + 1)).toEqual([
      [id, READ.NAME, READ.KANJI],
      [id + 1, READ.NAME, READ.KANJI],
    ]);
  });
});
