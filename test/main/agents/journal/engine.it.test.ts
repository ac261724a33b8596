// The journal agent through the local engine's control API, on the simulated IBM i: the spec's two
// PUTs, POST …/test with the agent's checks, POST …/fixes/journaling, a pipeline started into the
// default SQLite file, and GET …/backlog by the spec's query with the pipeline's history.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxIbmi } from '../../../../simulators/ibmi';
import type { IbmiConnection } from '../../../../lib/ibmi/connection';
import { SEED_AGENT } from '../../../../simulators/ibmi/seed';
import { seededIbmi } from '../../../helpers/ibmi';
import { startTestEngine, type RunningEngine } from '../../../helpers/engine';

let sandbox: SandboxIbmi;
let admin: IbmiConnection;
let e: RunningEngine;
const ids = { pipelineId: 'p1', agentId: 'as400' };

beforeAll(async () => {
  ({ sandbox, admin } = await seededIbmi());
  e = await startTestEngine();
  await configure(e);
});
afterAll(async () => {
  await e?.stop();
  await admin?.close();
  await sandbox?.close();
});

/** Pipeline p1 with the journal agent as400 on the sandbox, reading SHOP/CUSTOMER and LEGACY/ITEMS. */
async function configure(e: RunningEngine): Promise<void> {
  await e.client.createPipeline({}, { id: 'p1', name: 'p1' });
  await e.client.createAgent({ pipelineId: 'p1' }, { id: 'as400', type: 'journal', role: 'source' });
  await e.client.putCredentials(ids, {
    hostCredentials: {
      connectionName: 'sandbox',
      host: sandbox.host,
      databaseName: '*SYSBAS',
      username: SEED_AGENT.user,
      password: SEED_AGENT.password,
      enableDdsDiscovery: true,
    },
  });
  await e.client.putSpecific(ids, { configuration: { dateFormat: null, timeFormat: null } });
  await e.client.putEntities(
    { pipelineId: 'p1' },
    {
      entities: [
        { source: { schema: 'SHOP', table: 'CUSTOMER' }, target: { table: 'customer' } },
        {
          source: { schema: 'LEGACY', table: 'ITEMS' },
          target: { table: 'items' },
          rowIdentification: { kind: 'logicalKey', columns: ['ITEMNO'] },
        },
      ],
    },
  );
}

