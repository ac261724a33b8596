// Starting a change-tracking pipeline at a point (startAt) with snapshot mode "never", into SQLite and
// PostgreSQL: at a version, the changes committed after it; at a time, those committed at or after it
// (sys.dm_tran_commit_table), each key with its row as it is now (Change Tracking keeps no history);
// then on with the changes that follow. A point Change Tracking cannot give is refused with the
// earliest one it can, and a time the login cannot place is refused, never guessed.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openChangeTrackingSource } from '../../../../main/agents/changeTracking/source';
import { commitTimeCheck } from '../../../../main/agents/changeTracking/commitTimeCheck';
import type { ChangeTrackingConfiguration } from '../../../../shared/agents/changeTracking';
import { PipelineRunner, type RunnerEntity } from '../../../../main/runner/pipelineRunner';
import type { RunnerEvent } from '../../../../main/runner/events';
import { SqliteTarget } from '../../../../main/agents/sqlite/target';
import type { Target } from '../../../../main/agents/target';
import { ctConfiguration, sandboxCredentials } from '../../../helpers/changeTracking';
import { DBA, sandboxPool } from '../../../helpers/sandbox';
import { eitherReplica } from '../../../helpers/eitherReplica';
import { clockedLedger, LEDGER } from '../../../helpers/clockedLedger';

const LIMITED = { name: 'limited', password: 'Limited-Pa55' };
const world = clockedLedger({
  start: '2026-11-02T09:00:00.000Z',
  logins: [{ ...LIMITED, permissions: { viewServerState: false } }],
  changes: [
    `INSERT INTO dbo.Ledger VALUES (1, N'n1')`,
    `INSERT INTO dbo.Ledger VALUES (2, N'n2')`,
    `UPDATE dbo.Ledger SET Name = N'two' WHERE Id = 2`,
    `INSERT INTO dbo.Ledger VALUES (3, N'n3')`,
  ],
});
const { commits, change } = world;
const ledger = LEDGER;

function runner(
  pipelineId: string,
  openTarget: () => Promise<Target>,
  events: RunnerEvent[],
  configuration: Partial<ChangeTrackingConfiguration>,
  options: { login?: typeof LIMITED; entities?: RunnerEntity[] } = {},
) {
  const login = options.login ?? DBA;
  return new PipelineRunner({
    openSource: () =>
      openChangeTrackingSource({
        credentials: sandboxCredentials(world.sandbox, { username: login.name, password: login.password }),
        configuration: ctConfiguration(configuration),
        pipelineId,
        agentId: 'src',
      }),
    openTarget,
    entities: options.entities ?? ledger,
    onEvent: (e) => events.push(e),
    idleMs: 20,
    retry: { firstDelayMs: 10, maxDelayMs: 50, maxAttempts: 1 },
    ...(configuration.snapshotMode && { snapshotMode: configuration.snapshotMode }),
  });
}

beforeAll(() => {
  expect(commits).toHaveLength(4);
});

describe.each(['SQLite', 'PostgreSQL'] as const)('startAt into %s', (label) => {
  it.each([
    // The first insert's own commit time, so it is read; key 2, inserted as n2 after it, comes with its
    // row as it is now: Change Tracking keeps no history.
    ['a time, from the transaction committed then, each key with its current row', 'time', [1, 2, 3]],
    ['a version, the changes committed after it', 'version', [3]],
  ] as const)('starts at %s, then follows the changes', async (_what, kind, keys) => {
    const pipeline = `${label === 'SQLite' ? 'sq' : 'pg'}${kind}`;
    const replica = eitherReplica(label, pipeline, `ctstartat${kind}`);
    await replica.open();
    try {
      const startAt = kind === 'time' ? (commits[0]?.time ?? '') : (commits[2]?.version ?? '');
      const events: RunnerEvent[] = [];
      const configuration = { snapshotMode: 'never' as const, startAt };
      await runner(pipeline, replica.target, events, configuration).runUntilCaughtUp();
      expect(events.filter((e) => e.kind === 'failed')).toEqual([]);
      const skipped = events.find((e) => e.kind === 'snapshot-skipped');
      expect(skipped && 'reason' in skipped ? skipped.reason : '').toContain(startAt);
      const expected = keys.map((k) => [k, k === 2 ? 'two' : `n${k}`]);
      expect(await replica.rows('ledger', '"Id", "Name"')).toEqual(expected);

      await change(`INSERT INTO dbo.Ledger VALUES (4, N'n4')`);
      await runner(pipeline, replica.target, events, configuration).runUntilCaughtUp();
      expect(await replica.rows('ledger', '"Id", "Name"')).toEqual([...expected, [4, 'n4']]);
      await change('DELETE FROM dbo.Ledger WHERE Id = 4');
    } finally {
      await replica.close();
    }
  });
});

