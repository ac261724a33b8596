// A rewind through the control API of a running engine: asked of a running pipeline only, with a
// point the source type's startAt rule accepts (the refusal names the field, the value and the
// rule); taken, every change since is applied again and the events tell it; a point the source no
// longer holds is refused as an event while the pipeline runs on.
import type sql from 'mssql';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { startSandboxSqlServer, type SandboxSqlServer } from '../../../simulators/mssql';
import { refusal, refusalInWords, startTestEngine, type RunningEngine } from '../../helpers/engine';
import { sandboxPool } from '../../helpers/sandbox';
import { until } from '../../helpers/until';
import { configureSeedPipeline } from '../../helpers/changeTracking';

let sandbox: SandboxSqlServer;
let admin: sql.ConnectionPool;
let e: RunningEngine;
const ids = { pipelineId: 'rewinds', agentId: 'sales' };
const events = async (kind: string) =>
  (await e.client.listEvents({ pipelineId: ids.pipelineId })).filter((x) => x.kind === kind);

beforeAll(async () => {
  sandbox = await startSandboxSqlServer({ seed: true });
  admin = await sandboxPool(sandbox, { user: 'sa', password: 'Sandbox-Passw0rd', max: 2 });
  e = await startTestEngine();
  await configureSeedPipeline(e.client, sandbox, ids, ['Customers']);
});
afterAll(async () => {
  await e?.stop();
  await admin?.close();
  await sandbox?.close();
});

const version = async () =>
  String(
    (await admin.request().query<{ v: string }>('SELECT CHANGE_TRACKING_CURRENT_VERSION() AS v')).recordset[0]
      ?.v,
  );

describe('a rewind through the control API', () => {
  it('is asked of a running pipeline only', async () => {
    const notRunning = await refusal(e.client.rewindPipeline(ids, { to: '1' }));
    expect(notRunning.status).toBe(409);
    expect(notRunning.message).toContain('is not running');
  });

  it("refuses a point the source type's startAt rule does not take, naming the rule", async () => {
    await e.client.startAgent(ids);
    await until('the first copy', async () => (await events('snapshot-done')).length === 1);
    const wrong = await refusalInWords(e.client.rewindPipeline(ids, { to: 'yesterday' }));
    expect(wrong.status).toBe(422);
    expect(wrong.pointers).toEqual(['/to']);
    expect(wrong.detail).toContain('a change-tracking version (digits) or a time');
    expect(await events('rewind-requested')).toEqual([]);
  });

  it('applies every change since the point again: a value planted at the target is mended', async () => {
    const point = await version();
    await admin.request().batch("UPDATE dbo.Customers SET Country = 'FR' WHERE CustomerId = 1");
    const replica = join(e.dataDir, 'replicas', `${ids.pipelineId}.sqlite`);
    const country = () => {
      const db = new Database(replica, { readonly: true });
      try {
        return (
          db.prepare('SELECT "Country" AS c FROM customers WHERE "CustomerId" = 1').get() as { c: string }
        ).c;
      } finally {
        db.close();
      }
    };
    await until('the update applied', () => country() === 'FR');
    const db = new Database(replica);
    db.prepare('UPDATE customers SET "Country" = ? WHERE "CustomerId" = 1').run('XX');
    db.close();

    expect(await e.client.rewindPipeline(ids, { to: point })).toEqual({
      agentId: 'sales',
      to: point,
      status: 'requested',
    });
    await until('rewound', async () => (await events('rewound')).length === 1);
    expect((await events('rewound'))[0]?.data).toMatchObject({ to: point, tables: 1 });
    expect((await events('rewind-requested')).map((x) => x.data)).toEqual([{ to: point }]);
    await until('mended', () => country() === 'FR');
  });

  it('records a point the source no longer holds as refused, and the pipeline runs on', async () => {
    await e.client.rewindPipeline(ids, { to: '999999999' });
    await until('refused', async () => (await events('rewind-refused')).length === 1);
    expect((await events('rewind-refused'))[0]?.data).toMatchObject({
      to: '999999999',
      reason: expect.stringContaining('is ahead of the database'),
    });
    expect((await e.client.getAgent(ids)).state).toBe('running');
  });

  it('stops a pipeline with a stop point by itself, and the agent says stopped', async () => {
    const stopIds = { pipelineId: 'stops', agentId: 'sales' };
    const stopAt = await version();
    await configureSeedPipeline(e.client, sandbox, stopIds, ['Customers'], { snapshotMode: 'never', stopAt });
    await admin.request().batch("UPDATE dbo.Customers SET Country = 'DE' WHERE CustomerId = 2");
    await e.client.startAgent(stopIds);
    await until('stopped by itself', async () => (await e.client.getAgent(stopIds)).state === 'stopped');
    const reached = (await e.client.listEvents({ pipelineId: 'stops' })).filter(
      (x) => x.kind === 'stop-point-reached',
    );
    expect(reached.map((x) => x.data)).toEqual([{ at: `change-tracking version ${stopAt}` }]);
  });
});
