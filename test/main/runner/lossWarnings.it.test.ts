// Warnings before loss, in the backlog the engine records: the journal agent warns while it has entries
// unread in a journal that deletes each receiver it detaches (MNGRCV(*SYSTEM) DLTRCV(*YES)) — and the
// receiver change that follows does delete them, so the table is copied again; the change-tracking agent
// warns once the oldest change a table needs has less than retentionWarningPercent of the retention
// left. Neither warns when caught up, or when the source keeps what it needs.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type sql from 'mssql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openChangeTrackingSource } from '../../../main/agents/changeTracking/source';
import { tableKey, type SourceAgent, type TableRef } from '../../../main/agents/source';
import { SqliteTarget } from '../../../main/agents/sqlite/target';
import type { RunnerEvent } from '../../../main/runner/events';
import { PipelineRunner } from '../../../main/runner/pipelineRunner';
import { startSandboxIbmi, type SandboxIbmi } from '../../../simulators/ibmi';
import { SEED_ADMIN } from '../../../simulators/ibmi/seed';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../../simulators/mssql';
import type { IbmiConnection } from '../../../lib/ibmi/connection';
import type { SourceHarness } from '../agents/contract/sourceAgent';
import { ctConfiguration, sandboxCredentials } from '../../helpers/changeTracking';
import { journalHarness, sandboxIbmiCredentials } from '../../helpers/journal';
import { DBA, sandboxPool } from '../../helpers/sandbox';

/** Each pipeline's replica, kept across its runs (a run resumes where the last one stopped). */
const replicas = new Map<string, string>();
const replica = (name: string) => {
  const path = replicas.get(name) ?? join(mkdtempSync(join(tmpdir(), 'cdc-risk-')), 'r.sqlite');
  replicas.set(name, path);
  return path;
};

const caughtUp = async (open: () => Promise<SourceAgent>, entities: TableRef[], name: string) => {
  const events: RunnerEvent[] = [];
  const runner = new PipelineRunner({
    openSource: open,
    openTarget: async () => new SqliteTarget(replica(name), name),
    entities: entities.map((t) => ({ source: t, target: { table: t.table.toLowerCase() } })),
    onEvent: (e) => events.push(e),
  });
  await runner.runUntilCaughtUp();
  expect(runner.failure).toBeNull();
  return events;
};

/** The agent's warnings for its tables from the checkpoint it keeps at the source. */
async function warningsOf(open: () => Promise<SourceAgent>, tables: TableRef[]): Promise<string[]> {
  const agent = await open();
  try {
    const checkpoint = (await agent.loadCheckpoint?.()) ?? {};
    return (await agent.backlog(tables, checkpoint)).warnings ?? [];
  } finally {
    await agent.close();
  }
}

describe('the journal agent', () => {
  let ibmi: SandboxIbmi;
  let admin: IbmiConnection;
  let h: SourceHarness & { prepare(): Promise<void> };
  beforeAll(async () => {
    ibmi = await startSandboxIbmi({ seed: true });
    admin = await ibmi.connect({ ...SEED_ADMIN });
    h = journalHarness(await ibmi.connect({ ...SEED_ADMIN }), sandboxIbmiCredentials(ibmi), {
      schema: 'RISK',
      pipelineId: 'risk',
    });
    await h.prepare();
  });
  afterAll(async () => {
    await h?.close();
    await admin?.close();
    await ibmi?.close();
  });

  it('warns while entries are unread in a journal that deletes its receivers, and is proven right', async () => {
    const t = await h.createTable('R');
    await h.insert(t, [{ id: 1, name: 'one', amount: '1.00' }]);
    const open = () => h.open();
    await caughtUp(open, [t], 'risk');
    expect(await warningsOf(open, [t])).toEqual([]);
    // Behind, with receivers kept (QSQJRN's DLTRCV(*NO)): no warning.
    await h.insert(t, [{ id: 2, name: 'two', amount: '2.00' }]);
    expect(await warningsOf(open, [t])).toEqual([]);
    // The DBA lets the system delete receivers while the pipeline is behind: warned, in words.
    await admin.command('CHGJRN JRN(RISK/QSQJRN) MNGRCV(*SYSTEM) DLTRCV(*YES)');
    const [warning, ...more] = await warningsOf(open, [t]);
    expect(more).toEqual([]);
    expect(warning).toMatch(
      new RegExp(
        `^Journal RISK/QSQJRN deletes each receiver it detaches \\(MNGRCV\\(\\*SYSTEM\\) DLTRCV\\(\\*YES\\)\\), and ${tableKey(t).replace('.', '\\.')} ` +
          'has up to \\d+ entries not read yet, from receiver RISK/QSQJRN\\d+ on: .*CHGJRN JRN\\(RISK/QSQJRN\\) DLTRCV\\(\\*NO\\)\\.$',
      ),
    );
    // The warning was right: the next receiver change deletes the entries, and the table is copied again.
    await admin.command('CHGJRN JRN(RISK/QSQJRN) JRNRCV(*GEN)');
    const events = await caughtUp(open, [t], 'risk');
    console.log(JSON.stringify(events.map((e) => e.kind)));
    expect(events.find((e) => e.kind === 'resnapshot')).toMatchObject({ table: tableKey(t) });
    expect(await warningsOf(open, [t])).toEqual([]);
  });
});

describe('the change-tracking agent', () => {
  let sandbox: SandboxSqlServer;
  let pool: sql.ConnectionPool;
  let clock = Date.parse('2026-11-27T08:00:00Z');
  const t = { schema: 'dbo', table: 'Risky' };
  beforeAll(async () => {
    sandbox = await startSandboxSqlServer({
      logins: [DBA],
      databases: ['Sales'],
      now: () => new Date(clock),
    });
    pool = await sandboxPool(sandbox, { max: 1 });
    await pool.request()
      .batch(`ALTER DATABASE Sales SET CHANGE_TRACKING = ON (CHANGE_RETENTION = 2 DAYS, AUTO_CLEANUP = ON);
      ALTER DATABASE Sales SET ALLOW_SNAPSHOT_ISOLATION ON;
      CREATE TABLE dbo.Risky (Id INT PRIMARY KEY, Note NVARCHAR(20) NOT NULL);
      ALTER TABLE dbo.Risky ENABLE CHANGE_TRACKING;
      INSERT INTO dbo.Risky VALUES (1, N'one');`);
  });
  afterAll(async () => {
    await pool?.close();
    await sandbox?.close();
  });

  it('warns when the oldest change a table needs nears the end of the retention', async () => {
    const open = () =>
      openChangeTrackingSource({
        credentials: sandboxCredentials(sandbox),
        configuration: ctConfiguration({ retentionWarningPercent: 25 }),
        pipelineId: 'risk',
        agentId: 'src',
      });
    await caughtUp(open, [t], 'ct-risk');
    expect(await warningsOf(open, [t])).toEqual([]);
    // Behind by a change made now: 2 days of retention left, no warning.
    await pool.request().batch("INSERT INTO dbo.Risky VALUES (2, N'two')");
    expect(await warningsOf(open, [t])).toEqual([]);
    // 37 hours on (11 h left, under 25 % of 48 h): warned, in words.
    clock += 37 * 3_600_000;
    const [warning] = await warningsOf(open, [t]);
    expect(warning).toMatch(
      /^dbo\.Risky still needs changes from version \d+, which Change Tracking's auto cleanup removes in about 1\d\.\d h \(retention 2 days\): the tables are then copied again\. .*CHANGE_RETENTION/,
    );
    await caughtUp(open, [t], 'ct-risk');
    expect(await warningsOf(open, [t])).toEqual([]);
  });
});