describe('a point Change Tracking cannot give is refused', () => {
  const failure = async (
    pipeline: string,
    configuration: Partial<ChangeTrackingConfiguration>,
    options: Parameters<typeof runner>[4] = {},
  ) => {
    const path = join(mkdtempSync(join(tmpdir(), 'cdc-ctstartat-')), 'replica.sqlite');
    const r = runner(pipeline, async () => new SqliteTarget(path, pipeline), [], configuration, options);
    await r.runUntilCaughtUp().catch(() => undefined);
    return r.failure ?? '';
  };

  it('a version older than a table tracked later, naming the earliest version every table can give', async () => {
    await change(`CREATE TABLE dbo.Later (Id INT PRIMARY KEY);
      ALTER TABLE dbo.Later ENABLE CHANGE_TRACKING;
      INSERT INTO dbo.Later VALUES (1);`);
    const { recordset } = await world.admin
      .request()
      .query<{ m: string }>("SELECT CHANGE_TRACKING_MIN_VALID_VERSION(OBJECT_ID('dbo.Later')) AS m");
    const min = String(recordset[0]?.m);
    expect(Number(min)).toBeGreaterThan(1);
    const entities = [...ledger, { source: { schema: 'dbo', table: 'Later' }, target: { table: 'later' } }];
    const message = await failure('ctearly', { snapshotMode: 'never', startAt: '1' }, { entities });
    expect(message).toContain('change-tracking version 1 (version 1) is older than what Change Tracking');
    expect(message).toContain(`dbo.Later (${min})`);
    expect(message).toContain(`the earliest version every table can start from is ${min}`);
  });

  it('a version the database has not reached', async () => {
    const message = await failure('ctahead', { snapshotMode: 'never', startAt: '999999' });
    expect(message).toMatch(
      /change-tracking version 999999 is ahead of the database, which is at change-tracking version \d+/,
    );
  });

  it('a time, for a login that sees commits only up to the last CHECKPOINT: the check fails and Start refuses', async () => {
    const startAt = commits[1]?.time ?? '';
    const message = await failure('ctnoperm', { snapshotMode: 'never', startAt }, { login: LIMITED });
    expect(message).toContain('which this login reads only up to the last CHECKPOINT');
    expect(message).toContain('VIEW SERVER PERFORMANCE STATE');
    const limited = await sandboxPool(world.sandbox, { user: LIMITED.name, password: LIMITED.password });
    try {
      const credentials = sandboxCredentials(world.sandbox, {
        username: LIMITED.name,
        password: LIMITED.password,
      });
      const check = await commitTimeCheck(limited, credentials, startAt);
      expect(check).toMatchObject({
        status: 'failed',
        fix: 'GRANT VIEW SERVER PERFORMANCE STATE TO [limited];',
      });
      expect(check.message).toContain(`startAt = "${startAt}" is a time`);
      expect((await commitTimeCheck(limited, credentials, '7')).status).toBe('warning');
      // A stop at a time is placed the same way: the check fails for it too, naming stopAt.
      const stop = await commitTimeCheck(limited, credentials, '7', startAt);
      expect(stop.status).toBe('failed');
      expect(stop.message).toContain(`stopAt = "${startAt}" is a time`);
    } finally {
      await limited.close();
    }
  });

  it('startAt beside a copy', async () => {
    const message = await failure('ctcopy', { snapshotMode: 'initial', startAt: '5' });
    expect(message).toContain('it needs snapshotMode = "never" (it is "initial")');
  });

  // Last: the clock jumps past the retention, and cleanup removes the older commits.
  it('a time before the commits cleanup removed, naming the first commit kept', async () => {
    world.advance(3 * 86_400_000);
    await change(`INSERT INTO dbo.Ledger VALUES (5, N'n5')`);
    await world.admin
      .request()
      .query("SELECT CHANGE_TRACKING_MIN_VALID_VERSION(OBJECT_ID('dbo.Ledger')) AS m");
    const message = await failure('ctcleaned', { snapshotMode: 'never', startAt: commits[1]?.time ?? '' });
    expect(message).toMatch(/sys\.dm_tran_commit_table keeps commits from version \d+ \(.+\) on/);
    expect(message).toContain("the ones before were removed by Change Tracking's cleanup");
  });
});