describe('a journal agent in the engine', () => {
  it('POST …/test answers the checks; the journaling fix runs on request and the check then passes', async () => {
    await admin.command('CHGJRNOBJ OBJ((LEGACY/ITEMS *FILE)) ATR(*IMAGES) IMAGES(*AFTER)');
    const answer = await e.client.testAgent(ids);
    const byId = Object.fromEntries(answer.checks.map((c) => [c.id, c]));
    // An in-process simulated IBM i has no TCP port: no reachability check, the agent's checks follow.
    expect(byId['host-reachable']).toBeUndefined();
    expect(byId['connection']?.message).toBe(`Signed on as CDCAGENT to ${sandbox.host}.`);
    expect(byId['user-profile']?.status).toBe('passed');
    expect(byId['journaling']).toMatchObject({
      status: 'failed',
      fix: 'CHGJRNOBJ OBJ((LEGACY/ITEMS *FILE)) ATR(*IMAGES) IMAGES(*BOTH)',
    });
    // CDCAGENT may not change another owner's file: the fix is refused with IBM i's own message.
    const refused = await e.client
      .applyFix({ ...ids, checkId: 'journaling' })
      .catch((error: unknown) => error);
    expect(String(refused)).toContain('CPF9802');
    await admin.command('GRTOBJAUT OBJ(LEGACY/ITEMS) OBJTYPE(*FILE) USER(CDCAGENT) AUT(*ALL)');
    const fixed = await e.client.applyFix({ ...ids, checkId: 'journaling' });
    expect(fixed.applied).toBe('CHGJRNOBJ OBJ((LEGACY/ITEMS *FILE)) ATR(*IMAGES) IMAGES(*BOTH)');
    expect(fixed.checks.find((c) => c.id === 'journaling')?.status).toBe('passed');
  });

  it('starts the pipeline, and GET …/backlog runs the spec’s query on the checkpoint table', async () => {
    expect((await e.client.getBacklog(ids)).unavailableReason).toContain('No checkpoint at the source yet');
    // Checks and the backlog only read: the sync library comes with the first run.
    expect(await admin.query("SELECT SCHEMA_NAME FROM QSYS2.SYSSCHEMAS WHERE SCHEMA_NAME = 'SYNC'")).toEqual(
      [],
    );
    expect((await e.client.startAgent(ids)).state).toBe('running');
    for (let i = 0; i < 100; i++) {
      const events = await e.client.listEvents({ pipelineId: 'p1' });
      if (events.filter((x) => x.kind === 'snapshot-done').length === 2) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await e.client.stopAgent(ids);
    for (let id = 100; id < 110; id++)
      await admin.query('INSERT INTO SHOP.CUSTOMER (ID, NAME) VALUES (?, ?)', [id, `new ${id}`]);
    const backlog = await e.client.getBacklog(ids);
    expect(backlog.current).toMatchObject({ rowsToRead: 10, versionsBehind: null });
    expect(backlog.current?.minutesLeft).toBeCloseTo(((10 / 10000) * 5) / 60, 12);
    expect(backlog.current?.perTable).toEqual(
      expect.arrayContaining([{ table: 'SHOP.CUSTOMER', rowsToRead: 10 }]),
    );
  });
});

describe('GET …/tables on a journal agent', () => {
  it('answers each entity file: primary key, journal and images, and what stops the agent', async () => {
    await admin.command('ENDJRNPF FILE(SHOP/CUSTOMER)');
    const { tables } = await e.client.listAgentTables(ids);
    expect(tables).toEqual([
      {
        table: 'SHOP.CUSTOMER',
        exists: true,
        rowIdentification: 'primary key',
        primaryKey: ['ID'],
        changeTracking: null,
        journalImages: null,
        journal: null,
        problem: 'Not journaled: STRJRNPF with IMAGES(*BOTH).',
      },
      {
        table: 'LEGACY.ITEMS',
        exists: true,
        rowIdentification: 'logical key (ITEMNO)',
        primaryKey: [],
        changeTracking: null,
        journalImages: '*BOTH',
        journal: 'LEGACY/JRN',
        problem: null,
      },
    ]);
  });
});

describe('the backlog and the table view on one sign-on', () => {
  it('reuse one job between reads; a dropped connection or changed settings sign on again; closing the engine ends the job', async () => {
    const own = await startTestEngine();
    await configure(own);
    const before = sandbox.system.signOns;
    const running = sandbox.system.activeJobs;
    for (let i = 0; i < 3; i++) await own.client.getBacklog(ids);
    await own.client.listAgentTables(ids);
    expect(sandbox.system.signOns - before).toBe(1);
    expect(sandbox.system.activeJobs).toBe(running + 1);

    // A connection lost under a read: that read says so, the next signs on again.
    sandbox.system.injectFaults('drop', 1);
    await own.client.listAgentTables(ids).catch(() => undefined);
    expect((await own.client.listAgentTables(ids)).tables).toHaveLength(2);
    expect(sandbox.system.signOns - before).toBe(2);

    // Other settings: the job signed on with the old ones ends, a new one starts.
    await own.client.putSpecific(ids, { configuration: { dateFormat: 'iso', timeFormat: null } });
    await own.client.listAgentTables(ids);
    expect(sandbox.system.signOns - before).toBe(3);
    expect(sandbox.system.activeJobs).toBe(running + 1);

    await own.stop();
    expect(sandbox.system.activeJobs).toBe(running);
  });
});
