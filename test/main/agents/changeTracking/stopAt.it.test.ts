// Stopping a change-tracking pipeline at a point (stopAt), into SQLite and PostgreSQL: at a version
// or at a commit time, nothing committed after it is read, and once every table has read up to it
// the pipeline stops by itself with a stop-point-reached event. A time still ahead cuts nothing yet.
import { beforeAll, describe, expect, it } from 'vitest';
import { openChangeTrackingSource } from '../../../../main/agents/changeTracking/source';
import type { ChangeTrackingConfiguration } from '../../../../shared/agents/changeTracking';
import { PipelineRunner } from '../../../../main/runner/pipelineRunner';
import type { RunnerEvent } from '../../../../main/runner/events';
import type { Target } from '../../../../main/agents/target';
import { ctConfiguration, sandboxCredentials } from '../../../helpers/changeTracking';
import { eitherReplica } from '../../../helpers/eitherReplica';
import { clockedLedger, LEDGER } from '../../../helpers/clockedLedger';

const world = clockedLedger({
  start: '2026-11-03T09:00:00.000Z',
  changes: [
    `INSERT INTO dbo.Ledger VALUES (1, N'n1')`,
    `INSERT INTO dbo.Ledger VALUES (2, N'n2')`,
    `UPDATE dbo.Ledger SET Name = N'two' WHERE Id = 2`,
    `INSERT INTO dbo.Ledger VALUES (3, N'n3')`,
    `INSERT INTO dbo.Ledger VALUES (4, N'n4')`,
  ],
});
const { commits } = world;
const ledger = LEDGER;

function runner(
  pipelineId: string,
  openTarget: () => Promise<Target>,
  events: RunnerEvent[],
  stopAt: string,
) {
  const configuration: Partial<ChangeTrackingConfiguration> = { snapshotMode: 'never', startAt: '0', stopAt };
  return new PipelineRunner({
    openSource: () =>
      openChangeTrackingSource({
        credentials: sandboxCredentials(world.sandbox),
        configuration: ctConfiguration(configuration),
        pipelineId,
        agentId: 'src',
      }),
    openTarget,
    entities: ledger,
    onEvent: (e) => events.push(e),
    idleMs: 20,
    retry: { firstDelayMs: 10, maxDelayMs: 50, maxAttempts: 1 },
    snapshotMode: 'never',
    // One change a batch: the stop cuts a catch-up, not only its last batch.
    maxRows: 1,
  });
}

beforeAll(() => {
  expect(commits).toHaveLength(5);
});

describe.each(['SQLite', 'PostgreSQL'] as const)('stopAt into %s', (label) => {
  it.each([
    ['a version, the changes committed up to it', 'version'],
    ['a commit time, the transactions committed at or before it', 'time'],
  ] as const)('stops at %s, by itself', async (_what, kind) => {
    const pipeline = `${label === 'SQLite' ? 'sq' : 'pg'}stop${kind}`;
    const replica = eitherReplica(label, pipeline, `ctstopat${kind}`);
    await replica.open();
    try {
      // The update of row 2: rows 1 and 2 are read, rows 3 and 4 committed after it are not.
      const stopAt = kind === 'version' ? (commits[2]?.version ?? '') : (commits[2]?.time ?? '');
      const events: RunnerEvent[] = [];
      const r = runner(pipeline, replica.target, events, stopAt);
      await r.runUntilCaughtUp();
      expect(r.failure).toBeNull();
      expect(await replica.rows('ledger', '"Id", "Name"')).toEqual([
        [1, 'n1'],
        [2, 'two'],
      ]);
      expect(events.find((e) => e.kind === 'stop-point-reached')).toMatchObject({
        at: expect.stringContaining(stopAt),
      });
      expect(r.state).toBe('stopped');
      expect(r.stoppedAt).toContain(stopAt);
      // Started again with the same stop, it reads nothing more and stops at once.
      const again: RunnerEvent[] = [];
      await runner(pipeline, replica.target, again, stopAt).runUntilCaughtUp();
      expect(again.some((e) => e.kind === 'stop-point-reached')).toBe(true);
      expect(await replica.rows('ledger', '"Id", "Name"')).toHaveLength(2);
    } finally {
      await replica.close();
    }
  });
});

describe('a stop time still ahead', () => {
  it('cuts nothing yet: every change is read, and the pipeline runs on', async () => {
    const replica = eitherReplica('SQLite', 'ahead', 'ctstopahead');
    const events: RunnerEvent[] = [];
    const r = runner('ahead', replica.target, events, '2099-01-01 00:00:00');
    await r.runUntilCaughtUp();
    expect(await replica.rows('ledger', '"Id"')).toEqual([[1], [2], [3], [4]]);
    expect(events.some((e) => e.kind === 'stop-point-reached')).toBe(false);
    expect(r.stoppedAt).toBeNull();
  });
});
