// Starting a journal pipeline at a point (startAt) with snapshot mode "never", into SQLite and
// PostgreSQL: at a time, the first entry at or after it; at a journal position, that entry itself;
// then on with the changes that follow. A point the journal no longer holds is refused with the
// earliest one it does, and startAt beside a copy is refused, never taken as "now".
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Entity } from '../../../../shared/controlApi';
import type { JournalConfiguration } from '../../../../shared/agents/journal';
import { SqliteTarget } from '../../../../main/agents/sqlite/target';
import type { Target } from '../../../../main/agents/target';
import type { RunnerEvent } from '../../../../main/runner/events';
import { ibmiLibrarySession, journalEntity, journalRunner, recordEntriesOf } from '../../../helpers/journal';
import { eitherReplica } from '../../../helpers/eitherReplica';

const LIB = 'STARTAT';
const suite = ibmiLibrarySession(LIB);

const runner = (
  pipeline: string,
  list: Entity[],
  openTarget: () => Promise<Target>,
  events: RunnerEvent[],
  configuration: Partial<JournalConfiguration>,
) => journalRunner(suite.sandbox, pipeline, list, openTarget, events, { configuration, idleMs: 20 });

const insertsOf = (library: string, file: string) => recordEntriesOf(suite.admin, library, file, 'PT');

describe.each(['SQLite', 'PostgreSQL'] as const)('startAt into %s', (label) => {
  const file = label === 'SQLite' ? 'ORDSQ' : 'ORDPG';
  const ref = { schema: LIB, table: file };
  const list = [journalEntity(ref)];
  let inserts: Awaited<ReturnType<typeof insertsOf>>;

  beforeAll(async () => {
    await suite.admin.query(
      `CREATE TABLE ${LIB}.${file} (ID INTEGER NOT NULL PRIMARY KEY, NAME VARCHAR(10))`,
    );
    await suite.admin.command(`CHGJRNOBJ OBJ((${LIB}/${file} *FILE)) ATR(*IMAGES) IMAGES(*BOTH)`);
    for (const id of [1, 2])
      await suite.admin.query(`INSERT INTO ${LIB}.${file} VALUES (?, ?)`, [id, `n${id}`]);
    await suite.admin.query(`UPDATE ${LIB}.${file} SET NAME = 'two' WHERE ID = 2`);
    await suite.admin.query(`INSERT INTO ${LIB}.${file} VALUES (3, 'n3')`);
    inserts = await insertsOf(LIB, file);
    expect(inserts.map((i) => i.key)).toEqual([1, 2, 3]);
  });

  it.each([
    ['a time, the first entry at or after it', 'time', [2, 3]],
    ['a journal position, the entry itself', 'position', [3]],
  ] as const)('starts at %s, then follows the journal', async (_what, kind, keys) => {
    const pipeline = `${label === 'SQLite' ? 'SQ' : 'PG'}${kind.toUpperCase()}`;
    const replica = eitherReplica(label, pipeline, `startat${kind}`);
    await replica.open();
    try {
      const startAt = kind === 'time' ? (inserts[1]?.time ?? '') : (inserts[2]?.position ?? '');
      const events: RunnerEvent[] = [];
      const configuration = { snapshotMode: 'never' as const, startAt };
      await runner(pipeline, list, replica.target, events, configuration).runUntilCaughtUp();
      expect(events.filter((e) => e.kind === 'failed')).toEqual([]);
      const skipped = events.find((e) => e.kind === 'snapshot-skipped');
      expect(skipped && 'reason' in skipped ? skipped.reason : '').toContain(startAt);
      // What was written before the point is never read: row 1, and row 2 (with its update) for a start at row 3.
      const expected = keys.map((k) => [k, k === 2 ? 'two' : `n${k}`]);
      expect(await replica.rows(file.toLowerCase(), '"ID", "NAME"')).toEqual(expected);

      await suite.admin.query(`INSERT INTO ${LIB}.${file} VALUES (4, 'n4')`);
      await runner(pipeline, list, replica.target, events, configuration).runUntilCaughtUp();
      expect(await replica.rows(file.toLowerCase(), '"ID", "NAME"')).toEqual([...expected, [4, 'n4']]);
      await suite.admin.query(`DELETE FROM ${LIB}.${file} WHERE ID = 4`);
    } finally {
      await replica.close();
    }
  });
});

describe('a point the journal cannot give is refused', () => {
  const file = 'GONE';
  const list = [journalEntity({ schema: 'GONELIB', table: file })];
  const failure = async (pipeline: string, configuration: Partial<JournalConfiguration>) => {
    const path = join(mkdtempSync(join(tmpdir(), 'cdc-startat-')), 'replica.sqlite');
    const events: RunnerEvent[] = [];
    const r = runner(pipeline, list, async () => new SqliteTarget(path, pipeline), events, configuration);
    await r.runUntilCaughtUp().catch(() => undefined);
    return r.failure ?? '';
  };
  let before: Awaited<ReturnType<typeof insertsOf>>;

  beforeAll(async () => {
    // Its own library, so its journal's receivers can be deleted without touching the others.
    await suite.admin.query('CREATE SCHEMA GONELIB');
    await suite.admin.query(
      `CREATE TABLE GONELIB.${file} (ID INTEGER NOT NULL PRIMARY KEY, NAME VARCHAR(10))`,
    );
    await suite.admin.command(`CHGJRNOBJ OBJ((GONELIB/${file} *FILE)) ATR(*IMAGES) IMAGES(*BOTH)`);
    await suite.admin.query(`INSERT INTO GONELIB.${file} VALUES (1, 'old')`);
    before = await insertsOf('GONELIB', file);
    const [old] = before;
    await suite.admin.command('CHGJRN JRN(GONELIB/QSQJRN) JRNRCV(*GEN)');
    await suite.admin.query(`INSERT INTO GONELIB.${file} VALUES (2, 'new')`);
    await suite.admin.command(`DLTJRNRCV JRNRCV(${old?.position.split('/').slice(0, 2).join('/')})`);
  });

  it('a position in a deleted receiver, naming the earliest entry held', async () => {
    const [old] = before;
    const message = await failure('gonepos', { snapshotMode: 'never', startAt: old?.position });
    expect(message).toContain(
      `journal position ${old?.position} is not in the receiver chain of journal GONELIB/QSQJRN`,
    );
    expect(message).toMatch(/the earliest entry the journal holds is GONELIB\/QSQJRN\d+\/\d+/);
  });

  it('a time before the receivers left, naming the first entry held', async () => {
    const [old] = before;
    const message = await failure('gonetime', { snapshotMode: 'never', startAt: old?.time });
    expect(message).toContain('Journal GONELIB/QSQJRN holds entries from');
    expect(message).toContain('the receivers before it were deleted');
  });

  it('startAt beside a copy', async () => {
    const message = await failure('gonecopy', { snapshotMode: 'initial', startAt: '2026-01-01 00:00:00' });
    expect(message).toContain('it needs snapshotMode = "never" (it is "initial")');
  });
});
