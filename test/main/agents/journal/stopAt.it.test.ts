// Stopping a journal pipeline at a point (stopAt), into SQLite and PostgreSQL: at a journal position
// or at a time, no entry after it is read, a transaction committed after it is not applied (though it
// began before), and once every file has read up to it the pipeline stops by itself. A file with
// nothing pending stands at the point, not at the journal's end: started again without the stop,
// nothing between the two is lost.
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

const LIB = 'STOPAT';
const suite = ibmiLibrarySession(LIB);
const pause = () => new Promise((resolve) => setTimeout(resolve, 5));

const runner = (
  pipeline: string,
  list: Entity[],
  openTarget: () => Promise<Target>,
  events: RunnerEvent[],
  configuration: Partial<JournalConfiguration>,
) => journalRunner(suite.sandbox, pipeline, list, openTarget, events, { configuration, idleMs: 20 });

const entriesOf = (file: string) => recordEntriesOf(suite.admin, LIB, file);

describe.each(['SQLite', 'PostgreSQL'] as const)('stopAt into %s', (label) => {
  const [orders, idle] = label === 'SQLite' ? ['ORDSQ', 'IDLSQ'] : ['ORDPG', 'IDLPG'];
  const list = [orders, idle].map((table) => journalEntity({ schema: LIB, table }));
  let first = '';
  let inCycle = { position: '', time: '' };
  let between = { position: '', time: '' };

  beforeAll(async () => {
    for (const file of [orders, idle]) {
      await suite.admin.query(
        `CREATE TABLE ${LIB}.${file} (ID INTEGER NOT NULL PRIMARY KEY, NAME VARCHAR(10))`,
      );
      await suite.admin.command(`CHGJRNOBJ OBJ((${LIB}/${file} *FILE)) ATR(*IMAGES) IMAGES(*BOTH)`);
    }
    const insert = (c: typeof suite.admin, file: string, id: number) =>
      c.query(`INSERT INTO ${LIB}.${file} VALUES (?, ?)`, [id, `n${id}`]);
    await insert(suite.admin, orders, 1);
    await pause();
    // Committed before the point: applied whole.
    await suite.admin.transaction(async (t) => {
      await insert(t, orders, 2);
      await t.query(`UPDATE ${LIB}.${orders} SET NAME = 'two' WHERE ID = 2`);
    });
    await pause();
    // Begun before the point, committed after it: not applied.
    await suite.admin.transaction(async (t) => {
      await insert(t, orders, 3);
      await pause();
      await insert(t, orders, 30);
    });
    await pause();
    // After the point: the idle file's first entry, and one more of the other.
    await insert(suite.admin, idle, 1);
    await insert(suite.admin, orders, 4);
    const entries = await entriesOf(orders);
    expect(entries.map((e) => `${e.type}${e.key}`)).toEqual([
      'PT1',
      'PT2',
      'UB2',
      'UP2',
      'PT3',
      'PT30',
      'PT4',
    ]);
    first = entries[0]?.position ?? '';
    const [one, three] = [entries[0], entries[4]];
    inCycle = { position: three?.position ?? '', time: three?.time ?? '' };
    between = { position: one?.position ?? '', time: one?.time ?? '' };
    expect(entries[5]?.time).not.toBe(inCycle.time);
  });

  // Inside a transaction that commits after the point; and between transactions, where no commit
  // cycle holds the files back and the idle one moves up to the point (never past it).
  it.each([
    ['a journal position inside a transaction', 'position', 'cycle', 2],
    ['a time inside a transaction', 'time', 'cycle', 2],
    ['a journal position between transactions', 'position', 'between', 1],
  ] as const)(
    'stops at %s by itself, and goes on from there without it',
    async (_what, kind, where, read) => {
      const pipeline = `${label === 'SQLite' ? 'SQ' : 'PG'}${where.slice(0, 3).toUpperCase()}${kind.slice(0, 3).toUpperCase()}`;
      const replica = eitherReplica(label, pipeline, `jstopat${where}${kind}`);
      await replica.open();
      try {
        const stopAt = (where === 'cycle' ? inCycle : between)[kind];
        const configuration = { snapshotMode: 'never' as const, startAt: first, stopAt };
        const events: RunnerEvent[] = [];
        const r = runner(pipeline, list, replica.target, events, configuration);
        await r.runUntilCaughtUp();
        expect(r.failure).toBeNull();
        expect(await replica.rows(orders.toLowerCase(), '"ID", "NAME"')).toEqual(
          [
            [1, 'n1'],
            [2, 'two'],
          ].slice(0, read),
        );
        expect(await replica.rows(idle.toLowerCase(), '"ID"')).toEqual([]);
        expect(events.find((e) => e.kind === 'stop-point-reached')).toMatchObject({
          at: expect.stringContaining(stopAt),
        });
        expect(r.state).toBe('stopped');

        // Started again with the same stop, it reads nothing more and stops at once.
        const again: RunnerEvent[] = [];
        await runner(pipeline, list, replica.target, again, configuration).runUntilCaughtUp();
        expect(again.some((e) => e.kind === 'stop-point-reached')).toBe(true);
        expect(await replica.rows(orders.toLowerCase(), '"ID"')).toHaveLength(read);

        // Without the stop: the open transaction and everything after the point, none of it skipped.
        const on: RunnerEvent[] = [];
        const rest = runner(pipeline, list, replica.target, on, { snapshotMode: 'never', startAt: first });
        await rest.runUntilCaughtUp();
        expect(rest.failure).toBeNull();
        expect(await replica.rows(orders.toLowerCase(), '"ID"')).toEqual([[1], [2], [3], [4], [30]]);
        expect(await replica.rows(idle.toLowerCase(), '"ID", "NAME"')).toEqual([[1, 'n1']]);
      } finally {
        await replica.close();
      }
    },
  );
});

describe('a stop the journal cannot place', () => {
  const list = [journalEntity({ schema: LIB, table: 'ORDSQ' })];
  const run = async (pipeline: string, stopAt: string) => {
    const path = join(mkdtempSync(join(tmpdir(), 'cdc-stopat-')), 'replica.sqlite');
    const events: RunnerEvent[] = [];
    const r = runner(pipeline, list, async () => new SqliteTarget(path, pipeline), events, {
      snapshotMode: 'never',
      stopAt,
    });
    await r.runUntilCaughtUp().catch(() => undefined);
    return { r, events };
  };

  it('a position in a receiver of another journal is refused, naming the rule', async () => {
    const { r } = await run('STOPELSE', 'ELSEWHERE/QSQJRN0001/5');
    expect(r.failure).toContain(
      'stopAt journal position ELSEWHERE/QSQJRN0001/5 names receiver ELSEWHERE/QSQJRN0001, which is not in the receiver chain of journal STOPAT/QSQJRN',
    );
    expect(r.failure).toContain('Give a time to stop tables of several journals');
  });

  it('a time still ahead cuts nothing: the pipeline runs on', async () => {
    const { r, events } = await run('STOPAHEAD', '2099-01-01 00:00:00');
    expect(r.failure).toBeNull();
    expect(events.some((e) => e.kind === 'stop-point-reached')).toBe(false);
    expect(r.stoppedAt).toBeNull();
    await r.stop();
  });
});
